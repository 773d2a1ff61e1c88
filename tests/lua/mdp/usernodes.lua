-- User nodes for tests/test_parallel.lua, loadable in scheduler workers with dofile.
-- testmdp.CountNode: counts rows, no fork (trained on the master by ParallelFlow).
-- testmdp.SumNode: sums columns, with _fork and _join on its class (trained in the workers).
local mdp = require 'mdp'
if torch.getmetatable('testmdp.CountNode') then return rawget(_G, 'testmdp') end
testmdp = rawget(_G, 'testmdp') or {}
local M = testmdp

local CountNode = torch.class('testmdp.CountNode', 'mdp.Node', M)
mdp.preserve_dim(CountNode)
function CountNode:__init(...)
   mdp.Node.__init(self, ...)
   self.count = 0
end
function CountNode:_train(x) self.count = self.count + x:size(1) end

local SumNode = torch.class('testmdp.SumNode', 'mdp.Node', M)
mdp.preserve_dim(SumNode)
function SumNode:__init(...)
   mdp.Node.__init(self, ...)
   self.total = nil
   self.where = {}
end
function SumNode:_train(x)
   local s = x:sum(1)
   if self.total then self.total:add(s) else self.total = s end
   self.where[#self.where + 1] = __threadid or (package.loaded.parallel and package.loaded.parallel.id) or 0
end
function SumNode:_fork() return self:_default_fork() end
function SumNode:_join(f)
   if f.total then
      if self.total then self.total:add(f.total) else self.total = f.total end
   end
   for _, w in ipairs(f.where) do self.where[#self.where + 1] = w end
end
function SumNode:_execute(x) return x + 1 end

return M
