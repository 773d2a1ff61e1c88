-- tds.Vec: a vector of elements in Rust memory, indexed from 1. It may hold nils (they are not
-- holes: #v counts them), and grows when a script stores past its end.
local core = require 'tds.core'

local C, vecs, out = core.C, core.vecs, core.out
local vec_get, vec_set, vec_len = core.vecGet, core.vecSet, core.vecLen
local plain, element, value, raise = core.plain, core.element, core.value, core.raise
local type, select = type, select

local Vec = { __typename = 'tds.Vec', __version = 0 }
local methods = {}

function Vec.__index(self, k)
   if type(k) == 'number' then
      local r = vec_get(vecs[self], k, out)
      if r >= 0 and r ~= 6 then return plain(r, out) end
      if r == -2 then return raise() end
      return value(C.vecGet(self, k))
   end
   local m = methods[k]
   if m ~= nil then return m end
   error('tds.Vec: invalid key (number) or method name: ' .. tostring(k), 2)
end

function Vec.__newindex(self, k, v)
   if type(k) ~= 'number' then
      error('tds.Vec: positive number expected as key, got ' .. type(k), 2)
   end
   local tv, r = type(v), -1
   if tv == 'number' then
      r = vec_set(vecs[self], k, 4, v, nil, 0)
   elseif tv == 'string' then
      r = vec_set(vecs[self], k, 5, 0, v, #v)
   elseif tv == 'nil' then
      r = vec_set(vecs[self], k, 1, 0, nil, 0)
   elseif tv == 'boolean' then
      r = vec_set(vecs[self], k, v and 3 or 2, 0, nil, 0)
   end
   if r == 0 then return end
   if r == -2 then return raise() end
   C.vecSet(self, k, element(v))
end

Vec.__len = core.length(vec_len, vecs)

function Vec.__ipairs(self)
   local i = 0
   return function()
      i = i + 1
      if i <= #self then return i, self[i] end
   end, self, 0
end
Vec.__pairs = Vec.__ipairs

Vec.__eq = core.same

function Vec.__tostring(self)
   local lines = { string.format('tds.Vec[%d]{', #self) }
   for i = 1, #self do
      local kt = string.format('%5d : ', i)
      lines[#lines + 1] = core.listing(kt, self[i], #kt)
      if i == 20 then
         lines[#lines + 1] = '...'
         break
      end
   end
   lines[#lines + 1] = '}'
   return table.concat(lines, '\n')
end

-- v:insert(x) appends; v:insert(i, x) puts x at i, moving the rest up.
function methods.insert(self, ...)
   local n = select('#', ...)
   if n == 1 then
      C.vecInsert(self, nil, element((...)))
   elseif n == 2 then
      local i, v = ...
      if type(i) ~= 'number' then error('tds.Vec.insert: positive number expected as key', 2) end
      C.vecInsert(self, i, element(v))
   else
      error('tds.Vec.insert: [key] value expected', 2)
   end
end

-- v:remove() drops the last element; v:remove(i) drops element i, moving the rest down.
function methods.remove(self, i)
   if i ~= nil and type(i) ~= 'number' then error('tds.Vec.remove: positive number expected as key', 2) end
   C.vecRemove(self, i)
end

function methods.resize(self, n)
   if type(n) ~= 'number' then error('tds.Vec.resize: size must be a positive number', 2) end
   C.vecResize(self, n)
end

-- In place, by `compare(a, b)` (true when a goes first; nils are passed as nil), or by `<`. The
-- elements themselves move (tensors stay the same tensors).
function methods.sort(self, compare)
   if compare ~= nil and type(compare) ~= 'function' then
      error('tds.Vec.sort: a Lua comparison function expected (C comparison functions over the '
         .. "original's tds_elem are not supported), got " .. type(compare), 2)
   end
   local values, order, n = C.vecTake(self), {}, #self
   for i = 1, n do order[i] = i end
   local before
   if compare then
      before = function(a, b) return compare(values[a], values[b]) end
   else
      before = function(a, b) return values[a] < values[b] end
   end
   table.sort(order, before)
   C.vecPermute(self, order)
end

function methods.concat(self, sep, i, j)
   i, j = i or 1, j or #self
   local parts = {}
   for k = i, j do parts[#parts + 1] = tostring(self[k]) end
   return table.concat(parts, sep or '')
end

function methods.concatstorage(self, sep, i, j)
   return torch.CharStorage():string(methods.concat(self, sep, i, j))
end

function Vec.__write(self, f)
   local n = #self
   f:writeLong(n)
   for i = 1, n do f:writeObject(self[i]) end
end

function Vec.__read(self, f)
   for i = 1, f:readLong() do self[i] = f:readObject() end
end

Vec.__factory = function() return C.newVec() end

return Vec
