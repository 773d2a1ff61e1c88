-- nn.Dropout(p[, v1, inplace, stochasticInference]): in training, each element is zeroed with
-- probability p. By default the kept ones are scaled by 1/(1-p), so that evaluation passes the
-- input unchanged; with v1 (the first version's rule) nothing is scaled in training and the
-- output is scaled by 1-p in evaluation.

local Dropout, parent = torch.class('nn.Dropout', 'nn.Module')

function Dropout:__init(p, v1, inplace, stochasticInference)
   parent.__init(self)
   self.p = p or 0.5
   self.train = true
   self.inplace = inplace
   self.stochastic_inference = stochasticInference or false
   -- v2 is the default: scale in training.
   self.v2 = not v1
   if self.p >= 1 or self.p < 0 then
      error('nn.Dropout: the probability must be in [0, 1)')
   end
   self.noise = torch.Tensor()
end

function Dropout:updateOutput(input)
   if self.inplace then
      self.output:set(input)
   else
      self.output:resizeAs(input):copy(input)
   end
   if self.p > 0 then
      if self.train or self.stochastic_inference then
         self.noise:resizeAs(input)
         self.noise:bernoulli(1 - self.p)
         if self.v2 then
            self.noise:div(1 - self.p)
         end
         self.output:cmul(self.noise)
      elseif not self.v2 then
         self.output:mul(1 - self.p)
      end
   end
   return self.output
end

function Dropout:updateGradInput(input, gradOutput)
   if self.inplace then
      self.gradInput:set(gradOutput)
   else
      self.gradInput:resizeAs(gradOutput):copy(gradOutput)
   end
   if self.train then
      if self.p > 0 then
         self.gradInput:cmul(self.noise)
      end
   else
      if not self.v2 and self.p > 0 then
         self.gradInput:mul(1 - self.p)
      end
   end
   return self.gradInput
end

function Dropout:setp(p)
   self.p = p
end

function Dropout:__tostring__()
   return string.format('%s(%f)', torch.type(self), self.p)
end

function Dropout:clearState()
   if self.noise then self.noise:set() end
   return parent.clearState(self)
end

return Dropout
