-- tds.AtomicCounter: a 64-bit counter that threads share (by reference through threads and ipc)
-- and change atomically.
local core = require 'tds.core'

local C, counters, inc, get = core.C, core.counters, core.counterInc, core.counterGet

local Counter = { __typename = 'tds.AtomicCounter', __version = 0 }
local methods = {}

-- Adds one; returns the value before.
function methods.inc(self)
   local v = inc(counters[self])
   if v == v then return v end
   return C.counterInc(self)
end

function methods.get(self)
   local v = get(counters[self])
   if v == v then return v end
   return C.counterGet(self)
end

function methods.set(self, v)
   if type(v) ~= 'number' then
      error('tds.AtomicCounter.set: number expected, got ' .. type(v), 2)
   end
   C.counterSet(self, v)
end

function Counter.__index(_, k)
   local m = methods[k]
   if m ~= nil then return m end
   error('tds.AtomicCounter: no such method: ' .. tostring(k), 2)
end

Counter.__eq = core.same

function Counter.__tostring(self)
   return 'tds.AtomicCounter=' .. methods.get(self)
end

function Counter.__write(self, f)
   f:writeLong(methods.get(self))
end

function Counter.__read(self, f)
   C.counterSet(self, f:readLong())
end

Counter.__factory = function() return C.newCounter() end

return Counter
