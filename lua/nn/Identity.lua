-- nn.Identity: passes its input (tensor or table) through unchanged.

local Identity, _ = torch.class('nn.Identity', 'nn.Module')

function Identity:updateOutput(input)
   self.output = input
   return self.output
end

function Identity:updateGradInput(input, gradOutput)
   self.gradInput = gradOutput
   return self.gradInput
end

function Identity:clearState()
   -- output and gradInput are the caller's tensors: drop the references, never empty them.
   self.output = torch.Tensor()
   self.gradInput = torch.Tensor()
   return self
end

return Identity
