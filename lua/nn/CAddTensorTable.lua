-- nn.CAddTensorTable(): adds a tensor to each tensor of a table: {v, {a, b, c}} gives
-- {v + a, v + b, v + c} (all of one size). v's gradient is the sum of the gradients.

local CAddTensorTable, parent = torch.class('nn.CAddTensorTable', 'nn.Module')

function CAddTensorTable:__init()
   parent.__init(self)
   self.gradInput = {}
end

local function checkInput(input)
   if type(input) ~= 'table' or not torch.isTensor(input[1]) or type(input[2]) ~= 'table'
      or torch.typename(input[2]) then
      error('nn.CAddTensorTable: the input must be {tensor, {tensors...}}', 3)
   end
end

function CAddTensorTable:updateOutput(input)
   checkInput(input)
   local v, many = input[1], input[2]
   local output = type(self.output) == 'table' and self.output or {}
   for i, x in ipairs(many) do
      output[i] = torch.isTensor(output[i]) and output[i] or v.new()
      output[i]:resizeAs(v):copy(x):add(v)
   end
   for i = #many + 1, #output do output[i] = nil end
   self.output = output
   return self.output
end

function CAddTensorTable:updateGradInput(input, gradOutput)
   checkInput(input)
   local v, many = input[1], input[2]
   self.gradInput[1] = self.gradInput[1] or v.new()
   self.gradInput[1]:resizeAs(v):zero()
   self.gradInput[2] = self.gradInput[2] or {}
   local gradMany = self.gradInput[2]
   for i = 1, #many do
      self.gradInput[1]:add(gradOutput[i])
      gradMany[i] = gradMany[i] or v.new()
      gradMany[i]:resizeAs(many[i]):copy(gradOutput[i])
   end
   for i = #many + 1, #gradMany do gradMany[i] = nil end
   return self.gradInput
end

return CAddTensorTable
