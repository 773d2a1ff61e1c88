-- nn.ModuleFromCriterion(criterion): a module over a criterion. Its input is the pair
-- {prediction, target}, its output a one-element tensor holding the loss; the gradient reaches
-- the prediction (scaled by the incoming gradient), the target's gradient is zero.

local ModuleFromCriterion = torch.class('nn.ModuleFromCriterion', 'nn.Module')

function ModuleFromCriterion:__init(criterion)
   self.criterion = criterion
   self.output = torch.Tensor(1)
   self.gradInput = { torch.Tensor(), torch.Tensor() }
end

function ModuleFromCriterion:updateOutput(input)
   local prediction, target = input[1], input[2]
   -- (Torch7's fails here after clearState emptied the output)
   if self.output:nElement() ~= 1 then self.output:resize(1) end
   self.output[1] = self.criterion:updateOutput(prediction, target)
   return self.output
end

function ModuleFromCriterion:updateGradInput(input, gradOutput)
   local prediction, target = input[1], input[2]
   local grad = self.criterion:updateGradInput(prediction, target)
   local scale = gradOutput[1]
   if type(grad) == 'table' then
      -- a table prediction: the first gradient becomes a table of tensors (made once)
      local mine = self.gradInput[1]
      if type(mine) ~= 'table' then
         mine = {}
         for i = 1, #grad do
            mine[i] = grad[i].new()
         end
         self.gradInput[1] = mine
      end
      for i = 1, #grad do
         mine[i]:resizeAs(grad[i]):copy(grad[i]):mul(scale)
      end
   else
      self.gradInput[1]:resizeAs(grad):copy(grad):mul(scale)
   end
   self.gradInput[2]:resizeAs(target):zero()
   return self.gradInput
end

return ModuleFromCriterion
