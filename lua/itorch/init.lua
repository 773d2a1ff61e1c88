-- itorch: rich output in a Jupyter notebook, as iTorch had it, inside th --jupyter-kernel (where
-- `itorch` is a global). Outside the kernel each function raises an error saying so.
--
--    itorch.image(img)          a tensor (HxW, 1xHxW, 3xHxW, or a batch), a table of them (laid
--                               out as image.toDisplayTensor does) or an image file, as a PNG
--    itorch.html(s[, id])       HTML; with an id, replaces the output shown under that id
--    itorch.display(data[, metadata[, id]])   any mime bundle
--
-- image.display shows inline too, and gnuplot's figures (with no terminal chosen by
-- gnuplot.setterm) are drawn as PNGs shown at the end of the cell.
local itorch = {}

local function kernel(fname)
   local k = package.loaded['itorch.kernel']
   if not k then
      error('itorch.' .. fname .. ': only inside the Jupyter kernel (th --jupyter-kernel)', 3)
   end
   return k
end

-- Shows a display tensor (what image.toDisplayTensor gives) as an inline PNG, at `zoom`.
function itorch._showTensor(t, zoom)
   local k = kernel('image')
   local image = require 'image'
   local png = image.compressPNG(t)
   local bytes = png:storage():string():sub(1, png:nElement())
   local h, w = t:size(t:dim() - 1), t:size(t:dim())
   zoom = zoom or 1
   k.display({ ['image/png'] = k.base64(bytes), ['text/plain'] = 'Console does not support images' },
      { ['image/png'] = { width = math.floor(w * zoom + 0.5), height = math.floor(h * zoom + 0.5) } })
end

function itorch.image(img, opts)
   kernel('image')
   local image = require 'image'
   if type(img) == 'string' then
      img = image.load(img)
   end
   if not (torch.isTensor(img) or type(img) == 'table') then
      error('itorch.image: expected a tensor, a table of tensors or a file name, got ' .. torch.type(img), 2)
   end
   local o = {}
   for key, v in pairs(opts or {}) do o[key] = v end
   o.padding = o.padding or 2
   o.input = img
   itorch._showTensor(image.toDisplayTensor(o), o.zoom)
end

local html_ids = 0

function itorch.html(s, window_id)
   local k = kernel('html')
   if type(s) ~= 'string' then error('itorch.html: expected a string, got ' .. type(s), 2) end
   local update = window_id ~= nil
   if not window_id then
      html_ids = html_ids + 1
      window_id = 'itorch-html-' .. html_ids
   end
   k.display({ ['text/html'] = s, ['text/plain'] = s }, {}, window_id, update)
   return window_id
end

function itorch.display(data, metadata, id)
   local k = kernel('display')
   k.display(data, metadata or {}, id)
end

-- Shows a PNG file inline.
function itorch._showPNGFile(path)
   local k = kernel('image')
   local f = io.open(path, 'rb')
   if not f then return end
   local bytes = f:read('*a')
   f:close()
   if #bytes > 0 then
      k.display({ ['image/png'] = k.base64(bytes), ['text/plain'] = 'Console does not support images' }, {})
   end
end

-- What the kernel does after each cell: gnuplot's figures drawn in it are shown inline.
function itorch._endCell()
   local gnuplot = package.loaded.gnuplot
   if type(gnuplot) == 'table' and gnuplot._showInline then
      gnuplot._showInline(itorch._showPNGFile)
   end
end

-- A `$ cmd` cell: the command's output (stdout and stderr) as the cell's stream, and in _LAST,
-- as the REPL keeps it. The REPL's short forms of ls stand.
local shorthands = { ls = 'ls -F', ll = 'ls -lhF', la = 'ls -aF', lla = 'ls -lahF' }
function itorch._shell(cmd)
   cmd = shorthands[cmd] or cmd
   local p = io.popen('{ ' .. cmd .. '\n} 2>&1 </dev/null', 'r')
   if not p then error('cannot run /bin/sh', 0) end
   local out = p:read('*a') or ''
   p:close()
   io.write(out)
   rawset(_G, '_LAST', out)
end

-- True inside the kernel.
function itorch.active()
   return package.loaded['itorch.kernel'] ~= nil
end

return itorch
