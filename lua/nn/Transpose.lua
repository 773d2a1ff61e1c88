-- nn.Transpose({d1, d2}, {d3, d4}, ...): the input with each pair of dimensions swapped in turn
-- (a view); setNumInputDims(n) shifts the pairs by one for a batched input of n+1 dimensions.

local Transpose, parent = torch.class('nn.Transpose', 'nn.Module')

function Transpose:__init(...)
   parent.__init(self)
   self.permutations = { ... }
   self.numInputDims = nil
end

function Transpose:setNumInputDims(numInputDims)
   self.numInputDims = numInputDims
   return self
end

-- The pairs to swap for this input (shifted past a batch dimension).
local function pairsFor(self, input)
   local shift = (self.numInputDims and input:dim() > self.numInputDims) and 1 or 0
   local out = {}
   for i, p in ipairs(self.permutations) do
      out[i] = { p[1] + shift, p[2] + shift }
   end
   return out
end

function Transpose:updateOutput(input)
   local view = input
   for _, p in ipairs(pairsFor(self, input)) do
      view = view:transpose(p[1], p[2])
   end
   self.output = view
   return self.output
end

function Transpose:updateGradInput(input, gradOutput)
   local view = gradOutput
   local swaps = pairsFor(self, input)
   for i = #swaps, 1, -1 do
      view = view:transpose(swaps[i][1], swaps[i][2])
   end
   self.gradInput = view
   return self.gradInput
end

return Transpose
