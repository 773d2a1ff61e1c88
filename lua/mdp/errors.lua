-- MDP's exceptions as Lua error strings: "Where: ExceptionName: message", where `Where` names the
-- node class and the function ("PCANode.train"). The names follow MDP's hierarchy, which
-- is_exception walks: is_exception(err, 'TrainingException') is true for a
-- TrainingFinishedException too, and for a FlowExceptionCR whose parent exception is one.
local M = {}

-- name -> parent name
local parents = {
   MDPException = false,
   NodeException = 'MDPException',
   InconsistentDimException = 'NodeException',
   IsNotInvertibleException = 'NodeException',
   TrainingException = 'NodeException',
   TrainingFinishedException = 'TrainingException',
   IsNotTrainableException = 'TrainingException',
   NotForkableParallelException = 'NodeException',
   JoinParallelException = 'NodeException',
   FlowException = 'MDPException',
   FlowExceptionCR = 'FlowException',
   ParallelFlowException = 'FlowException',
   NoTaskException = 'ParallelFlowException',
   SymeigException = 'MDPException',
   CheckpointException = 'MDPException',
   TypeError = false,
   ValueError = false,
}
M.parents = parents

-- Raises the exception `name` from `where` (a string such as "PCANode.train").
function M.raise(name, where, msg, ...)
   if select('#', ...) > 0 then msg = msg:format(...) end
   assert(parents[name] ~= nil, 'unknown exception ' .. tostring(name))
   error((where and (where .. ': ') or '') .. name .. ': ' .. msg, 0)
end

local function descends(name, ancestor)
   while name do
      if name == ancestor then return true end
      name = parents[name]
   end
   return false
end

-- The exception names an error message carries, outermost first.
function M.exceptions_of(err)
   local found = {}
   if type(err) ~= 'string' then return found end
   for name in err:gmatch('([%a_]+): ') do
      if parents[name] ~= nil then found[#found + 1] = name end
   end
   return found
end

M.public = {}

-- True when err (an error caught by pcall) is an MDP exception `name` or a subclass of it.
function M.public.is_exception(err, name)
   if parents[name] == nil then
      error('mdp.is_exception: unknown exception name ' .. tostring(name), 2)
   end
   for _, n in ipairs(M.exceptions_of(err)) do
      if descends(n, name) then return true end
   end
   return false
end

-- The outermost exception name of an error message (nil if it is none of MDP's).
function M.public.exception_name(err)
   return M.exceptions_of(err)[1]
end

-- A FlowExceptionCR's parent exception: the message of the error raised inside the node.
function M.public.parent_exception(err)
   if type(err) ~= 'string' then return nil end
   return err:match('FlowExceptionCR: .-%[parent exception%] (.*)$')
end

M.public.exceptions = parents

return M
