-- mdp.CheckpointFlow: a Flow whose train(data_iterables, checkpoints) calls checkpoints[i](node)
-- after node i's training (its last phase still open); a plain table returned by a checkpoint
-- is merged into the flow. checkpoints may be a single function for every node.
-- mdp.CheckpointFunction is a base for callable checkpoint objects; mdp.CheckpointSaveFunction
-- {filename =, stop_training = false} saves the node with torch.save (closing its training first
-- when asked).
local mdp = require 'mdp'
local utils = mdp.utils
local raise = require('mdp.errors').raise

local CheckpointFlow = torch.class('mdp.CheckpointFlow', 'mdp.Flow', mdp)

local function callable(f)
   if type(f) == 'function' then return true end
   local mt = getmetatable(f)
   return type(f) == 'table' and ((mt and mt.__call) or f.__call__) ~= nil
end

function CheckpointFlow:_train_check_checkpoints(checkpoints)
   local n = rawlen(self)
   if callable(checkpoints) then
      local list = {}
      for i = 1, n do list[i] = checkpoints end
      return list
   end
   if type(checkpoints) ~= 'table' then
      raise('FlowException', 'CheckpointFlow.train', 'checkpoints must be a function or a list of functions')
   end
   local count = math.max(rawlen(checkpoints), table.maxn(checkpoints))
   if count > n then
      raise('FlowException', 'CheckpointFlow.train', '%d checkpoints specified, %d needed', count, n)
   end
   return checkpoints
end

function CheckpointFlow:train(data_iterables, checkpoints)
   local iterables = self:_train_check_iterables(data_iterables)
   checkpoints = self:_train_check_checkpoints(checkpoints)
   for i = 1, rawlen(self) do
      local node = self[i]
      if self.verbose then print(('Training node #%d (%s)'):format(i, node:_name())) end
      self:_train_node(iterables[i], i)
      local cp = checkpoints[i]
      if cp then
         local dic = cp(node)
         if utils.is_plain_table(dic) then
            for k, v in pairs(dic) do self[k] = v end
         end
      end
   end
   self:_close_last_node()
end

local CheckpointFunction = torch.class('mdp.CheckpointFunction', mdp)

function CheckpointFunction.__eq__(a, b) return rawequal(a, b) end

function CheckpointFunction:__init() end

function CheckpointFunction:__call__(node) end

local CheckpointSaveFunction = torch.class('mdp.CheckpointSaveFunction', 'mdp.CheckpointFunction', mdp)

-- CheckpointSaveFunction(filename [, stop_training]) or {filename =, stop_training =}.
function CheckpointSaveFunction:__init(...)
   local o = utils.options('CheckpointSaveFunction', { 'filename', 'stop_training', 'binary', 'protocol' }, ...)
   if type(o.filename) ~= 'string' then
      raise('TypeError', 'CheckpointSaveFunction', 'a filename expected')
   end
   self.filename = o.filename
   self.stop_training = (o.stop_training and o.stop_training ~= 0) and true or false
end

function CheckpointSaveFunction:__call__(node)
   if self.stop_training then node:stop_training() end
   torch.save(self.filename, node)
end

return CheckpointFlow
