-- nn.WhiteNoise([mean, std]): in training adds Gaussian noise N(mean, std^2) (defaults 0 and 0.1)
-- to the input; in evaluation the identity. The gradient passes unchanged.

local WhiteNoise, parent = torch.class('nn.WhiteNoise', 'nn.Module')

function WhiteNoise:__init(mean, std)
   parent.__init(self)
   self.mean = mean or 0
   self.std = std or 0.1
   self.noise = torch.Tensor()
end

function WhiteNoise:updateOutput(input)
   self.output:resizeAs(input):copy(input)
   if self.train ~= false then
      self.noise:resizeAs(input):normal(self.mean, self.std)
      self.output:add(self.noise)
   end
   return self.output
end

function WhiteNoise:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(gradOutput):copy(gradOutput)
   return self.gradInput
end

function WhiteNoise:clearState()
   self.noise:set()
   return parent.clearState(self)
end

function WhiteNoise:__tostring__()
   return string.format('%s mean: %f, std: %f', torch.type(self), self.mean, self.std)
end

return WhiteNoise
