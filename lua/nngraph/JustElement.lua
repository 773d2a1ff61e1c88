-- nngraph.JustElement: takes a table of exactly one element and outputs that element (what
-- node:split(1) inserts).

local JustElement = torch.class('nngraph.JustElement', 'nn.Module')

function JustElement:__init()
   self.gradInput = {}
end

function JustElement:updateOutput(input)
   assert(#input == 1, 'expecting one element')
   self.output = input[1]
   return self.output
end

function JustElement:updateGradInput(input, gradOutput)
   self.gradInput[1] = gradOutput
   return self.gradInput
end

return JustElement
