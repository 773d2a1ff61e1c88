-- mdp.Node: the base of all nodes, with MDP's life cycle: train(x, ...) over several calls,
-- stop_training(), one or more training phases (counted from 0), execute(x) (node(x) too),
-- inverse(y), and input_dim / output_dim / dtype taken from the first data when unset.
--
-- A subclass defines _train(x, ...), _stop_training(...), _execute(x, ...), _inverse(y, ...)
-- (and _get_train_seq() for several phases, is_trainable(), is_invertible()), and lists its
-- constructor's argument names in _init_args (MDP's fork builds a fresh node from them).
local mdp = require 'mdp'
local utils = mdp.utils
local errors = require 'mdp.errors'
local raise = errors.raise

local Node = torch.class('mdp.Node', mdp)

Node._init_args = { 'input_dim', 'output_dim', 'dtype' }

-- Identity comparison (the class system would otherwise refuse ==).
function Node.__eq__(a, b) return rawequal(a, b) end

function Node:__init(...)
   local o = utils.options(self:_name(), self._init_args, ...)
   self:_node_init(o.input_dim, o.output_dim, o.dtype)
end

-- The common part of every node's constructor (MDP's Node.__init__).
function Node:_node_init(input_dim, output_dim, dtype)
   self.input_dim, self.output_dim, self.dtype = nil, nil, nil
   self:set_input_dim(input_dim)
   self:set_output_dim(output_dim)
   self:set_dtype(dtype)
   if self:is_trainable() then
      self._train_phase = 0
      self._training = true
   else
      self._train_phase = -1
      self._training = false
   end
   self._train_phase_started = false
end

-- The class name without its package ("PCANode").
function Node:_name()
   return (torch.typename(self) or 'Node'):match('([^.]+)$')
end

local function where(self, fname)
   return self:_name() .. '.' .. fname
end
Node._where = where

---------------------------------------------------------------------------------------------------
-- Dimensions and dtype

function Node:get_input_dim() return self.input_dim end
function Node:get_output_dim() return self.output_dim end
function Node:get_dtype() return self.dtype end

local function check_dim(self, n, what)
   if type(n) ~= 'number' or n < 0 or n % 1 ~= 0 then
      raise('InconsistentDimException', where(self, 'set_' .. what), '%s must be a whole number, got %s',
         what, tostring(n))
   end
end

function Node:set_input_dim(n)
   if n == nil then return end
   check_dim(self, n, 'input_dim')
   if self.input_dim ~= nil and self.input_dim ~= n then
      raise('InconsistentDimException', where(self, 'set_input_dim'),
         'Input dim are set already (%d) (%d given)!', self.input_dim, n)
   end
   self:_set_input_dim(n)
end

function Node:_set_input_dim(n) self.input_dim = n end

function Node:set_output_dim(n)
   if n == nil then return end
   check_dim(self, n, 'output_dim')
   if self.output_dim ~= nil and self.output_dim ~= n then
      raise('InconsistentDimException', where(self, 'set_output_dim'),
         'Output dim are set already (%d) (%d given)!', self.output_dim, n)
   end
   self:_set_output_dim(n)
end

function Node:_set_output_dim(n) self.output_dim = n end

function Node:_get_supported_dtypes() return utils.FLOAT_DTYPES end

function Node:get_supported_dtypes() return self:_get_supported_dtypes() end

function Node:set_dtype(t)
   if t == nil then return end
   local d = utils.dtype(t)
   local supported = self:get_supported_dtypes()
   local ok = false
   for _, s in ipairs(supported) do
      if s == d then ok = true break end
   end
   if self.dtype ~= nil and self.dtype ~= d then
      raise('NodeException', where(self, 'set_dtype'), "dtype is already set to '%s' ('%s' given)!",
         self.dtype, tostring(d or t))
   end
   if not ok then
      raise('NodeException', where(self, 'set_dtype'), "dtype '%s' is not supported. Supported dtypes: %s",
         tostring(d or t), table.concat(supported, ', '))
   end
   self:_set_dtype(d)
end

function Node:_set_dtype(t) self.dtype = t end

function Node:_refcast(x)
   local d = self.dtype
   if d == nil or x:type() == d then return x end
   return x:type(d)
end

---------------------------------------------------------------------------------------------------
-- Capabilities and phases

function Node:is_trainable() return true end
function Node:is_invertible() return true end
function Node:is_training() return self._training end

local default_seq = {
   { function(self, ...) return self:_train(...) end,
     function(self, ...) return self:_stop_training(...) end },
}

-- A list of {train function, stop function}, each called as f(self, ...).
function Node:_get_train_seq() return default_seq end

function Node:get_current_train_phase() return self._train_phase end

function Node:get_remaining_train_phase()
   if not self:is_trainable() then return 0 end
   return #self:_get_train_seq() - self._train_phase
end

function Node:has_multiple_training_phases()
   return #self:_get_train_seq() > 1
end

function Node:_train(x) end
function Node:_stop_training() end
function Node:_execute(x) return x end
function Node:_inverse(y) return y end
function Node:_check_train_args(x, ...) end

---------------------------------------------------------------------------------------------------
-- Checks

function Node:_check_input(x, fname)
   if not torch.isTensor(x) then
      raise('NodeException', where(self, fname or 'execute'), 'x must be a 2-D tensor, got %s',
         torch.typename(x) or type(x))
   end
   if x:nElement() == 0 then
      raise('NodeException', where(self, fname or 'execute'), 'x must have at least one observation (zero given)')
   end
   if x:dim() ~= 2 then
      raise('NodeException', where(self, fname or 'execute'), 'x has rank %d, should be 2', x:dim())
   end
   if self.input_dim == nil then self:set_input_dim(x:size(2)) end
   if self.dtype == nil then self:set_dtype(x:type()) end
   if x:size(2) ~= self.input_dim then
      raise('NodeException', where(self, fname or 'execute'), 'x has dimension %d, should be %d',
         x:size(2), self.input_dim)
   end
end

function Node:_check_output(y, fname)
   fname = fname or 'inverse'
   if not torch.isTensor(y) then
      raise('NodeException', where(self, fname), 'y must be a 2-D tensor, got %s', torch.typename(y) or type(y))
   end
   if y:nElement() == 0 then
      raise('NodeException', where(self, fname), 'y must have at least one observation (zero given)')
   end
   if y:dim() ~= 2 then
      raise('NodeException', where(self, fname), 'y has rank %d, should be 2', y:dim())
   end
   if y:size(2) ~= self.output_dim then
      raise('NodeException', where(self, fname), 'y has dimension %d, should be %d', y:size(2), self.output_dim)
   end
end

---------------------------------------------------------------------------------------------------
-- Training

function Node:train(x, ...)
   if not self:is_trainable() then
      raise('IsNotTrainableException', where(self, 'train'), 'This node is not trainable.')
   end
   if not self._training then
      raise('TrainingFinishedException', where(self, 'train'), 'The training phase has already finished.')
   end
   self:_check_input(x, 'train')
   self:_check_train_args(x, ...)
   self._train_phase_started = true
   local seq = self:_get_train_seq()
   seq[self._train_phase + 1][1](self, self:_refcast(x), ...)
end

function Node:stop_training(...)
   if self._training and not self._train_phase_started then
      raise('TrainingException', where(self, 'stop_training'), 'The node has not been trained.')
   end
   if not self._training then
      raise('TrainingFinishedException', where(self, 'stop_training'), 'The training phase has already finished.')
   end
   local seq = self:_get_train_seq()
   seq[self._train_phase + 1][2](self, ...)
   self._train_phase = self._train_phase + 1
   self._train_phase_started = false
   if #seq - self._train_phase <= 0 then
      self._training = false
   end
end

function Node:_if_training_stop_training(fname)
   if self._training then
      self:stop_training()
      if self:get_remaining_train_phase() > 0 then
         raise('TrainingException', where(self, fname or 'execute'), 'The training phases are not completed yet.')
      end
   end
end

---------------------------------------------------------------------------------------------------
-- Execution

function Node:_pre_execution_checks(x)
   -- A node whose training has not started trains itself on x (all of its phases).
   if self._train_phase == 0 and not self._train_phase_started then
      while true do
         self:train(x)
         if self:get_remaining_train_phase() > 1 then
            self:stop_training()
         else
            break
         end
      end
   end
   self:_if_training_stop_training('execute')
   self:_check_input(x, 'execute')
   if self.output_dim == nil then self:set_output_dim(self.input_dim) end
end

function Node:execute(x, ...)
   self:_pre_execution_checks(x)
   return self:_execute(self:_refcast(x), ...)
end

function Node:__call__(x, ...)
   return self:execute(x, ...)
end

function Node:_pre_inversion_checks(y)
   if not self:is_invertible() then
      raise('IsNotInvertibleException', where(self, 'inverse'), 'This node is not invertible.')
   end
   self:_if_training_stop_training('inverse')
   if self.output_dim == nil then
      if self.input_dim == nil then
         raise('NodeException', where(self, 'inverse'), 'Number of input dimensions undefined. Inversion not possible.')
      end
      self:set_output_dim(self.input_dim)
   end
   self:_check_output(y, 'inverse')
end

function Node:inverse(y, ...)
   self:_pre_inversion_checks(y)
   return self:_inverse(self:_refcast(y), ...)
end

---------------------------------------------------------------------------------------------------
-- Utilities

-- A deep copy.
function Node:copy()
   return utils.deepcopy(self)
end

-- torch.save to filename; without one, the serialized string.
function Node:save(filename)
   if filename == nil then return torch.serialize(self) end
   torch.save(filename, self)
end

function Node:__tostring__()
   local parts = {}
   if self.input_dim then parts[#parts + 1] = 'input_dim=' .. self.input_dim end
   if self.output_dim then parts[#parts + 1] = 'output_dim=' .. self.output_dim end
   if self.dtype then parts[#parts + 1] = "dtype='" .. self.dtype .. "'" end
   return self:_name() .. '(' .. table.concat(parts, ', ') .. ')'
end

-- node + node: a Flow of the two (the same objects); node + flow: a copy of the flow with a copy
-- of the node in front (MDP copies both).
function Node.__add__(a, b)
   if torch.isTypeOf(b, 'mdp.Flow') then
      local f = b:copy()
      f:insert(1, a:copy())
      return f
   end
   if not torch.isTypeOf(b, 'mdp.Node') then
      raise('TypeError', where(a, '__add'), 'can only add a node or a flow to a node, got %s',
         torch.typename(b) or type(b))
   end
   return mdp.Flow { a, b }
end

-- Nodes that keep their dimension (output_dim = input_dim).
function mdp.preserve_dim(cls)
   function cls:_set_input_dim(n)
      if self.output_dim ~= nil and self.output_dim ~= n then
         raise('InconsistentDimException', where(self, 'set_input_dim'), 'input_dim must be equal to output_dim for this node.')
      end
      self.input_dim, self.output_dim = n, n
   end
   function cls:_set_output_dim(n)
      if self.input_dim ~= nil and self.input_dim ~= n then
         raise('InconsistentDimException', where(self, 'set_output_dim'), 'output_dim must be equal to input_dim for this node.')
      end
      self.input_dim, self.output_dim = n, n
   end
end

return Node
