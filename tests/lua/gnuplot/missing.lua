-- Run with a PATH where there is no gnuplot: require works, each drawing function raises an error
-- naming itself, and optim.Logger:plot warns once and draws nothing.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

local ok, why = gnuplot.available()
assert(ok == false and why:find('the gnuplot program is not installed', 1, true), tostring(why))
local x = torch.zeros(3)
local calls = {
   plot = function() gnuplot.plot(x) end,
   figure = function() gnuplot.figure() end,
   pngfigure = function() gnuplot.pngfigure('x.png') end,
   epsfigure = function() gnuplot.epsfigure('x.eps') end,
   svgfigure = function() gnuplot.svgfigure('x.svg') end,
   pdffigure = function() gnuplot.pdffigure('x.pdf') end,
   hist = function() gnuplot.hist(torch.randn(10)) end,
   imagesc = function() gnuplot.imagesc(torch.zeros(2, 2)) end,
   splot = function() gnuplot.splot(torch.zeros(2, 2)) end,
   title = function() gnuplot.title('t') end,
   grid = function() gnuplot.grid(true) end,
   raw = function() gnuplot.raw('set grid') end,
   setterm = function() gnuplot.setterm('png') end,
}
for name, call in pairs(calls) do
   H.errors(call, 'gnuplot.' .. name .. ': the gnuplot program is not installed')
end
-- Nothing to flush or close: no error.
gnuplot.close()
gnuplot.closeall()

require 'optim'
local dir = H.tempdir('missing')
local logger = optim.Logger(dir .. '/l.log')
logger:add { loss = 1 }
logger:add { loss = 0.5 }
logger:plot()
logger:plot()
assert(not paths.filep(dir .. '/l.log.eps'), 'no plot file without gnuplot')
-- (No rm: PATH leads nowhere here.)
os.remove(dir .. '/l.log')
os.remove(dir)
print('ok')
