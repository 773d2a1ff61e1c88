-- moses/object.lua -- object functions of Moses 1.x (keys, values, clone, pick...).
-- Returns a function that installs them into the shared `lib` table.  The is*
-- predicates live in moses/predicates.lua.

local pairs, ipairs, type, select = pairs, ipairs, type, select
local getmetatable = getmetatable
local tsort = table.sort

return function(lib, H)
  local shallowCopy = H.shallowCopy

  --------------------------------------------------------------------------------
  -- Object functions
  --------------------------------------------------------------------------------

  function lib.keys(obj)
    local out = {}
    for k in pairs(obj) do out[#out + 1] = k end
    return out
  end

  function lib.values(obj)
    local out = {}
    for _, v in pairs(obj) do out[#out + 1] = v end
    return out
  end

  function lib.kvpairs(obj)
    local out = {}
    for k, v in pairs(obj) do out[#out + 1] = { k, v } end
    return out
  end

  function lib.toObj(kvpairs)
    local out = {}
    for _, kv in ipairs(kvpairs) do out[kv[1]] = kv[2] end
    return out
  end

  function lib.property(key)
    return function(obj) return obj[key] end
  end

  function lib.propertyOf(obj)
    return function(key) return obj[key] end
  end

  function lib.toBoolean(value) return not not value end

  -- Later sources win; non-table sources are ignored.
  function lib.extend(dest, ...)
    for i = 1, select('#', ...) do
      local src = select(i, ...)
      if type(src) == 'table' then
        for k, v in pairs(src) do dest[k] = v end
      end
    end
    return dest
  end

  -- Sorted names of the function-valued fields of obj (default: this library).
  -- With recurseMt, tables reached through the metatables' __index are searched
  -- too, so inherited methods are listed; each name appears once.
  function lib.functions(obj, recurseMt)
    obj = obj or lib
    local names, seen, visited = {}, {}, {}
    local t = obj
    while type(t) == 'table' and not visited[t] do
      visited[t] = true
      for k, v in pairs(t) do
        if type(v) == 'function' and not seen[k] then
          seen[k] = true
          names[#names + 1] = k
        end
      end
      if not recurseMt then break end
      local mt = getmetatable(t)
      t = type(mt) == 'table' and mt.__index or nil
    end
    tsort(names)
    return names
  end

  -- Deep copy by default (shallow when asked).  Metatables are not carried over,
  -- as in 1.x; non-tables are returned as they are.  Shared and cyclic
  -- sub-tables are copied once.
  local function deepCopy(v, copies)
    if type(v) ~= 'table' then return v end
    if copies[v] then return copies[v] end
    local out = {}
    copies[v] = out
    for k, x in pairs(v) do out[k] = deepCopy(x, copies) end
    return out
  end

  function lib.clone(obj, shallow)
    if type(obj) ~= 'table' then return obj end
    if shallow then return shallowCopy(obj) end
    return deepCopy(obj, {})
  end

  function lib.tap(obj, f, ...)
    f(obj, ...)
    return obj
  end

  function lib.has(obj, key)
    return obj[key] ~= nil
  end

  -- Keys may be given as arguments or in (nested) tables of keys.
  function lib.pick(obj, ...)
    local out = {}
    for _, key in ipairs(lib.flatten({ ... })) do
      if obj[key] ~= nil then out[key] = obj[key] end
    end
    return out
  end

  function lib.omit(obj, ...)
    local blacklist = lib.flatten({ ... })
    local out = {}
    for k, v in pairs(obj) do
      if not lib.include(blacklist, k) then out[k] = v end
    end
    return out
  end

  -- Fills in what obj lacks from template; existing fields are kept.
  function lib.template(obj, template)
    if template then
      for k, v in pairs(template) do
        if obj[k] == nil then obj[k] = v end
      end
    end
    return obj
  end

  -- obj[method](obj, ...) when callable, obj[method] when a plain value; a
  -- callable `method` absent from obj is applied as method(obj, ...).
  function lib.result(obj, method, ...)
    local m = obj[method]
    if m then
      if lib.isCallable(m) then return m(obj, ...) end
      return m
    end
    if lib.isCallable(method) then return method(obj, ...) end
    return nil
  end
end
