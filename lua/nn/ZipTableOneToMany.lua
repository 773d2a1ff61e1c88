-- nn.ZipTableOneToMany(): pairs one element with each of a table's: {v, {a, b, c}} gives
-- {{v, a}, {v, b}, {v, c}}. Elements are passed by reference; v's gradient is the sum of the
-- gradients of its copies.

local ZipTableOneToMany, parent = torch.class('nn.ZipTableOneToMany', 'nn.Module')

function ZipTableOneToMany:__init()
   parent.__init(self)
   self.output = {}
   self.gradInput = {}
   -- The gradient of v, accumulated here.
   self.gradInputEl = torch.Tensor()
end

local function checkInput(input)
   if type(input) ~= 'table' or #input ~= 2 or type(input[2]) ~= 'table' or torch.typename(input[2]) then
      error('nn.ZipTableOneToMany: the input must be a table of an element and a table {v, {a, b, ...}}', 3)
   end
end

function ZipTableOneToMany:updateOutput(input)
   checkInput(input)
   local v, many = input[1], input[2]
   self.output = {}
   for i, x in ipairs(many) do
      self.output[i] = { v, x }
   end
   return self.output
end

function ZipTableOneToMany:updateGradInput(input, gradOutput)
   checkInput(input)
   local v = input[1]
   if self.gradInputEl:type() ~= v:type() then self.gradInputEl = v.new() end
   self.gradInputEl:resizeAs(v):zero()
   local gradMany = {}
   for i, pair in ipairs(gradOutput) do
      self.gradInputEl:add(pair[1])
      gradMany[i] = pair[2]
   end
   self.gradInput = { self.gradInputEl, gradMany }
   return self.gradInput
end

return ZipTableOneToMany
