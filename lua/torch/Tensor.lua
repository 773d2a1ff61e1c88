-- Tensor methods that are easier in Lua: type conversions, views built from other views, table
-- conversion, and the `torch.*` function forms of the view methods.

local torch = torch
local Tensor = {}

-- x:type() gives the type name; x:type(name) converts, returning x itself when it already has
-- that type.
function Tensor.type(self, name)
   local current = torch.typename(self)
   if name == nil then return current end
   if name == current then return self end
   local class = torch.getmetatable(name)
   if class == nil or not torch.isTensor(self) or not name:find('Tensor$') then
      error('type: unknown tensor type ' .. tostring(name), 2)
   end
   local new = class.new()
   if self:dim() > 0 then new:resize(self:size()):copy(self) end
   return new
end

-- torch.Tensor.isTensor(x), the class-level alias of torch.isTensor.
function Tensor.isTensor(x)
   return torch.isTensor(x)
end

function Tensor.typeAs(self, other)
   return self:type(other:type())
end

for method, T in pairs { byte = 'Byte', char = 'Char', short = 'Short', int = 'Int', long = 'Long',
   float = 'Float', double = 'Double', half = 'Half' } do
   local name = 'torch.' .. T .. 'Tensor'
   Tensor[method] = function(self) return self:type(name) end
end

function Tensor.real(self)
   return self:type(torch.getdefaulttensortype())
end

function Tensor.expandAs(self, a, b)
   if b ~= nil then return self:expand(a, b:size()) end
   return self:expand(a:size())
end

function Tensor.viewAs(self, a, b)
   if b ~= nil then return self:view(a, b:size()) end
   return self:view(a:size())
end

function Tensor.resizeAs(self, other)
   return self:resize(other:size())
end

-- split(tensor, size [, dim]) and chunk(tensor, n [, dim]): tables of views along a dimension.
function Tensor.split(result, tensor, size, dim)
   if type(result) ~= 'table' or torch.isTensor(result) then
      result, tensor, size, dim = {}, result, tensor, size
   else
      for k in pairs(result) do result[k] = nil end
   end
   dim = dim or 1
   local n = tensor:size(dim)
   local start = 1
   while start <= n do
      local len = math.min(size, n - start + 1)
      result[#result + 1] = tensor:narrow(dim, start, len)
      start = start + len
   end
   return result
end

function Tensor.chunk(result, tensor, n, dim)
   if type(result) ~= 'table' or torch.isTensor(result) then
      result, tensor, n, dim = {}, result, tensor, n
   end
   dim = dim or 1
   return Tensor.split(result, tensor, math.ceil(tensor:size(dim) / n), dim)
end

-- repeatTensor([result,] tensor, sizes...): the tensor tiled `sizes` times along each dimension.
function Tensor.repeatTensor(result, tensor, ...)
   local sizes = { ... }
   if not torch.isTensor(tensor) then
      table.insert(sizes, 1, tensor)
      tensor, result = result, result.new()
   end
   if torch.typename(sizes[1]) == 'torch.LongStorage' then sizes = sizes[1]:totable() end
   if #sizes < tensor:dim() then
      error('repeatTensor: the number of repetitions must be at least the number of dimensions', 2)
   end
   if not tensor:isContiguous() then tensor = tensor:clone() end
   local xsize = tensor:dim() > 0 and tensor:size():totable() or {}
   while #xsize < #sizes do table.insert(xsize, 1, 1) end
   local out = {}
   for i = 1, #sizes do out[i] = xsize[i] * sizes[i] end
   result:resize(torch.LongStorage(out))
   local x = tensor.new(tensor):resize(torch.LongStorage(xsize))
   local tiles = result.new(result)
   for i = 1, #xsize do tiles = tiles:unfold(i, xsize[i], xsize[i]) end
   local expanded = {}
   for i = 1, tiles:dim() - #xsize do expanded[i] = 1 end
   for i = 1, #xsize do expanded[#expanded + 1] = xsize[i] end
   x = x:resize(torch.LongStorage(expanded)):expandAs(tiles)
   tiles:copy(x)
   return result
end

-- torch.f(t, ...) for the view methods: the same view as t:f(...).
for _, name in ipairs { 'narrow', 'select', 'sub', 'transpose', 't', 'unfold', 'permute', 'view', 'viewAs',
   'expand', 'expandAs', 'squeeze', 'unsqueeze', 'split', 'chunk', 'totable', 'repeatTensor', 'isTensor',
   'nElement', 'numel', 'dim', 'nDimension', 'size', 'stride', 'type', 'typeAs', 'contiguous' } do
   if torch[name] == nil then
      local f = Tensor[name]
      torch[name] = function(t, ...)
         if f then return f(t, ...) end
         return t[name](t, ...)
      end
   end
end

-- torch.squeeze([res,] src [, dim]): the method's own forms (a new view, or res set).
function torch.squeeze(t, ...)
   return t.squeeze(t, ...)
end

function torch.clone(t) return t:clone() end

-- Heap tracking (on from the start, as in Torch): a full collection when the tensor and storage
-- buffers alive have doubled since the last one. torch._heaptracking tells the current setting.
function torch.setheaptracking(enabled)
   enabled = enabled and true or false
   torch._C.setHeapTracking(enabled)
   torch._heaptracking = enabled
end
torch.setheaptracking(true)

return Tensor
