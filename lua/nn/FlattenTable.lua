-- nn.FlattenTable(): a nested table of tensors flattened into one list, in depth-first order
-- ({a, {b, {c}}, d} gives {a, b, c, d}). The tensors are passed by reference; the gradient is
-- gradOutput's tensors put back into the input's structure. `input_map` mirrors the input's
-- structure with each tensor's place in the output; output and map are rebuilt only when the input's
-- structure or tensors change.

local FlattenTable, parent = torch.class('nn.FlattenTable', 'nn.Module')

function FlattenTable:__init()
   parent.__init(self)
   self.output = {}
   self.input_map = {}
   self.gradInput = {}
end

-- Appends the tensors of `input` to `output`; returns the map of where each went.
local function flatten(output, input)
   if type(input) == 'table' and not torch.typename(input) then
      local map = {}
      for i = 1, #input do
         map[i] = flatten(output, input[i])
      end
      return map
   end
   output[#output + 1] = input
   return #output
end

-- Whether `map` still describes `nested` against `flat`: same structure, and each leaf of nested is
-- (the very same object as) flat's entry at its place.
local function stillMapped(flat, nested, map)
   if flat == nil or nested == nil or map == nil then return false end
   if type(nested) == 'table' and not torch.typename(nested) then
      if type(map) ~= 'table' or #nested ~= #map then return false end
      for i = 1, #nested do
         if not stillMapped(flat, nested[i], map[i]) then return false end
      end
      return true
   end
   return type(map) == 'number' and flat[map] == nested
end

-- The entries of `flat` arranged in the structure `map` describes.
local function unflatten(flat, map)
   if type(map) == 'table' then
      local nested = {}
      for i = 1, #map do
         nested[i] = unflatten(flat, map[i])
      end
      return nested
   end
   return flat[map]
end

function FlattenTable:updateOutput(input)
   if type(input) ~= 'table' then
      error('nn.FlattenTable: the input must be a table', 2)
   end
   if not stillMapped(self.output, input, self.input_map) then
      self.output = {}
      self.input_map = flatten(self.output, input)
   end
   return self.output
end

-- Expects the forward of the same input to have set input_map.
function FlattenTable:updateGradInput(input, gradOutput)
   if type(input) ~= 'table' or type(gradOutput) ~= 'table' then
      error('nn.FlattenTable: the input and gradOutput must be tables', 2)
   end
   if not stillMapped(gradOutput, self.gradInput, self.input_map) then
      self.gradInput = unflatten(gradOutput, self.input_map)
   end
   return self.gradInput
end

-- Only references are held: nothing to convert, the tables are emptied.
function FlattenTable:type(type, tensorCache)
   self:clearState()
   return self
end

function FlattenTable:clearState()
   self.input_map = {}
   self.output = {}
   self.gradInput = {}
   return self
end

return FlattenTable
