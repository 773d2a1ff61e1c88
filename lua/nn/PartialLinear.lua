-- nn.PartialLinear(inputSize, outputSize[, bias]): a Linear layer that can be restricted to a
-- subset of its outputs (setPartition(indices)), for forward-backward passes on a few columns
-- while all parameters are kept (resetPartition() restores the full layer). The weight lives in a
-- LookupTable of the inner network {input, partition} -> ParallelTable(Identity, LookupTable)
-- -> MM(false, true), which looks up the partition's rows; bias is 1 x outputSize.

local PartialLinear, parent = torch.class('nn.PartialLinear', 'nn.Module')

function PartialLinear:__init(inputsize, outputsize, bias)
   parent.__init(self)
   if bias == nil then bias = true end
   local pt = nn.ParallelTable()
   pt:add(nn.Identity()):add(nn.LookupTable(outputsize, inputsize))
   self.network = nn.Sequential():add(pt):add(nn.MM(false, true))
   if bias then
      self.bias = torch.Tensor(1, outputsize):zero()
      self.gradBias = torch.Tensor(1, outputsize):zero()
   end
   self.inputsize = inputsize
   self.outputsize = outputsize
   self.allcolumns = torch.range(1, self.outputsize)
   self:resetPartition()
end

function PartialLinear:setPartition(indices)
   self.partition = indices:type(self.allcolumns:type())
end

function PartialLinear:resetPartition()
   self.partition = self.allcolumns
end

local function lookup(self)
   return self.network:get(1):get(2)
end

function PartialLinear:parameters()
   return { lookup(self).weight, self.bias }, { lookup(self).gradWeight, self.gradBias }
end

function PartialLinear:updateOutput(input)
   self.output:set(self.network:forward { input, self.partition })
   if self.bias then
      self.output:add(self.bias:index(2, self.partition:long()):expandAs(self.output))
   end
   return self.output
end

function PartialLinear:updateGradInput(input, gradOutput)
   if self.gradInput then
      self.network:updateGradInput({ input, self.partition }, gradOutput)
      self.gradInput:set(self.network.gradInput[1])
   end
   return self.gradInput
end

function PartialLinear:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   self.network:accGradParameters({ input, self.partition }, gradOutput, scale)
   if self.bias then
      -- the column sums of gradOutput, added at the partition's columns
      local sums = gradOutput:sum(1):mul(scale)
      self.gradBias:indexAdd(2, self.partition:long(), sums:view(1, sums:nElement()))
   end
end

function PartialLinear:accUpdateGradParameters(input, gradOutput, lr)
   local lt = lookup(self)
   local gradWeight, gradBias = lt.gradWeight, self.gradBias
   lt.gradWeight, self.gradBias = lt.weight, self.bias
   self:accGradParameters(input, gradOutput, -lr)
   lt.gradWeight, self.gradBias = gradWeight, gradBias
end

function PartialLinear:zeroGradParameters()
   self.network:zeroGradParameters()
   if self.gradBias then self.gradBias:zero() end
end

function PartialLinear:updateParameters(learningRate)
   self.network:updateParameters(learningRate)
   if self.bias then self.bias:add(-learningRate, self.gradBias) end
end

-- Shared clones update the shared tensors directly, as without sharing.
function PartialLinear:sharedAccUpdateGradParameters(input, gradOutput, lr)
   self:accUpdateGradParameters(input, gradOutput, lr)
end

function PartialLinear:__tostring__()
   return torch.type(self) .. string.format('(%d -> %d)', self.inputsize, self.outputsize)
      .. (self.bias == nil and ' without bias' or '')
end

return PartialLinear
