-- nn.AddConstant(c[, inplace]): y = x + c, with c a number, or a vector added to each row of a
-- 1-D or 2-D input. In place, the input becomes the output; the backward pass then subtracts c
-- again, giving the caller back its input.

local AddConstant, parent = torch.class('nn.AddConstant', 'nn.Module')

function AddConstant:__init(constant_scalar, ip)
   parent.__init(self)
   self.constant_scalar = constant_scalar
   self.inplace = ip or false
   if ip and type(ip) ~= 'boolean' then
      error('nn.AddConstant: the in-place flag must be a boolean')
   end
end

-- The constant shaped to add to `input`.
local function constantFor(self, input)
   local c = self.constant_scalar
   if type(c) == 'number' then return c end
   assert(torch.isTensor(c) and input:dim() <= 2 and input:size(input:dim()) == c:size(1),
      'nn.AddConstant: the input does not match the constant\'s size')
   if input:dim() == 2 then
      return c:view(1, c:size(1)):expandAs(input)
   end
   return c
end

function AddConstant:updateOutput(input)
   local c = constantFor(self, input)
   if self.inplace then
      input:add(c)
      self.output:set(input)
   else
      self.output:resizeAs(input):copy(input):add(c)
   end
   return self.output
end

function AddConstant:updateGradInput(input, gradOutput)
   if self.inplace then
      self.gradInput:set(gradOutput)
      local c = constantFor(self, input)
      if torch.isTensor(c) then input:add(-1, c) else input:add(-c) end
   else
      self.gradInput:resizeAs(gradOutput):copy(gradOutput)
   end
   return self.gradInput
end

return AddConstant
