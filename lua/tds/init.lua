-- tds: torch/tds's data structures, built into th: tds.Hash, tds.Vec and tds.AtomicCounter.
--
--   local tds = require 'tds'
--   local h = tds.Hash()
--   h.name, h[42] = 'x', torch.rand(3)
--   for k, v in pairs(h) do print(k, v) end
--
-- The containers live in Rust memory (src/tds/), not on the Lua heap, so millions of entries do
-- not slow the collector; these files hold the classes' metamethods, which call Rust through the
-- FFI for plain keys and values.
require 'torch'

local core = require 'tds.core'
local Hash = require 'tds.hash'
local Vec = require 'tds.vec'
local Counter = require 'tds.atomic'

local C = core.C
local tds = {}

-- Once per state: the userdata's metatables, and the torch classes that serialization finds.
if not C.registered then
   C.register(Hash, Vec, Counter)
   C.registered = true
   torch.metatype('tds.Hash', Hash)
   torch.metatype('tds.Vec', Vec)
   torch.metatype('tds.AtomicCounter', Counter)
   -- Files written by early versions of tds name the hash class tds_hash.
   torch.metatype('tds_hash', { __factory = Hash.__factory, __read = Hash.__read, __version = 0 })
end

local function is_list(t)
   for k in pairs(t) do
      if type(k) ~= 'number' then return false end
   end
   return true
end

local convert

-- A Lua table's contents into a new container: tables with only number keys become Vecs, others
-- Hashes, all the way down.
local function fill(self, t)
   for k, v in pairs(t) do
      if type(k) == 'table' then k = convert(k) end
      if type(v) == 'table' then v = convert(v) end
      self[k] = v
   end
   return self
end

convert = function(t)
   if is_list(t) then return fill(C.newVec(), t) end
   return fill(C.newHash(), t)
end

local function constructor(name, new)
   return setmetatable({}, {
      __call = function(_, ...) return new(...) end,
      __tostring = function() return name end,
   })
end

tds.Hash = constructor('tds.Hash', function(...)
   local n, t = select('#', ...), ...
   if n == 0 then return C.newHash() end
   if n == 1 and type(t) == 'table' then return fill(C.newHash(), t) end
   error('tds.Hash: lua table or nothing expected', 3)
end)

tds.Vec = constructor('tds.Vec', function(...)
   local n, t = select('#', ...), ...
   local self = C.newVec()
   if n == 1 and type(t) == 'table' then
      if not is_list(t) then error('tds.Vec: lua table with number keys expected', 3) end
      return fill(self, t)
   end
   for i = 1, n do
      local v = select(i, ...)
      if type(v) == 'table' then v = convert(v) end
      self[i] = v
   end
   return self
end)

tds.AtomicCounter = constructor('tds.AtomicCounter', function() return C.newCounter() end)

tds.hash, tds.vec, tds.atomic_counter = tds.Hash, tds.Vec, tds.AtomicCounter
tds.elem = require 'tds.elem'

return tds
