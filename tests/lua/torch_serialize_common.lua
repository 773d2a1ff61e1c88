-- Helpers shared by the torch_serialize_*.lua scripts.
local M = {}

M.types = { 'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double' }

local function storage_equal(a, b)
   if torch.typename(a) ~= torch.typename(b) or a:size() ~= b:size() then return false end
   for i = 1, a:size() do
      local x, y = a[i], b[i]
      if not (x == y or (x ~= x and y ~= y)) then return false end
   end
   return true
end
M.storage_equal = storage_equal

-- Same type, geometry (sizes, strides, offset), and whole storage.
local function tensor_equal(a, b)
   if torch.typename(a) ~= torch.typename(b) or a:dim() ~= b:dim() then return false end
   for d = 1, a:dim() do
      if a:size(d) ~= b:size(d) or a:stride(d) ~= b:stride(d) then return false end
   end
   if a:dim() > 0 and a:storageOffset() ~= b:storageOffset() then return false end
   local sa, sb = a:storage(), b:storage()
   if (sa == nil) ~= (sb == nil) then return false end
   return sa == nil or storage_equal(sa, sb)
end
M.tensor_equal = tensor_equal

-- Structural equality of decoded values; `seen` pairs up tables so cycles terminate.
function M.deep_equal(a, b, seen)
   seen = seen or {}
   if torch.isTensor(a) then return torch.isTensor(b) and tensor_equal(a, b) end
   if torch.isStorage(a) then return torch.isStorage(b) and storage_equal(a, b) end
   if type(a) ~= type(b) then return false end
   if type(a) == 'number' then
      if a ~= a then return b ~= b end
      -- -0 and 0 compare equal in Lua; tell them apart through their reciprocal.
      return a == b and (a ~= 0 or 1 / a == 1 / b)
   end
   if type(a) ~= 'table' then return a == b end
   if seen[a] then return seen[a] == b end
   seen[a] = b
   if torch.typename(a) ~= torch.typename(b) then return false end
   for k, v in pairs(a) do
      local w = b[k]
      if type(k) == 'table' then
         -- Table keys: find the one counterpart among b's table keys.
         w = nil
         for k2, v2 in pairs(b) do
            if type(k2) == 'table' and M.deep_equal(k, k2, seen) then w = v2 end
         end
      end
      if not M.deep_equal(v, w, seen) then return false end
   end
   for k in pairs(b) do
      if type(k) ~= 'table' and a[k] == nil then return false end
   end
   return true
end

function M.roundtrip(v, mode)
   return torch.deserialize(torch.serialize(v, mode), mode)
end

function M.bytes(path)
   local f = assert(io.open(path, 'rb'))
   local s = f:read('*a')
   f:close()
   return s
end

-- Asserts that f(...) fails with a message containing `text`.
function M.fails(text, f, ...)
   local ok, err = pcall(f, ...)
   assert(not ok, 'expected an error containing "' .. text .. '"')
   assert(tostring(err):find(text, 1, true), 'expected "' .. text .. '", got: ' .. tostring(err))
   return err
end

function M.unhex(h)
   h = h:gsub('%s', '')
   return (h:gsub('..', function(b) return string.char(tonumber(b, 16)) end))
end

return M
