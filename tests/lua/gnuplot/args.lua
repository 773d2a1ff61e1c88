-- Bad arguments get errors naming the function. No gnuplot is needed: arguments are checked
-- before a gnuplot is started.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

H.errors(function() gnuplot.plot() end, 'gnuplot.plot: no inputs, expecting at least a vector')
H.errors(function() gnuplot.plot('title only') end,
   'gnuplot.plot: expecting [string,] tensor [,tensor] [,string]')
H.errors(function() gnuplot.plot(torch.zeros(3), torch.zeros(4)) end,
   'gnuplot.plot: x and y must be a vector and a vector (or matrix) with as many rows')
H.errors(function() gnuplot.plot(torch.zeros(2, 2, 2)) end, 'gnuplot.plot: cannot plot a 3D tensor')
H.errors(function() gnuplot.plot({ 'a', torch.zeros(3) }, 'b') end,
   'gnuplot.plot: expecting [string,] tensor [,tensor] [,string]')
H.errors(function() gnuplot.plot(torch.zeros(3), '-', 'extra') end,
   'gnuplot.plot: expecting [string,] tensor [,tensor] [,string]')
H.errors(function() gnuplot.splot(torch.zeros(3)) end, 'gnuplot.splot: z must be a matrix')
H.errors(function() gnuplot.scatter3(torch.zeros(3), torch.zeros(2), torch.zeros(3)) end,
   'gnuplot.scatter3: x, y and z must be vectors of one size')
H.errors(function() gnuplot.imagesc(torch.zeros(3)) end, 'gnuplot.imagesc: expecting a matrix')
H.errors(function() gnuplot.title({}) end, 'gnuplot.title: bad argument #1')
H.errors(function() gnuplot.xlabel() end, 'gnuplot.xlabel: bad argument #1')
H.errors(function() gnuplot.movelegend('up', 'top') end, 'gnuplot.movelegend: expects 2 strings')
H.errors(function() gnuplot.axis('tight') end, 'gnuplot.axis: expects')
H.errors(function() gnuplot.axis { 1, 2, 3 } end, 'gnuplot.axis: a table of limits must have 4')
H.errors(function() gnuplot.raw(3) end, 'gnuplot.raw: bad argument #1')
H.errors(function() gnuplot.figure(0) end, 'gnuplot.figure: a figure number must be a positive')
H.errors(function() gnuplot.histc({}) end, 'gnuplot.histc: usage')
H.errors(function() gnuplot.histc(torch.zeros(3), 0) end, 'gnuplot.histc: the number of bins')
H.errors(function() gnuplot.pngfigure(nil) end, 'gnuplot.pngfigure: bad argument #1')

print('ok')
