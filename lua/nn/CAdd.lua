-- nn.CAdd(size...): y = x + b with a learnt bias b of the given sizes (a LongStorage or numbers),
-- broadcast over the input: a size of 1 in b is repeated along that dimension of the input. A
-- bias with fewer dimensions than the input covers one sample of a batch (the first dimension).

local broadcast = require 'nn.engine.broadcast'

local CAdd, parent = torch.class('nn.CAdd', 'nn.Module')

function CAdd:__init(...)
   parent.__init(self)
   self.size = broadcast.sizes(...)
   self.bias = torch.Tensor(self.size)
   self.gradBias = torch.Tensor(self.size)
   self.output:resize(self.size)
   self:reset()
end

function CAdd:reset(stdv)
   if stdv then
      -- a uniform on [-a, a] has standard deviation a / sqrt(3)
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.bias:nElement())
   end
   self.bias:uniform(-stdv, stdv)
end

function CAdd:updateOutput(input)
   self.output:resizeAs(input):copy(input)
   if input:nElement() == self.bias:nElement() then
      self.output:add(self.bias:viewAs(input))
   else
      local b, out = broadcast.expand(self.bias, self.output)
      out:add(b)
   end
   return self.output
end

function CAdd:updateGradInput(input, gradOutput)
   self.gradInput = self.gradInput or input.new()
   self.gradInput:resizeAs(gradOutput):copy(gradOutput)
   return self.gradInput
end

function CAdd:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   if self.bias:nElement() == gradOutput:nElement() then
      self.gradBias:add(scale, gradOutput:contiguous():viewAs(self.gradBias))
   else
      self.gradBias:add(scale, broadcast.sumTo(self.bias, gradOutput))
   end
end

function CAdd:clearState()
   nn.utils.clear(self, { '_gradBias', '_expand', '_output', '_bias', '_repeat' })
   return parent.clearState(self)
end

return CAdd
