-- nn.Sqrt([eps]): y = sqrt(x + eps); dy/dx = 1 / (2y), taken as 0 where y is 0 (the derivative is
-- unbounded there; 0 keeps a zero input from turning the gradients into NaN).

local Sqrt, parent = torch.class('nn.Sqrt', 'nn.Module')

function Sqrt:__init(b)
   parent.__init(self)
   self.eps = b or 0
end

function Sqrt:updateOutput(input)
   self.output:resizeAs(input):copy(input):add(self.eps or 0):sqrt()
   return self.output
end

function Sqrt:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(gradOutput):cdiv(gradOutput, self.output):mul(0.5)
   self.gradInput:maskedFill(self.output:eq(0), 0)
   return self.gradInput
end

return Sqrt
