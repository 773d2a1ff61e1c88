-- th optim/logger_plot.lua DIR: optim.Logger:plot through the real gnuplot: the EPS file beside
-- the log, and a PNG when epsfile names one. Prints the PNG's path, then ok.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local dir = assert(arg[1], 'usage: th optim/logger_plot.lua DIR')
require 'gnuplot'
assert(gnuplot.available(), 'gnuplot.available()')

local logger = optim.Logger(dir .. '/train.log')
logger:setNames { 'train loss', 'test loss', 'note' }
for i = 1, 30 do
   logger:add { math.exp(-i / 10), math.exp(-i / 15) + 0.1, i % 10 == 0 and 'checkpoint' or '-' }
end
logger:style { '-', { '+', '-' } }

-- The default: a screen figure (drawn nowhere without a display) and train.log.eps.
logger:plot()
local eps = H.read(dir .. '/train.log.eps')
assert(eps:sub(1, 10) == '%!PS-Adobe', 'train.log.eps is not PostScript')
assert(eps:find('Logger::', 1, true), 'the title names the log')
assert(logger.figure, 'the screen figure is kept for the next plot')

-- A PNG when the plot file is named so; only the named curves; a log scale.
logger.epsfile = dir .. '/loss.png'
logger:display(false)
logger:setlogscale(true)
logger:plot('train loss', 'test loss')
local png = H.read(dir .. '/loss.png')
assert(png and png:sub(1, 8) == '\137PNG\r\n\26\n' and #png > 1000, 'loss.png is not a PNG')

-- Plotting again replaces the file.
os.remove(dir .. '/loss.png')
logger:plot('train loss')
assert(H.read(dir .. '/loss.png'), 'plot again')

H.errors(function() logger:plot('accuracy') end, 'optim.Logger:plot: unknown name accuracy')
gnuplot.closeall()
print(dir .. '/loss.png')
print('ok')
