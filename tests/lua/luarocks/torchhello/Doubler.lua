local Doubler, parent = torch.class('nn.Doubler', 'nn.Module')

function Doubler:updateOutput(input)
   self.output:resizeAs(input):copy(input):mul(2)
   return self.output
end

function Doubler:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(gradOutput):copy(gradOutput):mul(2)
   return self.gradInput
end
