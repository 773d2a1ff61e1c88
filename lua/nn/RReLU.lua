-- nn.RReLU([l, u, inplace]): randomised leaky ReLU (Xu et al., "Empirical Evaluation of Rectified
-- Activations in Convolutional Network"). In training each non-positive element is multiplied by
-- a slope drawn uniformly from [l, u] (defaults 1/8 and 1/3) and kept in `noise` for the backward
-- pass; in evaluation the slope is the fixed (l + u) / 2.

local RReLU, parent = torch.class('nn.RReLU', 'nn.Module')

function RReLU:__init(l, u, ip)
   parent.__init(self)
   self.lower = l or 1 / 8
   self.upper = u or 1 / 3
   assert(self.lower <= self.upper and self.lower >= 0 and self.upper >= 0,
      'nn.RReLU: expected 0 <= lower <= upper')
   self.noise = torch.Tensor()
   self.train = true
   self.inplace = ip or false
end

-- Whether the slopes are random (training, with a non-empty range).
local function randomSlopes(self)
   return self.train and self.upper - self.lower > 1e-6
end

function RReLU:updateOutput(input)
   if self.inplace then
      self.output:set(input)
   else
      self.output:resizeAs(input):copy(input)
   end
   local negative = input:le(0)
   if randomSlopes(self) then
      self.noise:resizeAs(input):uniform(self.lower, self.upper)
      self.noise:maskedFill(negative:eq(0), 1)
      self.output:cmul(self.noise)
   else
      local slope = (self.lower + self.upper) / 2
      self.output:maskedCopy(negative, self.output:maskedSelect(negative):mul(slope))
   end
   return self.output
end

-- In place the input holds the output, whose sign is the input's (slopes are positive).
function RReLU:updateGradInput(input, gradOutput)
   if self.inplace then
      self.gradInput:set(gradOutput)
   else
      self.gradInput:resizeAs(gradOutput):copy(gradOutput)
   end
   if randomSlopes(self) then
      self.gradInput:cmul(self.noise)
   else
      local negative = input:le(0)
      local slope = (self.lower + self.upper) / 2
      self.gradInput:maskedCopy(negative, self.gradInput:maskedSelect(negative):mul(slope))
   end
   return self.gradInput
end

function RReLU:__tostring__()
   return string.format('%s (l:%f, u:%f)', torch.type(self), self.lower, self.upper)
end

function RReLU:clearState()
   if self.noise then self.noise:set() end
   return parent.clearState(self)
end

return RReLU
