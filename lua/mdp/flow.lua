-- mdp.Flow: a sequence of nodes, held in the flow's own list part (flow[1], #flow, ipairs(flow)).
--
--    local flow = mdp.Flow{pca, sfa}              -- or mdp.Flow({pca, sfa}, crash_recovery, verbose)
--    flow:train({chunks, chunks})                 -- one data iterable per node (false for none)
--    local y = flow:execute(chunks)               -- a tensor or an iterable of chunks
--
-- A data iterable is a Lua list of chunks, a single 2-D tensor (one chunk), or an iterator
-- function returning chunks until nil (it can serve one training phase only, as a Python
-- generator). A chunk is a 2-D tensor, or a list {x, arg1, ...} whose extra values go to the
-- trained node's train (FDANode's labels).
local mdp = require 'mdp'
local utils = mdp.utils
local errors = require 'mdp.errors'
local raise = errors.raise

local Flow = torch.class('mdp.Flow', mdp)

function Flow.__eq__(a, b) return rawequal(a, b) end

local function is_node(x)
   return torch.isTypeOf(x, 'mdp.Node')
end

local function fname_of(self, f)
   return (torch.typename(self) or 'Flow'):match('([^.]+)$') .. '.' .. f
end
Flow._where = fname_of

-- Flow(nodes [, crash_recovery [, verbose]]) or Flow{node1, node2, crash_recovery =, verbose =};
-- nodes may also be another flow (its nodes are shared).
function Flow:__init(nodes, crash_recovery, verbose)
   if type(nodes) ~= 'table' then
      raise('TypeError', fname_of(self, '__init'), 'a list of nodes expected, got %s', type(nodes))
   end
   if not torch.isTypeOf(nodes, 'mdp.Flow') and torch.typename(nodes) == nil then
      for k in pairs(nodes) do
         if type(k) == 'string' and k ~= 'crash_recovery' and k ~= 'verbose' then
            raise('TypeError', fname_of(self, '__init'), "unexpected argument '%s'", k)
         end
      end
      if crash_recovery == nil then crash_recovery = nodes.crash_recovery end
      if verbose == nil then verbose = nodes.verbose end
   elseif is_node(nodes) then
      raise('TypeError', fname_of(self, '__init'), 'a list of nodes expected, got a single node')
   end
   local list = {}
   for i = 1, rawlen(nodes) do list[i] = nodes[i] end
   self:_check_nodes(list)
   for i, n in ipairs(list) do self[i] = n end
   self.crash_recovery = crash_recovery or false
   self.verbose = verbose and true or false
end

function Flow:__len__()
   return rawlen(self)
end

function Flow:_check_nodes(list)
   for i = 1, #list do
      if not is_node(list[i]) then
         raise('TypeError', fname_of(self, '__init'), 'flow must contain mdp.Node instances, got %s at position %d',
            torch.typename(list[i]) or type(list[i]), i)
      end
   end
   for i = 1, #list - 1 do
      local out, inp = list[i].output_dim, list[i + 1].input_dim
      if out ~= nil and inp ~= nil and out ~= inp then
         raise('ValueError', fname_of(self, '__init'),
            'dimensions mismatch: node #%d (%s) has output_dim %d, node #%d (%s) has input_dim %d',
            i, list[i]:_name(), out, i + 1, list[i + 1]:_name(), inp)
      end
   end
end

-- The nodes as a plain list (shared objects).
function Flow:nodes()
   local list = {}
   for i = 1, rawlen(self) do list[i] = self[i] end
   return list
end

---------------------------------------------------------------------------------------------------
-- Data iterables

-- A one-shot iterator over an iterable's chunks. `used` remembers the iterator functions that
-- ran dry, which then give nothing (a generator cannot be repeated).
local function chunks_of(iterable, used)
   if torch.isTensor(iterable) then
      local done = false
      return function()
         if done then return nil end
         done = true
         return iterable
      end
   elseif type(iterable) == 'function' then
      if used and used[iterable] then return function() return nil end end
      return function()
         local ok, c = pcall(iterable)
         if not ok then
            if tostring(c):find('dead coroutine', 1, true) then c = nil else error(c, 0) end
         end
         if c == nil and used then used[iterable] = true end
         return c
      end
   elseif type(iterable) == 'table' and torch.typename(iterable) == nil then
      local i, n = 0, rawlen(iterable)
      return function()
         i = i + 1
         if i <= n then return iterable[i] end
      end
   end
   return nil
end
Flow._chunks_of = chunks_of

-- x and the extra train arguments of a chunk.
local function split_chunk(chunk)
   if torch.isTensor(chunk) then return chunk, nil, 0 end
   if type(chunk) == 'table' and torch.typename(chunk) == nil then
      local n = table.maxn(chunk)
      return chunk[1], chunk, n - 1
   end
   return chunk, nil, 0
end
Flow._split_chunk = split_chunk

function Flow:_train_check_iterables(data_iterables)
   local n = rawlen(self)
   if torch.isTensor(data_iterables) then
      local list = {}
      for i = 1, n do list[i] = { data_iterables } end
      return list, n
   end
   if type(data_iterables) ~= 'table' or torch.typename(data_iterables) ~= nil then
      raise('FlowException', fname_of(self, 'train'),
         "'data_iterables' must be either a list of iterables or a tensor, and not %s",
         torch.typename(data_iterables) or type(data_iterables))
   end
   local count = math.max(rawlen(data_iterables), table.maxn(data_iterables), data_iterables.n or 0)
   for i = 1, count do
      local it = data_iterables[i]
      if it and not (torch.isTensor(it) or type(it) == 'function'
            or (type(it) == 'table' and torch.typename(it) == nil)) then
         raise('FlowException', fname_of(self, 'train'),
            'Element number %d in the data_iterables list is not an iterable.', i)
      end
   end
   if count ~= n then
      raise('FlowException', fname_of(self, 'train'), '%d data iterables specified, %d needed', count, n)
   end
   return data_iterables, count
end

---------------------------------------------------------------------------------------------------
-- Errors inside nodes: a FlowExceptionCR naming the node and carrying the node's error; with
-- crash_recovery (true or a filename) the flow is saved first.

function Flow:_propagate_exception(err, i, fname)
   err = tostring(err)
   if err:find('FlowExceptionCR: ', 1, true) then error(err, 0) end
   local node = self[i]
   local msg = ('! Exception in node #%d (%s)'):format(i, node and tostring(node) or '?')
   local rec = self.crash_recovery
   if rec then
      local name = type(rec) == 'string' and rec or (os.tmpname() .. '.t7')
      local ok, serr = pcall(torch.save, name, self)
      if ok then
         msg = msg .. ('; a crash dump is available on: "%s"'):format(name)
         self.crash_dump_filename = name
      else
         msg = msg .. '; the crash dump failed: ' .. tostring(serr)
      end
   end
   raise('FlowExceptionCR', fname_of(self, fname), '%s [parent exception] %s', msg, err)
end

---------------------------------------------------------------------------------------------------
-- Training

function Flow:_required_train_args(node)
   return node._train_args_required or {}
end

function Flow:_stop_training_hook() end

function Flow:_train_node(data_iterable, i)
   local node = self[i]
   if data_iterable and not node:is_trainable() then return end
   if not data_iterable and node:is_training() then
      raise('FlowException', fname_of(self, 'train'),
         'Node #%d (%s) is training but instead of an iterable received None (false).', i, node:_name())
   end
   if not data_iterable then return end
   local ok, err = pcall(function()
      local required = #self:_required_train_args(node)
      local used = {}
      while true do
         local next_chunk = chunks_of(data_iterable, used)
         local empty = true
         for chunk in next_chunk do
            empty = false
            local x, args, nargs = split_chunk(chunk)
            if required > 0 and nargs ~= required then
               raise('FlowException', fname_of(self, 'train'),
                  'Wrong number of arguments provided by the iterable for node #%d (%d needed, %d given). '
                  .. 'List of required argument keys: %s', i, required, nargs,
                  table.concat(self:_required_train_args(node), ', '))
            end
            if i > 1 then x = self:_execute_seq(x, i - 1) end
            if nargs > 0 then
               node:train(x, unpack(args, 2, nargs + 1))
            else
               node:train(x)
            end
         end
         if empty then
            if node:get_current_train_phase() >= 1 then
               raise('FlowException', fname_of(self, 'train'),
                  'The training data iteration for node no. %d could not be repeated for the second '
                  .. 'training phase, you probably provided an iterator instead of an iterable.', i)
            end
            raise('FlowException', fname_of(self, 'train'), 'The training data iterator for node no. %d is empty.', i)
         end
         self:_stop_training_hook()
         if node:get_remaining_train_phase() > 1 then
            node:stop_training()
         else
            break
         end
      end
   end)
   if not ok then
      if mdp.is_exception(err, 'TrainingFinishedException') and not tostring(err):find('FlowExceptionCR', 1, true) then
         io.stderr:write(('mdp warning: node #%d training phase already finished; continuing anyway.\n'):format(i))
         return
      end
      self:_propagate_exception(err, i, 'train')
   end
end

function Flow:_close_last_node()
   local n = rawlen(self)
   if n == 0 then return end
   local ok, err = pcall(self[n].stop_training, self[n])
   if not ok and not mdp.is_exception(err, 'TrainingFinishedException') then
      self:_propagate_exception(err, n, 'train')
   end
end

-- Trains the nodes one after the other; the last phase of each node is left open until the node
-- is next executed, and the last node is closed at the end (as MDP's).
function Flow:train(data_iterables)
   local iterables = self:_train_check_iterables(data_iterables)
   for i = 1, rawlen(self) do
      if self.verbose then print(('Training node #%d (%s)'):format(i, self[i]:_name())) end
      self:_train_node(iterables[i], i)
   end
   self:_close_last_node()
end

---------------------------------------------------------------------------------------------------
-- Execution

function Flow:_execute_seq(x, nodenr, ...)
   local n = nodenr or rawlen(self)
   for i = 1, n do
      local ok, y = pcall(self[i].execute, self[i], x, ...)
      if not ok then self:_propagate_exception(y, i, 'execute') end
      x = y
   end
   return x
end

function Flow:_inverse_seq(y)
   for i = rawlen(self), 1, -1 do
      local ok, x = pcall(self[i].inverse, self[i], y)
      if not ok then self:_propagate_exception(x, i, 'inverse') end
      y = x
   end
   return y
end

-- Runs a tensor or an iterable of chunks through the nodes 1 .. nodenr (all by default); the
-- results of the chunks are concatenated along the rows.
function Flow:execute(iterable, nodenr)
   if torch.isTensor(iterable) then return self:_execute_seq(iterable, nodenr) end
   local next_chunk = chunks_of(iterable)
   if next_chunk == nil then
      raise('FlowException', fname_of(self, 'execute'), 'a tensor or an iterable of tensors expected, got %s',
         torch.typename(iterable) or type(iterable))
   end
   local res = {}
   for x in next_chunk do res[#res + 1] = self:_execute_seq(x, nodenr) end
   if #res == 0 then raise('FlowException', fname_of(self, 'execute'), 'The execute data iterator is empty.') end
   return utils.cat_rows(res)
end

function Flow:__call__(iterable, nodenr)
   return self:execute(iterable, nodenr)
end

-- Runs the nodes' inverse in reverse order.
function Flow:inverse(iterable)
   if torch.isTensor(iterable) then return self:_inverse_seq(iterable) end
   local next_chunk = chunks_of(iterable)
   if next_chunk == nil then
      raise('FlowException', fname_of(self, 'inverse'), 'a tensor or an iterable of tensors expected')
   end
   local res = {}
   for y in next_chunk do res[#res + 1] = self:_inverse_seq(y) end
   if #res == 0 then raise('FlowException', fname_of(self, 'inverse'), 'The inverse data iterator is empty.') end
   return utils.cat_rows(res)
end

---------------------------------------------------------------------------------------------------
-- Container

local function index_of(self, i, fname, allow_end)
   local n = rawlen(self)
   if type(i) ~= 'number' or i % 1 ~= 0 then
      raise('TypeError', fname_of(self, fname), 'an integer index expected, got %s', tostring(i))
   end
   if i < 0 then i = n + 1 + i end
   local hi = allow_end and n + 1 or n
   if i < 1 or i > hi then
      raise('ValueError', fname_of(self, fname), 'index %d out of range (the flow has %d nodes)', i, n)
   end
   return i
end

-- A new flow of the same class over `list` (shared nodes), with this flow's settings.
function Flow:_new_like(list)
   local f = getmetatable(self).new(list)
   f.crash_recovery, f.verbose = self.crash_recovery, self.verbose
   return f
end

function Flow:_set_list(list)
   self:_check_nodes(list)
   for i = rawlen(self), 1, -1 do self[i] = nil end
   for i, n in ipairs(list) do self[i] = n end
end

-- flow:get(i): the node at i (negative counts from the end).
function Flow:get(i)
   return self[index_of(self, i, 'get')]
end

-- flow:slice(i, j): a flow of the same class holding nodes i .. j (inclusive; negative counts
-- from the end; j defaults to the last), sharing them.
function Flow:slice(i, j)
   local n = rawlen(self)
   i = i or 1
   j = j or n
   if i < 0 then i = n + 1 + i end
   if j < 0 then j = n + 1 + j end
   local list = {}
   for k = math.max(1, i), math.min(n, j) do list[#list + 1] = self[k] end
   return self:_new_like(list)
end

function Flow:set(i, node)
   i = index_of(self, i, 'set')
   local list = self:nodes()
   list[i] = node
   self:_set_list(list)
end

function Flow:remove(i)
   i = index_of(self, i, 'remove')
   local list = self:nodes()
   table.remove(list, i)
   self:_set_list(list)
end

function Flow:insert(i, node)
   i = index_of(self, i, 'insert', true)
   local list = self:nodes()
   table.insert(list, i, node)
   self:_set_list(list)
end

function Flow:append(node)
   local list = self:nodes()
   list[#list + 1] = node
   self:_set_list(list)
end

function Flow:extend(x)
   local list = self:nodes()
   if is_node(x) then
      raise('TypeError', fname_of(self, 'extend'), 'a flow or a list of nodes expected, got a node')
   end
   for i = 1, rawlen(x) do list[#list + 1] = x[i] end
   self:_set_list(list)
end

-- Removes and returns the node at i (the last by default).
function Flow:pop(i)
   i = index_of(self, i or -1, 'pop')
   local node = self[i]
   self:remove(i)
   return node
end

function Flow:contains(node)
   for i = 1, rawlen(self) do
      if self[i] == node then return true end
   end
   return false
end

function Flow:len() return rawlen(self) end

-- flow + node, flow + flow: a new flow of this class sharing the nodes.
function Flow.__add__(a, b)
   local list = a:nodes()
   if is_node(b) then
      list[#list + 1] = b
   elseif torch.isTypeOf(b, 'mdp.Flow') then
      for i = 1, rawlen(b) do list[#list + 1] = b[i] end
   else
      raise('TypeError', fname_of(a, '__add'), 'a node or a flow expected, got %s', torch.typename(b) or type(b))
   end
   return a:_new_like(list)
end

-- In place (Python's +=): a node or a flow.
function Flow:iadd(b)
   if is_node(b) then self:append(b) else self:extend(b) end
   return self
end

function Flow:copy()
   return utils.deepcopy(self)
end

function Flow:save(filename)
   if filename == nil then return torch.serialize(self) end
   torch.save(filename, self)
end

function Flow:set_crash_recovery(state)
   if state == nil then state = true end
   self.crash_recovery = state
end

function Flow:__tostring__()
   local parts = {}
   for i = 1, rawlen(self) do parts[i] = tostring(self[i]) end
   return (torch.typename(self) or 'Flow'):match('([^.]+)$') .. '([' .. table.concat(parts, ', ') .. '])'
end

return Flow
