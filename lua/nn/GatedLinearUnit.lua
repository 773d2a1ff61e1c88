-- nn.GatedLinearUnit([dim]): the input is split in two halves a, b along `dim` (the last one by
-- default) and y = a * sigmoid(b) (Dauphin et al., "Language Modeling with Gated Convolutional
-- Networks"); the output has half the input's size along dim.

local GatedLinearUnit, parent = torch.class('nn.GatedLinearUnit', 'nn.Module')

function GatedLinearUnit:__init(dim)
   parent.__init(self)
   self.dim = dim
end

-- The two halves of `t` along the gating dimension.
local function halves(self, t)
   local dim = self.dim or t:dim()
   local n = t:size(dim)
   if n % 2 ~= 0 then
      error(string.format('nn.GatedLinearUnit: dimension %d of the input has odd size %d', dim, n))
   end
   return t:narrow(dim, 1, n / 2), t:narrow(dim, n / 2 + 1, n / 2), dim
end

function GatedLinearUnit:updateOutput(input)
   local a, b = halves(self, input)
   self.output:resizeAs(a):sigmoid(b):cmul(a)
   return self.output
end

-- d/da = sigmoid(b); d/db = a * sigmoid(b) * (1 - sigmoid(b)).
function GatedLinearUnit:updateGradInput(input, gradOutput)
   local a, b = halves(self, input)
   self.gradInput:resizeAs(input)
   local ga, gb = halves(self, self.gradInput)
   local sig = b.new():resizeAs(b):sigmoid(b)
   ga:cmul(sig, gradOutput)
   gb:fill(1):add(-1, sig):cmul(sig):cmul(a):cmul(gradOutput)
   return self.gradInput
end

return GatedLinearUnit
