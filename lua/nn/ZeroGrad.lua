-- nn.ZeroGrad: the identity forwards; a zero gradient backwards (stops backpropagation).

local ZeroGrad = torch.class('nn.ZeroGrad', 'nn.Module')

function ZeroGrad:updateOutput(input)
   self.output:set(input)
   return self.output
end

function ZeroGrad:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(input):zero()
   return self.gradInput
end

return ZeroGrad
