-- nn.Module: the base of every layer. A module computes `output` from `input` (updateOutput),
-- `gradInput` from `gradOutput` (updateGradInput), and accumulates the gradients of its
-- parameters (accGradParameters); forward and backward run those in order.

local Module = torch.class('nn.Module')

function Module:__init()
   self.gradInput = torch.Tensor()
   self.output = torch.Tensor()
   self._type = self.output:type()
end

-- The module's learnable tensors and their gradients, as two lists (nil when it has none).
function Module:parameters()
   if self.weight and self.bias then
      return { self.weight, self.bias }, { self.gradWeight, self.gradBias }
   elseif self.weight then
      return { self.weight }, { self.gradWeight }
   elseif self.bias then
      return { self.bias }, { self.gradBias }
   end
end

function Module:updateOutput(input)
   return self.output
end

function Module:forward(input)
   return self:updateOutput(input)
end

function Module:backward(input, gradOutput, scale)
   scale = scale or 1
   self:updateGradInput(input, gradOutput)
   self:accGradParameters(input, gradOutput, scale)
   return self.gradInput
end

function Module:backwardUpdate(input, gradOutput, lr)
   self:updateGradInput(input, gradOutput)
   self:accUpdateGradParameters(input, gradOutput, lr)
   return self.gradInput
end

function Module:updateGradInput(input, gradOutput)
   return self.gradInput
end

function Module:accGradParameters(input, gradOutput, scale)
end

-- Adds -lr times the gradient straight into the parameters: the gradient tensors are pointed at
-- the parameters for the time of one accGradParameters call.
function Module:accUpdateGradParameters(input, gradOutput, lr)
   local gradWeight, gradBias = self.gradWeight, self.gradBias
   self.gradWeight, self.gradBias = self.weight, self.bias
   self:accGradParameters(input, gradOutput, -lr)
   self.gradWeight, self.gradBias = gradWeight, gradBias
end

function Module:sharedAccUpdateGradParameters(input, gradOutput, lr)
   if self:parameters() then
      self:zeroGradParameters()
      self:accGradParameters(input, gradOutput, 1)
      self:updateParameters(lr)
   end
end

function Module:zeroGradParameters()
   local _, gradParams = self:parameters()
   if gradParams then
      for i = 1, #gradParams do gradParams[i]:zero() end
   end
end

function Module:updateParameters(learningRate)
   local params, gradParams = self:parameters()
   if params then
      for i = 1, #params do params[i]:add(-learningRate, gradParams[i]) end
   end
end

function Module:training()
   self.train = true
end

function Module:evaluate()
   self.train = false
end

-- Makes the named tensor fields of self views of `mlp`'s (clone('weight', 'bias') shares them).
function Module:share(mlp, ...)
   for _, name in ipairs { ... } do
      if self[name] ~= nil then
         self[name]:set(mlp[name])
         self.accUpdateGradParameters = self.sharedAccUpdateGradParameters
         mlp.accUpdateGradParameters = mlp.sharedAccUpdateGradParameters
      end
   end
   return self
end

-- A deep copy (through serialization), sharing the named fields with self.
function Module:clone(...)
   local f = torch.MemoryFile('rw'):binary()
   f:writeObject(self)
   f:seek(1)
   local clone = f:readObject()
   f:close()
   if select('#', ...) > 0 then
      clone:share(self, ...)
   end
   return clone
end

-- Converts every tensor field (and nested modules) to `type`; tensors sharing a storage keep
-- sharing one (`tensorCache` carries that across modules converted together).
function Module:type(type, tensorCache)
   if not type then
      return self._type
   end
   tensorCache = tensorCache or {}
   for key, param in pairs(self) do
      self[key] = nn.utils.recursiveType(param, type, tensorCache)
   end
   self._type = type
   return self
end

function Module:float(...)
   return self:type('torch.FloatTensor', ...)
end

function Module:double(...)
   return self:type('torch.DoubleTensor', ...)
end

function Module:cuda(...)
   return self:type('torch.CudaTensor', ...)
end

function Module:reset()
end

-- Layout of flattened parameters ---------------------------------------------------------------

-- The elements of `storage` that the tensors in `views` reach, as sorted disjoint [first, last]
-- ranges (1-based storage positions) with no unreached element inside: a range moves into the
-- flat storage as one block, so every tensor in it keeps its strides. A tensor whose elements
-- leave holes that no other tensor fills (a column of a matrix) cannot be moved so: an error.
local function reached_ranges(storage, views)
   local ranges = {}
   local strided = false
   for _, t in ipairs(views) do
      if t:nElement() > 0 then
         local first = t:storageOffset()
         local last = first
         for d = 1, t:dim() do
            last = last + (t:size(d) - 1) * t:stride(d)
         end
         ranges[#ranges + 1] = { first, last }
         strided = strided or not t:isContiguous()
      end
   end
   table.sort(ranges, function(a, b) return a[1] < b[1] end)
   local merged = {}
   for _, r in ipairs(ranges) do
      local top = merged[#merged]
      if top and r[1] <= top[2] + 1 then
         top[2] = math.max(top[2], r[2])
      else
         merged[#merged + 1] = { r[1], r[2] }
      end
   end
   if strided then
      -- Mark what each view reaches (expanded dimensions reach the same elements again).
      local reached = torch.ByteTensor(storage:size()):zero()
      for _, t in ipairs(views) do
         if t:nElement() > 0 then
            torch.ByteTensor():set(reached:storage(), t:storageOffset(), t:size(), t:stride()):fill(1)
         end
      end
      for _, r in ipairs(merged) do
         local n = r[2] - r[1] + 1
         if reached:narrow(1, r[1], n):sum() ~= n then
            error('nn.Module.getParameters: a parameter tensor is not compact in its storage (its elements '
               .. 'are spread out with gaps, as a column of a matrix is), so it cannot be moved into one '
               .. 'flat storage; make it contiguous first', 0)
         end
      end
   end
   return merged
end

-- Moves the tensors of `list` into one new contiguous storage and returns a 1-D tensor over it.
-- The layout is Torch7's: storages in the order they first appear, each contributing the elements
-- its tensors reach, in storage order. Tensors that shared a storage share the new one at the same
-- relative places, so shared parameters stay shared. A tensor may be listed more than once (dpnn
-- lists every parameter twice): every new place is worked out from the old ones before any tensor
-- moves, so a tensor already moved is never placed again by its new offset.
function Module.flatten(list)
   if not list or #list == 0 then
      return torch.Tensor()
   end
   local Tensor = list[1].new
   local kind = torch.type(list[1])
   -- Group the distinct tensors by storage, in the order storages first appear; check everything
   -- before anything moves, so that a refused list leaves the tensors as they were.
   local order, by_storage, seen, unplaced = {}, {}, {}, {}
   for i, t in ipairs(list) do
      if torch.type(t) ~= kind then
         error(string.format('nn.Module.flatten: parameter %d is a %s, but parameter 1 is a %s '
            .. '(the tensors of one flat storage must be of one type)', i, torch.type(t), kind), 2)
      end
      if not seen[t] then
         seen[t] = true
         local storage = t:storage()
         if storage and t:nElement() > 0 then
            local key = torch.pointer(storage)
            if not by_storage[key] then
               by_storage[key] = { storage = storage, views = {} }
               order[#order + 1] = key
            end
            table.insert(by_storage[key].views, t)
         else
            unplaced[#unplaced + 1] = t
         end
      end
   end
   -- Where each reached range of each storage goes in the flat storage.
   local total = 0
   for _, key in ipairs(order) do
      local group = by_storage[key]
      group.ranges = reached_ranges(group.storage, group.views)
      for _, r in ipairs(group.ranges) do
         r.at = total + 1
         total = total + (r[2] - r[1] + 1)
      end
   end
   local flat = Tensor(total)
   local flat_storage = flat:storage()
   local moves = {}
   for _, key in ipairs(order) do
      local group = by_storage[key]
      local whole = Tensor():set(group.storage, 1, group.storage:size())
      for _, r in ipairs(group.ranges) do
         local n = r[2] - r[1] + 1
         flat:narrow(1, r.at, n):copy(whole:narrow(1, r[1], n))
      end
      for _, t in ipairs(group.views) do
         local offset = t:storageOffset()
         for _, r in ipairs(group.ranges) do
            if offset >= r[1] and offset <= r[2] then
               moves[#moves + 1] = { t, r.at + offset - r[1] }
               break
            end
         end
      end
   end
   for _, move in ipairs(moves) do
      local t = move[1]
      t:set(flat_storage, move[2], t:size(), t:stride())
   end
   -- Empty tensors reach nothing; they keep their shape, over the flat storage.
   for _, t in ipairs(unplaced) do
      t:set(flat_storage, 1, t:size(), t:stride())
   end
   return flat
end

-- All parameters and all gradients, each moved into one storage (the module's tensors become
-- views of it), returned as two 1-D tensors: what optimisers work on.
function Module:getParameters()
   local parameters, gradParameters = self:parameters()
   local flatParameters = Module.flatten(parameters)
   local flatGradParameters = Module.flatten(gradParameters)
   assert(flatParameters:nElement() == flatGradParameters:nElement(),
      'nn.Module.getParameters: the parameters and their gradients are not laid out alike '
         .. '(some parameter and gradient tensors share storage differently)')
   return flatParameters, flatGradParameters
end

-- Module walking ---------------------------------------------------------------------------------

-- Calls func on this module and every module inside it, depth first.
function Module:apply(callback)
   callback(self)
   if self.modules then
      for _, module in ipairs(self.modules) do
         module:apply(callback)
      end
   end
end

-- Replaces every module m inside this one (and this one) by callback(m).
function Module:replace(callback)
   local out = callback(self)
   if self.modules then
      for i, module in ipairs(self.modules) do
         self.modules[i] = module:replace(callback)
      end
   end
   return out
end

-- This module and every module inside it, in the order apply visits them.
function Module:listModules()
   local list = {}
   self:apply(function(m) list[#list + 1] = m end)
   return list
end

-- The modules of class `typename` inside this one, and the containers that hold them.
function Module:findModules(typename, container)
   container = container or self
   local nodes, containers = {}, {}
   if torch.type(self) == typename then
      nodes[#nodes + 1] = self
      containers[#containers + 1] = container
   end
   if self.modules then
      for _, child in ipairs(self.modules) do
         local child_nodes, child_containers = child:findModules(typename, self)
         for i = 1, #child_nodes do
            nodes[#nodes + 1] = child_nodes[i]
            containers[#containers + 1] = child_containers[i]
         end
      end
   end
   return nodes, containers
end

-- Frees the buffers of the last pass (output, gradInput and scratch tensors), keeping parameters.
function Module:clearState()
   return nn.utils.clear(self, 'output', 'gradInput')
end

function Module:numParameters()
   local params = self:parameters()
   local n = 0
   for _, p in ipairs(params or {}) do n = n + p:nElement() end
   return n
end

-- module(input [, gradOutput]): forward, and backward when a gradient is given.
function Module:__call__(input, gradOutput)
   self:forward(input)
   if gradOutput then
      self:backward(input, gradOutput)
      return self.output, self.gradInput
   end
   return self.output
end

function Module:__tostring__()
   return torch.type(self)
end

return Module
