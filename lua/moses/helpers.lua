-- moses/helpers.lua -- private helpers shared by the parts of the moses package.
-- Not part of the public API: the part modules receive this table from
-- moses/init.lua (as `H`) and take what they need from it.

local pairs, select = pairs, select

local H = {}

--------------------------------------------------------------------------------
-- Private helpers
--------------------------------------------------------------------------------

-- Varargs may contain nils; keep their real count so they survive a round trip.
function H.pack(...)
  return { n = select('#', ...), ... }
end

function H.less(a, b) return a < b end

-- Number of key/value pairs (the length operator ignores the hash part).
function H.countPairs(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end

function H.append(dst, v)
  dst[#dst + 1] = v
end

-- Shallow array copy of t[i..j]; nils are skipped, so the copy is packed.
function H.copyRange(t, i, j)
  local out = {}
  for k = i, j do
    local v = t[k]
    if v ~= nil then out[#out + 1] = v end
  end
  return out
end

function H.shallowCopy(t)
  local out = {}
  for k, v in pairs(t) do out[k] = v end
  return out
end

return H
