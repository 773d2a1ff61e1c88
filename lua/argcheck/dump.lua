-- argcheck.dump: require it first, and every documentation string given afterwards (through
-- argcheck rules or argcheck.doc) is printed when the Lua state closes.

local doc = require 'argcheck.doc'

local function at_exit()
   print(doc.stop())
end

-- a value whose finalizer runs at exit: a proxy userdata, or an ffi cdata where there is no newproxy
local sentinel
if newproxy then
   sentinel = newproxy(true)
   getmetatable(sentinel).__gc = at_exit
else
   local ffi = require 'ffi'
   sentinel = ffi.gc(ffi.new('int[1]'), at_exit)
end
doc.__noop = sentinel

doc.record()
