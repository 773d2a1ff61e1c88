-- tds.Hash: a hash table in Rust memory (src/tds/store.rs), off the Lua heap and out of the
-- collector's way. Keys and values are numbers, booleans, strings, tensors, storages, tds
-- containers and the C objects of added types; `pairs` walks the keys in the order they were
-- first stored.
local core = require 'tds.core'

local C, hashes, out, entry = core.C, core.hashes, core.out, core.entry
local hash_get, hash_set, hash_next, hash_len = core.hashGet, core.hashSet, core.hashNext, core.hashLen
local plain, element, value, raise = core.plain, core.element, core.value, core.raise
local type = type

local Hash = { __typename = 'tds.Hash', __version = 0 }

function Hash.__index(self, k)
   local h, tk, r = hashes[self], type(k), -1
   if tk == 'string' then
      r = hash_get(h, 5, 0, k, #k, out)
   elseif tk == 'number' then
      r = hash_get(h, 4, k, nil, 0, out)
   elseif tk == 'boolean' then
      r = hash_get(h, k and 3 or 2, 0, nil, 0, out)
   end
   if r >= 0 and r ~= 6 then return plain(r, out) end
   if r == -2 then return raise() end
   return value(C.hashGet(self, element(k)))
end

function Hash.__newindex(self, k, v)
   local tk, tv = type(k), type(v)
   local kk, kn, ks, kl
   if tk == 'string' then
      kk, kn, ks, kl = 5, 0, k, #k
   elseif tk == 'number' then
      kk, kn, ks, kl = 4, k, nil, 0
   elseif tk == 'boolean' then
      kk, kn, ks, kl = k and 3 or 2, 0, nil, 0
   end
   if kk ~= nil then
      local h, r = hashes[self], -1
      if tv == 'number' then
         r = hash_set(h, kk, kn, ks, kl, 4, v, nil, 0)
      elseif tv == 'string' then
         r = hash_set(h, kk, kn, ks, kl, 5, 0, v, #v)
      elseif tv == 'nil' then
         r = hash_set(h, kk, kn, ks, kl, 1, 0, nil, 0)
      elseif tv == 'boolean' then
         r = hash_set(h, kk, kn, ks, kl, v and 3 or 2, 0, nil, 0)
      end
      if r == 0 then return end
      if r == -2 then return raise() end
   end
   C.hashSet(self, element(k), element(v))
end

Hash.__len = core.length(hash_len, hashes)

-- Keys in the order they were first stored. Changing or removing entries during the walk is
-- allowed (removed ones are not seen again); adding new keys during it is not (as for Lua tables).
function Hash.__pairs(self)
   local pos = 0
   local function step()
      local p = hash_next(hashes[self], pos, entry)
      if p == 0 then return nil end
      local kk, vk = entry.key_kind, entry.value_kind
      if p > 0 and kk ~= 6 and vk ~= 6 then
         pos = p
         return plain(kk, entry.key), plain(vk, entry.value)
      end
      local np, k, kc, kp, v, vc, vp = C.hashEntry(self, pos)
      if np == nil then return nil end
      pos = np
      return value(k, kc, kp), value(v, vc, vp)
   end
   return step, self, nil
end

Hash.__eq = core.same

local function key_text(k)
   local t = type(k)
   if t == 'string' or t == 'number' or t == 'boolean' then return tostring(k) end
   return torch.type(k)
end

-- As the original printed it: at most 20 entries, keys aligned on the widest of them.
function Hash.__tostring(self)
   local lines = { string.format('tds.Hash[%d]{', #self) }
   local width, n = 0, 0
   for k in pairs(self) do
      width = math.max(width, #key_text(k))
      n = n + 1
      if n == 20 then break end
   end
   n = 0
   for k, v in pairs(self) do
      local kt = key_text(k)
      lines[#lines + 1] = core.listing(kt .. string.rep(' ', width - #kt) .. ' : ', v, width + 3)
      n = n + 1
      if n == 20 then
         lines[#lines + 1] = '...'
         break
      end
   end
   lines[#lines + 1] = '}'
   return table.concat(lines, '\n')
end

-- torch serialization: the number of entries, then each key and value.
function Hash.__write(self, f)
   f:writeLong(#self)
   for k, v in pairs(self) do
      f:writeObject(k)
      f:writeObject(v)
   end
end

function Hash.__read(self, f)
   local n = f:readLong()
   for _ = 1, n do
      local k = f:readObject()
      self[k] = f:readObject()
   end
end

Hash.__factory = function() return C.newHash() end

return Hash
