-- nn.CMul(size...): y = x * w elementwise, with a learnt weight w of the given sizes (a
-- LongStorage or numbers) broadcast over the input as nn.CAdd broadcasts its bias.

local broadcast = require 'nn.engine.broadcast'

local CMul, parent = torch.class('nn.CMul', 'nn.Module')

function CMul:__init(...)
   parent.__init(self)
   self.size = broadcast.sizes(...)
   self.weight = torch.Tensor(self.size)
   self.gradWeight = torch.Tensor(self.size)
   self.output:resize(self.size)
   self:reset()
end

function CMul:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.weight:nElement())
   end
   self.weight:uniform(-stdv, stdv)
end

-- The weight shaped (and expanded) like `t`, and t seen so.
local function weightLike(self, t)
   if self.weight:nElement() == t:nElement() then
      local tv = t:contiguous()
      return self.weight:viewAs(tv), tv
   end
   return broadcast.expand(self.weight, t)
end

function CMul:updateOutput(input)
   self.output:resizeAs(input):copy(input)
   local w, out = weightLike(self, self.output)
   out:cmul(w)
   return self.output
end

function CMul:updateGradInput(input, gradOutput)
   if not self.gradInput then return end
   self.gradInput:resizeAs(input):zero()
   local w, g = weightLike(self, gradOutput)
   local gi = self.gradInput:view(g:size())
   gi:addcmul(1, w, g)
   return self.gradInput
end

function CMul:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local prod = input.new():resizeAs(input):copy(input):cmul(gradOutput)
   if self.weight:nElement() == gradOutput:nElement() then
      self.gradWeight:add(scale, prod:viewAs(self.gradWeight))
   else
      self.gradWeight:add(scale, broadcast.sumTo(self.weight, prod))
   end
end

function CMul:clearState()
   nn.utils.clear(self, { '_input', '_output', '_weight', '_gradWeight', '_expand', '_repeat', '_sum' })
   return parent.clearState(self)
end

return CMul
