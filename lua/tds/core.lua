-- What tds's three classes share: the native module, the FFI functions for plain keys and values
-- (src/tds/fast.rs), and elements to and from what the native functions hand over.
--
-- Value kinds between the FFI functions and these wrappers (src/fastcall.rs): 0 none (absent),
-- 1 nil, 2 false, 3 true, 4 number, 5 string, 6 other (ask the native function), -1 slow (call
-- the native function), -2 error (raise it).
local ffi = require 'ffi'
local C = require 'libtds'

ffi.cdef [[
typedef struct { double num; const char *str; size_t len; } luatorch_tds_out;
typedef struct {
   luatorch_tds_out key, value;
   int key_kind, value_kind;
} luatorch_tds_entry;
]]

local core = { C = C, raise = C.raise }
local F = C.fast

core.hashGet = ffi.cast('int (*)(luatorch_holder *, int, double, const char *, size_t, luatorch_tds_out *)', F.hashGet)
core.hashSet = ffi.cast('int (*)(luatorch_holder *, int, double, const char *, size_t, '
   .. 'int, double, const char *, size_t)', F.hashSet)
core.hashNext = ffi.cast('double (*)(luatorch_holder *, double, luatorch_tds_entry *)', F.hashNext)
core.hashLen = ffi.cast('double (*)(luatorch_holder *)', F.hashLen)
core.vecGet = ffi.cast('int (*)(luatorch_holder *, double, luatorch_tds_out *)', F.vecGet)
core.vecSet = ffi.cast('int (*)(luatorch_holder *, double, int, double, const char *, size_t)', F.vecSet)
core.vecLen = ffi.cast('double (*)(luatorch_holder *)', F.vecLen)
core.counterInc = ffi.cast('double (*)(luatorch_holder *)', F.counterInc)
core.counterGet = ffi.cast('double (*)(luatorch_holder *)', F.counterGet)

core.hashes, core.vecs, core.counters = C.hashHolders, C.vecHolders, C.counterHolders
core.out = ffi.new('luatorch_tds_out')
core.entry = ffi.new('luatorch_tds_entry')

local string_of = ffi.string

-- A plain value of kind k from an output struct.
function core.plain(k, out)
   if k == 4 then return out.num end
   if k == 5 then return string_of(out.str, out.len) end
   if k == 3 then return true end
   if k == 2 then return false end
   return nil
end

-- A container's __len: the FFI count, or the native function's for a userdata without a holder.
function core.length(len, holders)
   return function(self)
      local n = len(holders[self])
      if n >= 0 then return n end
      return C.len(self)
   end
end

-- __eq: the same container.
core.same = C.same

---------------------------------------------------------------------------------------------------
-- C objects of other types (tds.elem.addctype): a class's set function turns a Lua object into a
-- pointer and its destructor, its get function turns the pointer back into a Lua object.

local setters, getters = {}, {}
core.setters, core.getters = setters, getters

core.type = torch and torch.typename or function() end

-- `v` as the native functions take it: a C object of an added type becomes a pending element.
function core.element(v)
   local t = type(v)
   if t == 'userdata' or t == 'cdata' then
      local class = core.type(v)
      local set = class and setters[class]
      if set then
         local p, free = set(v)
         return C.custom(tonumber(ffi.cast('intptr_t', p)), tonumber(ffi.cast('intptr_t', free)), class)
      end
   end
   return v
end

-- A value the native functions handed over: the value, or nil then the class and address of a C
-- object, which its get function turns into a Lua object.
function core.value(v, class, ptr)
   if class == nil then return v end
   local get = getters[class]
   if get == nil then
      error('tds: no get function for stored C objects of class ' .. tostring(class), 2)
   end
   return get(ffi.cast('void *', ptr))
end

-- The text of a value in a container's listing: its first line after the key, the others indented
-- as far (empty lines stay empty).
function core.listing(key_text, v, width)
   local pad, first = string.rep(' ', width), true
   local text = tostring(v):gsub('[^\n]+', function(line)
      local lead = first and key_text or pad
      first = false
      return lead .. line
   end)
   return text
end

return core
