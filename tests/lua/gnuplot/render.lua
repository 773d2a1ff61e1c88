-- th gnuplot/render.lua DIR: draws with the real gnuplot into DIR, and checks each file is what
-- its name says (PNG, EPS, SVG, PDF). Prints the main PNG's path, then ok.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local dir = assert(arg[1], 'usage: th gnuplot/render.lua DIR')
assert(gnuplot.available(), 'gnuplot.available()')

local x = torch.linspace(-2 * math.pi, 2 * math.pi, 200)

-- Every argument form of plot, into one PNG, with every decoration.
local png = dir .. '/lines.png'
local fig = gnuplot.pngfigure(png)
assert(type(fig) == 'number', 'pngfigure returns the figure number')
gnuplot.plot(torch.sin(x))                                        -- a vector against 1..n
gnuplot.plot(x, torch.sin(x))                                     -- y against x
gnuplot.plot(x, torch.sin(x), '-')                                -- with a style
gnuplot.plot('Sin', x / math.pi, torch.sin(x), '|')               -- with a legend
gnuplot.plot(torch.cat(x, torch.cos(x), 2))                       -- a two-column matrix
gnuplot.plot({ 'Cos', x, torch.cos(x), '~' }, { 'Sin', x, torch.sin(x), '+' },
             { 'dots', torch.cos(x), '.' }, { 'both', x, torch.sin(x) * 0.5, '+-' })
gnuplot.plot({ { 'nested', x, torch.sin(x), '-' }, { x, torch.cos(x) } })
gnuplot.plot({ torch.cat(torch.cat(x, torch.sin(x) - 0.3, 2), torch.sin(x) + 0.3, 2),
               'with filledcurves fill transparent solid 0.5' },
             { 'it\'s "quoted"', x, torch.sin(x), 'with lines lw 3' })
gnuplot.title('Title with "quotes"')
gnuplot.xlabel('x')
gnuplot.ylabel('y')
gnuplot.zlabel('z')
gnuplot.grid(true)
gnuplot.movelegend('left', 'top')
gnuplot.axis { -7, 7, -1.5, '' }
gnuplot.axis('auto')
gnuplot.axis('equal')
gnuplot.axis('fill')
gnuplot.raw('set xtics 2')
gnuplot.logscale(false)
gnuplot.plotflush()
gnuplot.close(fig)     -- waits for gnuplot: the file is complete
H.check_file(png, H.PNG, 'PNG')

-- The other file kinds, and the other kinds of plot.
local files = {
   { 'eps', gnuplot.epsfigure, '%!PS-Adobe' },
   { 'svg', gnuplot.svgfigure, nil },
   { 'pdf', gnuplot.pdffigure, '%PDF' },
}
for _, f in ipairs(files) do
   local path = dir .. '/sin.' .. f[1]
   gnuplot.closeall()
   f[2](path)
   gnuplot.plot({ 'Sin', x, torch.sin(x), '-' })
   gnuplot.plotflush()
   gnuplot.close()
   if f[3] then
      H.check_file(path, f[3], f[1])
   else
      local s = H.read(path) or ''
      assert(s:find('<svg', 1, true), path .. ' is not an SVG file')
   end
end

local grid = torch.Tensor(40, 40):zero():addr(1, torch.linspace(-1, 1, 40), torch.linspace(-1, 1, 40))
local kinds = {
   hist = function() return gnuplot.hist(torch.randn(2000), 30) end,
   imagesc = function() gnuplot.imagesc(torch.sin(grid * 6 * math.pi), 'color') end,
   imagesc_gray = function() gnuplot.imagesc(torch.sin(grid * 6 * math.pi)) end,
   splot = function() gnuplot.splot(torch.sin(grid * 2 * math.pi)) end,
   splot_xyz = function() gnuplot.splot({ 'surface', grid, grid:t():clone(), torch.cos(grid) }) end,
   scatter3 = function() gnuplot.scatter3(torch.cos(x), torch.sin(x), x) end,
   bar = function() gnuplot.bar(torch.Tensor { 3, 1, 4, 1, 5 }) end,
}
for name, draw in pairs(kinds) do
   local path = dir .. '/' .. name .. '.png'
   gnuplot.pngfigure(path)
   local h = draw()
   gnuplot.plotflush()
   gnuplot.close()
   H.check_file(path, H.PNG, name .. ' PNG')
   if name == 'hist' then
      assert(h.raw:sum() == 2000 and #h == 30 and h.bins == 30, 'hist returns the histogram')
   end
end

-- histc counts as torch.histc does: the top value in the last bin, values outside left out.
local h = gnuplot.histc(torch.Tensor { 0, 0.5, 1, 1, 2, 5 }, 4, 0, 2, true)
assert(torch.type(h) == 'torch.DoubleTensor', 'raw histc is a tensor')
for i, v in ipairs { 1, 1, 2, 1 } do assert(h[i] == v, 'histc bin ' .. i .. ': ' .. h[i]) end
local table_h = gnuplot.histc(torch.Tensor { 1, 2, 2, 3 }, 3)
assert(table_h.max == 2 and table_h[2].nb == 2 and table_h[2].val == 2, 'histc table')
assert(tostring(table_h):find('nsamples', 1, true), 'histc prints')

-- A screen figure works without a display (drawn nowhere), and figprint writes its picture.
local screen = gnuplot.figure()
gnuplot.plot({ 'screen', x, torch.sin(x), '-' })
gnuplot.figprint(dir .. '/printed.png')
gnuplot.figure(screen, { noraise = true })
gnuplot.close(screen)
H.check_file(dir .. '/printed.png', H.PNG, 'figprint PNG')

-- Figures are numbered, closed one by one or all together.
local a, b = gnuplot.figure(), gnuplot.figure()
assert(b == a + 1, 'consecutive figure numbers')
assert(gnuplot.figure(a) == a, 'figure(n) selects n')
gnuplot.closeall()
gnuplot.close()   -- nothing to close: no error
gnuplot.plotflush()   -- says there is no figure

H.errors(function() gnuplot.pngfigure(dir .. '/no/such/dir/x.png') end,
   'gnuplot.pngfigure: cannot save to ' .. dir .. '/no/such/dir/x.png: directory does not exist')
H.errors(function() gnuplot.setterm('no-such-terminal') end,
   'gnuplot.setterm: gnuplot does not seem to have the terminal no-such-terminal')
H.errors(function() gnuplot.setgnuplotexe(dir .. '/nothing') end,
   'gnuplot.setgnuplotexe: ' .. dir .. '/nothing does not exist')
H.errors(function() gnuplot.figprint(dir .. '/x.bmp') end, 'gnuplot.figprint: can print to')

print(png)
print('ok')
