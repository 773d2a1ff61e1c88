-- tds.elem: how tds tells element types apart (`elem.type`, Torch's typename) and the way to
-- store C objects of other types (`elem.addctype`).
local ffi = require 'ffi'
local core = require 'tds.core'

local elem = {}

-- The class name tds uses to find an added type's functions; a script may replace it.
elem.type = core.type
setmetatable(elem, {
   __newindex = function(t, k, v)
      if k == 'type' then core.type = v end
      rawset(t, k, v)
   end,
})

-- addctype(class, free_p, set, get): objects whose elem.type is `class` are stored as the C
-- pointer `set(obj)` returns (with `free_p`, the destructor the container calls when it lets the
-- element go: set must have taken a reference); `get(pointer)` makes a Lua object of a stored
-- pointer (taking its own reference). Hashes, vectors, counters, tensors and storages are built in.
function elem.addctype(class, free_p, set, get)
   if type(class) ~= 'string' then error('tds.elem.addctype: class name expected', 2) end
   if type(set) ~= 'function' or type(get) ~= 'function' then
      error('tds.elem.addctype: set and get functions expected', 2)
   end
   if free_p == nil or ffi.cast('intptr_t', free_p) == 0 then
      error('tds.elem.addctype: a destructor (C function pointer) expected', 2)
   end
   core.setters[class] = function(obj)
      local p, free = set(obj)
      return p, free or free_p
   end
   core.getters[class] = get
end

return elem
