-- Graphviz output for graph.Graph through Graphviz's `dot` program (Debian: apt-get install
-- graphviz). Without it, the dot text is still available (g:todot(), and graph.dot writes the .dot
-- file) and the functions that need a layout raise an error saying so.

require 'torch'

graph = graph or {}

local function shellQuote(s)
   return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

local function succeeded(...)
   local r = ...
   return r == 0 or r == true
end

-- The path of the `dot` program, or nil when it is not installed (looked up once).
local dotProgram
function graph._dotProgram()
   if dotProgram == nil then
      dotProgram = false
      local p = io.popen('command -v dot 2>/dev/null')
      if p then
         local path = p:read('*l')
         p:close()
         if path and path ~= '' then dotProgram = path end
      end
   end
   return dotProgram or nil
end

local function requireDot(what)
   local dot = graph._dotProgram()
   if not dot then
      error(what .. ": Graphviz's `dot` program was not found on the PATH " ..
         '(install graphviz, e.g. apt-get install graphviz)', 3)
   end
   return dot
end

local function writeFile(path, text)
   local f, err = io.open(path, 'w')
   if not f then error('graph: cannot write ' .. path .. ': ' .. tostring(err), 3) end
   f:write(text)
   f:close()
end

local function readFile(path)
   local f = io.open(path, 'r')
   if not f then return nil end
   local text = f:read('*a')
   f:close()
   return text
end

-- Runs dot on the dot text: engine `algorithm`, output format `format`, written to `outPath`.
local function runDot(what, dotText, algorithm, format, outPath)
   local dot = requireDot(what)
   local src = os.tmpname()
   writeFile(src, dotText)
   local errPath = os.tmpname()
   local cmd = string.format('%s -K%s -T%s -o %s %s 2>%s', shellQuote(dot),
      shellQuote(algorithm or 'dot'), shellQuote(format), shellQuote(outPath), shellQuote(src),
      shellQuote(errPath))
   local ok = succeeded(os.execute(cmd))
   local message = readFile(errPath) or ''
   os.remove(src)
   os.remove(errPath)
   if not ok then
      error(string.format('%s: dot failed (-K%s -T%s): %s', what, algorithm or 'dot', format,
         message), 3)
   end
end

-- Renders g to fname; the format is the file name's extension (svg, png, pdf, dot, ...).
function graph.graphvizFile(g, algorithm, fname)
   local format = tostring(fname):match('%.(%w+)$')
   if not format then
      error('graph.graphvizFile: the file name needs an extension naming the format (x.svg, ...)', 2)
   end
   runDot('graph.graphvizFile', g:todot(), algorithm or 'dot', format, fname)
end

-- Lays g out and returns a torch.Tensor(#g.nodes, 2): each node's position (row = node id),
-- scaled to [0, 1] over the drawing's bounding box.
function graph.graphvizLayout(g, algorithm)
   local out = os.tmpname()
   runDot('graph.graphvizLayout', g:todot(), algorithm or 'dot', 'plain', out)
   local text = readFile(out) or ''
   os.remove(out)
   local positions = torch.zeros(#g.nodes, 2)
   local width, height
   for line in text:gmatch('[^\n]+') do
      local w, h = line:match('^graph%s+%S+%s+(%S+)%s+(%S+)')
      if w then
         width, height = tonumber(w), tonumber(h)
      else
         local id, x, y = line:match('^node%s+"?n(%d+)"?%s+(%S+)%s+(%S+)')
         if id then
            id = tonumber(id)
            assert(width and height and id >= 1 and id <= #g.nodes,
               'graph.graphvizLayout: unexpected output from dot')
            positions[id][1] = width > 0 and tonumber(x) / width or 0
            positions[id][2] = height > 0 and tonumber(y) / height or 0
         end
      end
   end
   return positions
end

-- Writes fname.dot and renders fname.svg (titled `title`). The .dot file is dot's own
-- laid-out version of the graph; without Graphviz it is the plain dot text, and an error
-- follows. Without fname, temporary files are used and the svg path is returned.
function graph.dot(g, title, fname)
   local prefix = fname or os.tmpname()
   local text = g:todot(title)
   if not graph._dotProgram() then
      if fname then writeFile(prefix .. '.dot', text) end
      requireDot('graph.dot')
   end
   runDot('graph.dot', text, 'dot', 'svg', prefix .. '.svg')
   runDot('graph.dot', text, 'dot', 'dot', prefix .. '.dot')
   if not fname then
      os.remove(prefix)
      os.remove(prefix .. '.dot')
      return prefix .. '.svg'
   end
end

return graph
