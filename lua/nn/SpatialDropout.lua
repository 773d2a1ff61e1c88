-- nn.SpatialDropout(p[, stochasticInference]): in training, each whole plane of C x H x W maps
-- (or a batch N x C x H x W) is zeroed with probability p (neighbouring pixels being
-- correlated, dropping single pixels would regularise little); in evaluation the output is the
-- input times 1 - p (or dropped planes again with stochasticInference).

local SpatialDropout, parent = torch.class('nn.SpatialDropout', 'nn.Module')

-- The dimensions of a plane (H x W); nn.VolumetricDropout has three.
SpatialDropout.planeDims = 2

function SpatialDropout:__init(p, stochasticInference)
   parent.__init(self)
   self.p = p or 0.5
   self.train = true
   self.stochastic_inference = stochasticInference or false
   self.noise = torch.Tensor()
end

-- The noise's shape: one value per plane, of size one along the plane's dimensions.
local function noiseShape(self, input)
   local n = self.planeDims
   local d = input:dim()
   if d ~= n + 1 and d ~= n + 2 then
      error(string.format('%s: input must be %dD (planes x ...) or %dD (batch x planes x ...), got %dD',
         torch.type(self), n + 1, n + 2, d), 3)
   end
   local shape = {}
   for i = 1, d do shape[i] = i <= d - n and input:size(i) or 1 end
   return torch.LongStorage(shape)
end

function SpatialDropout:updateOutput(input)
   self.output:resizeAs(input):copy(input)
   if self.train or self.stochastic_inference then
      self.noise:resize(noiseShape(self, input)):bernoulli(1 - self.p)
      self.output:cmul(self.noise:expandAs(input))
   else
      self.output:mul(1 - self.p)
   end
   return self.output
end

function SpatialDropout:updateGradInput(input, gradOutput)
   if not self.train then
      error(torch.type(self) .. ': backprop is only defined while training')
   end
   self.gradInput:resizeAs(gradOutput):copy(gradOutput):cmul(self.noise:expandAs(input))
   return self.gradInput
end

function SpatialDropout:setp(p)
   self.p = p
end

function SpatialDropout:__tostring__()
   return string.format('%s(%f)', torch.type(self), self.p)
end

function SpatialDropout:clearState()
   if self.noise then self.noise:set() end
   return parent.clearState(self)
end

return SpatialDropout
