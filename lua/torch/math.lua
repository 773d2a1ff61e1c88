-- The tensor operators, as Torch's TensorOperator: `+ - * / %`, unary minus and `^`. Each returns a
-- new tensor (tensor*tensor between vectors returns a number). The arithmetic itself is the
-- native torch.add/csub/mul/... functions; the torch.* forms of every math method are native too.

local torch = torch
local type = type
local isTensor = torch.isTensor
local Math = {}

-- Cheap operand checks (the operators are hot): one of the operands is the tensor whose
-- metamethod ran, so a userdata is taken as a tensor and torch.* checks its type.
local function tensor_and_number(a, b)
   return type(a) == 'userdata' and type(b) == 'number'
end

local function operands(a, b)
   local ta, tb = type(a), type(b)
   return ta == 'userdata' and (tb == 'userdata' or tb == 'number')
end

function Math.__add__(a, b)
   if operands(a, b) then return torch.add(a, b) end
   if tensor_and_number(b, a) then return torch.add(b, a) end
   error('__add__: expecting two tensors or one tensor and one number', 2)
end

function Math.__sub__(a, b)
   if operands(a, b) then return torch.csub(a, b) end
   -- number - tensor: Torch fills with the number and adds -1 times the tensor.
   if tensor_and_number(b, a) then return torch.mul(b, -1):add(a) end
   error('__sub__: expecting two tensors or one tensor and one number', 2)
end

function Math.__mul__(a, b)
   if tensor_and_number(a, b) then return torch.mul(a, b) end
   if tensor_and_number(b, a) then return torch.mul(b, a) end
   if not (isTensor(a) and isTensor(b)) then
      error('__mul__: expecting two tensors or one tensor and one number', 2)
   end
   local da, db = a:dim(), b:dim()
   if da == 1 and db == 1 then return a:dot(b) end
   if da == 2 and db == 1 then return a.new():mv(a, b) end
   if da == 2 and db == 2 then return a.new():mm(a, b) end
   error(string.format('__mul__: multiplication between %dD and %dD tensors not supported '
      .. '(expected 1D or 2D tensors)', da, db), 2)
end

function Math.__div__(a, b)
   if tensor_and_number(a, b) then return torch.div(a, b) end
   error('__div__: expecting a tensor divided by a number', 2)
end

-- Torch's % is remainder: the result takes the sign of the divisor.
function Math.__mod__(a, b)
   if tensor_and_number(a, b) then return torch.remainder(a, b) end
   error('__mod__: expecting a tensor modulo a number', 2)
end

function Math.__unm__(a)
   return torch.mul(a, -1)
end

-- Not in Torch7's operators; tensor^number is pow and number^tensor is Torch's tpow.
function Math.__pow__(a, b)
   if tensor_and_number(a, b) or tensor_and_number(b, a) then return torch.pow(a, b) end
   error('__pow__: expecting a tensor and a number', 2)
end

return Math
