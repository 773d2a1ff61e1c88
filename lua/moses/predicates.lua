-- moses/predicates.lua -- the is* object predicates of Moses 1.x.
-- Returns a function that installs them into the shared `lib` table.
-- moses/init.lua installs this part first: the other parts capture
-- lib.isEqual when they are installed.

local pairs, next, type, pcall = pairs, next, type, pcall
local rawequal, getmetatable = rawequal, getmetatable
local floor, huge = math.floor, math.huge

return function(lib, H)
  local countPairs = H.countPairs

  --------------------------------------------------------------------------------
  -- Object predicates (defined first: everything below leans on them)
  --------------------------------------------------------------------------------

  function lib.isTable(t) return type(t) == 'table' end
  function lib.isString(x) return type(x) == 'string' end
  function lib.isFunction(x) return type(x) == 'function' end
  function lib.isNumber(x) return type(x) == 'number' end
  function lib.isBoolean(x) return type(x) == 'boolean' end
  function lib.isNil(x) return x == nil end

  -- NaN is the only value that differs from itself.
  function lib.isNaN(x) return type(x) == 'number' and x ~= x end

  function lib.isFinite(x)
    return type(x) == 'number' and x > -huge and x < huge
  end

  -- 1.x counts +/-inf as integers (floor(inf) == inf) and NaN as not.
  function lib.isInteger(x)
    return type(x) == 'number' and floor(x) == x
  end

  -- Callable means a function, or an object whose metatable provides __call.
  function lib.isCallable(x)
    local tx = type(x)
    if tx == 'function' then return true end
    if tx == 'table' or tx == 'userdata' then
      local mt = getmetatable(x)
      return type(mt) == 'table' and mt.__call ~= nil
    end
    return false
  end

  -- An array here is a table whose keys are exactly 1..n (no holes, no hash part).
  function lib.isArray(x)
    if type(x) ~= 'table' then return false end
    local i = 0
    for _ in pairs(x) do
      i = i + 1
      if x[i] == nil then return false end
    end
    return true
  end

  function lib.isIterable(x)
    return (pcall(pairs, x))
  end

  -- nil, '' and {} are empty; 1.x also calls every non-string, non-table value empty.
  function lib.isEmpty(x)
    if x == nil then return true end
    if type(x) == 'string' then return #x == 0 end
    if type(x) == 'table' then return next(x) == nil end
    return true
  end

  -- Deep structural comparison.  With useMt, an __eq metamethod on either side
  -- decides (1.x behaviour); otherwise tables match when they hold equal values at
  -- the same keys.
  local function isEqual(a, b, useMt)
    local ta = type(a)
    if ta ~= type(b) then return false end
    if ta ~= 'table' then return a == b end
    if useMt then
      local ma, mb = getmetatable(a), getmetatable(b)
      local ea = type(ma) == 'table' and ma.__eq or nil
      local eb = type(mb) == 'table' and mb.__eq or nil
      if ea or eb then
        return (ea and ea(a, b)) or (eb and eb(b, a)) or rawequal(a, b) or false
      end
    end
    if rawequal(a, b) then return true end  -- also stops on self-referencing tables
    if countPairs(a) ~= countPairs(b) then return false end
    for k, va in pairs(a) do
      local vb = b[k]
      if vb == nil or not isEqual(va, vb, useMt) then return false end
    end
    for k in pairs(b) do
      if a[k] == nil then return false end
    end
    return true
  end
  lib.isEqual = isEqual
end
