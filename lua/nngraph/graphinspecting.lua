-- Looking into gModules: nngraph.setDebug (an error inside a gModule saves a picture of its
-- forward graph with the failing node in red), nngraph.annotateNodes (names nodes after the
-- local variables holding them), nngraph.display.

local unpack = unpack or table.unpack

local function dotProgram()
   return graph._dotProgram and graph._dotProgram()
end

-- fg's dot text, with the node sharing failedNode's data filled red.
local function dotWithFailure(fg, title, failedNode)
   local text = fg:todot(title)
   if not failedNode then
      return text
   end
   for _, node in ipairs(fg.nodes) do
      if node.data == failedNode.data then
         text = text:gsub('}%s*$', '')
         return text .. string.format('n%s[style=filled, fillcolor=red];\n}', node.id)
      end
   end
   return text
end

-- Writes prefix.dot and, with Graphviz installed, prefix.svg.
local function saveDrawing(prefix, text)
   io.stderr:write(string.format('saving %s.svg\n', prefix))
   local f = assert(io.open(prefix .. '.dot', 'w'))
   f:write(text)
   f:close()
   local dot = dotProgram()
   if dot then
      os.execute(string.format("'%s' -Tsvg -o '%s.svg' '%s.dot'", dot, prefix, prefix))
   else
      io.stderr:write(string.format("(Graphviz's dot is not installed: only %s.dot is written)\n",
         prefix))
   end
end

local function reportFailure(gmodule)
   local failed = nn.gModule._evaluating[gmodule]
   local nInputs = gmodule.nInputs or #gmodule.innode.children
   local prefix = gmodule.name or
      string.format('nngraph_%sin_%sout', nInputs, #gmodule.outnode.children)
   if paths.filep(prefix .. '.svg') then
      prefix = prefix .. '_' .. paths.basename(os.tmpname())
   end
   saveDrawing(prefix, dotWithFailure(gmodule.fg, prefix, failed))
end

-- The methods setDebug wraps, as they are without it.
local plain = {
   runForwardFunction = nn.gModule.runForwardFunction,
   updateGradInput = nn.gModule.updateGradInput,
   accGradParameters = nn.gModule.accGradParameters,
}

-- With debugging on, an error in a gModule's forward or backward pass saves
-- <gmodule.name or nngraph_<n>in_<m>out>.svg (and .dot) showing the forward graph with the node
-- that failed in red, then is raised again with a stack traceback.
function nngraph.setDebug(enable)
   for name, method in pairs(plain) do
      if not enable then
         nn.gModule[name] = method
      else
         nn.gModule[name] = function(self, ...)
            local args = { n = select('#', ...), ... }
            local function traced(message)
               if type(message) == 'string' and
                  not message:find('stack traceback:\n', 1, true) then
                  message = debug.traceback(message, 2)
               end
               return message
            end
            local results = { xpcall(function()
               return method(self, unpack(args, 1, args.n))
            end, traced) }
            if not results[1] then
               reportFailure(self)
               error(results[2], 0)
            end
            return unpack(results, 2, table.maxn(results))
         end
      end
   end
end

-- Names (annotations.name) the nodes held by local variables of the function `stackLevel`
-- levels up (1, the default: the caller), after the variables; explicit names are kept.
function nngraph.annotateNodes(stackLevel)
   local level = (stackLevel or 1) + 1
   local i = 1
   while true do
      local name, value = debug.getlocal(level, i)
      if name == nil then break end
      if torch.typename(value) == 'nngraph.Node' and not value.data.annotations.name then
         value:annotate({ name = name })
      end
      i = i + 1
   end
end

-- Renders the gModule's forward graph to a temporary svg and opens it (xdg-open / open).
function nngraph.display(gmodule)
   local prefix = os.tmpname()
   graph.dot(gmodule.fg, prefix, prefix)
   local opener = jit and jit.os == 'OSX' and 'open -a Safari' or 'xdg-open'
   os.execute(opener .. " '" .. prefix .. ".svg'")
end
