-- moses/table.lua -- table functions of Moses 1.x (they walk every key with pairs).
-- Returns a function that installs them into the shared `lib` table; other
-- library functions are looked up in `lib` when called.

local pairs, ipairs, next, type, select = pairs, ipairs, next, type, select
local random, randomseed = math.random, math.randomseed
local tsort = table.sort
local unpack = table.unpack or unpack

return function(lib, H)
  local pack, less, countPairs = H.pack, H.less, H.countPairs
  local isEqual = lib.isEqual  -- installed by moses.predicates

  --------------------------------------------------------------------------------
  -- Table functions (walk every key with pairs)
  --------------------------------------------------------------------------------

  -- Empties t in place (clearing fields during a pairs walk is allowed in Lua).
  function lib.clear(t)
    for k in pairs(t) do t[k] = nil end
    return t
  end

  function lib.each(t, f, ...)
    for k, v in pairs(t) do f(k, v, ...) end
  end

  -- Integer keys only (negative and zero included), in increasing order.
  function lib.eachi(t, f, ...)
    local keys = {}
    for k in pairs(t) do
      if lib.isInteger(k) then keys[#keys + 1] = k end
    end
    tsort(keys)
    for _, k in ipairs(keys) do f(k, t[k], ...) end
  end

  function lib.at(t, ...)
    local out = {}
    for i = 1, select('#', ...) do
      local v = t[(select(i, ...))]
      if v ~= nil then out[#out + 1] = v end
    end
    return out
  end

  -- Without a value to look for, count() is size().
  function lib.count(t, value)
    if value == nil then return lib.size(t) end
    local n = 0
    for _, v in pairs(t) do
      if isEqual(v, value) then n = n + 1 end
    end
    return n
  end

  function lib.countf(t, f, ...)
    local n = 0
    for k, v in pairs(t) do
      if f(k, v, ...) then n = n + 1 end
    end
    return n
  end

  -- Iterator over the pairs of t, restarted until n full rounds are done.
  function lib.cycle(t, n)
    n = n or 1
    if n <= 0 or next(t) == nil then return lib.noop end
    local key, round = nil, 1
    return function()
      local k = next(t, key)
      if k == nil then
        round = round + 1
        if round > n then return nil end
        k = next(t)
      end
      key = k
      return k, t[k]
    end
  end

  -- f(k, v, ...) returning one value keeps the key; returning a second, truthy,
  -- value maps the pair to a new pair (first result is the new key).
  function lib.map(t, f, ...)
    local out = {}
    for k, v in pairs(t) do
      local r1, r2 = f(k, v, ...)
      if r2 then
        out[r1] = r2
      else
        out[k] = r1
      end
    end
    return out
  end

  -- The state starts as the first value when none is given.  pairs order is the
  -- array order for sequences, which is what the fold-based helpers rely on.
  function lib.reduce(t, f, state)
    for _, v in pairs(t) do
      if state == nil then
        state = v
      else
        state = f(state, v)
      end
    end
    return state
  end

  function lib.reduceby(t, f, state, pred, ...)
    return lib.reduce(lib.select(t, pred, ...), f, state)
  end

  function lib.reduceRight(t, f, state)
    return lib.reduce(lib.reverse(t), f, state)
  end

  -- Like reduce, but every intermediate state is kept, at the key it was made at.
  function lib.mapReduce(t, f, state)
    local out = {}
    for k, v in pairs(t) do
      if state == nil then
        state = v
      else
        state = f(state, v)
      end
      out[k] = state
    end
    return out
  end

  function lib.mapReduceRight(t, f, state)
    return lib.mapReduce(lib.reverse(t), f, state)
  end

  -- A function `value` is used as a matcher, called as value(v, value).
  local function matcherFor(value)
    if type(value) == 'function' then return value end
    return isEqual
  end

  function lib.include(t, value)
    local match = matcherFor(value)
    for _, v in pairs(t) do
      if match(v, value) then return true end
    end
    return false
  end

  -- Same search as include, but answers with the key.
  function lib.detect(t, value)
    local match = matcherFor(value)
    for k, v in pairs(t) do
      if match(v, value) then return k end
    end
    return nil
  end

  local function hasProps(obj, props)
    for k, pv in pairs(props) do
      if obj[k] ~= pv then return false end
    end
    return true
  end

  -- 1.x answers nil, not {}, when nothing matches.
  function lib.where(t, props)
    local out = {}
    for _, v in pairs(t) do
      if hasProps(v, props) then out[#out + 1] = v end
    end
    if #out == 0 then return nil end
    return out
  end

  function lib.findWhere(t, props)
    for _, v in pairs(t) do
      if hasProps(v, props) then return v end
    end
    return nil
  end

  function lib.select(t, f, ...)
    local out = {}
    for k, v in pairs(t) do
      if f(k, v, ...) then out[#out + 1] = v end
    end
    return out
  end

  function lib.reject(t, f, ...)
    local out = {}
    for k, v in pairs(t) do
      if not f(k, v, ...) then out[#out + 1] = v end
    end
    return out
  end

  function lib.all(t, f, ...)
    for k, v in pairs(t) do
      if not f(k, v, ...) then return false end
    end
    return true
  end

  -- A method given by name is looked up on each value (and called as a method
  -- when callable); a callable method is applied to values that lack such a key.
  local function invokeOne(v, method, args)
    if type(v) == 'table' and v[method] ~= nil then
      local m = v[method]
      if lib.isCallable(m) then return (m(v, unpack(args, 1, args.n))) end
      return m
    end
    if lib.isCallable(method) then
      return (method(v, unpack(args, 1, args.n)))
    end
    return nil
  end

  function lib.invoke(t, method, ...)
    local args = pack(...)
    local out = {}
    for k, v in pairs(t) do out[k] = invokeOne(v, method, args) end
    return out
  end

  -- Missing (nil) properties are skipped, so the result is a packed array.
  function lib.pluck(t, key)
    local out = {}
    for _, v in pairs(t) do
      local p = v[key]
      if p ~= nil then out[#out + 1] = p end
    end
    return out
  end

  -- max/min answer with the transformed value, not the element carrying it.
  local function extreme(t, better, transform, ...)
    transform = transform or lib.identity
    local best
    for _, v in pairs(t) do
      local x = transform(v, ...)
      if best == nil or better(x, best) then best = x end
    end
    return best
  end

  function lib.max(t, transform, ...)
    return extreme(t, function(a, b) return a > b end, transform, ...)
  end

  function lib.min(t, transform, ...)
    return extreme(t, less, transform, ...)
  end

  -- Returns a shuffled copy (inside-out Fisher-Yates); t itself is not touched.
  function lib.shuffle(t, seed)
    if seed then randomseed(seed) end
    local out = {}
    for i = 1, #t do
      local j = random(1, i)
      out[i] = out[j]
      out[j] = t[i]
    end
    return out
  end

  -- Same values on both sides, wherever they sit.
  function lib.same(a, b)
    for _, v in pairs(a) do
      if not lib.include(b, v) then return false end
    end
    for _, v in pairs(b) do
      if not lib.include(a, v) then return false end
    end
    return true
  end

  function lib.sort(t, comp)
    tsort(t, comp)
    return t
  end

  -- New array ordered by comp(transform(a), transform(b)); a string transform
  -- names a property to sort on.
  function lib.sortBy(t, transform, comp)
    local key = transform or lib.identity
    if type(transform) == 'string' then
      key = function(v) return v[transform] end
    end
    comp = comp or less
    local decorated = {}
    for _, v in pairs(t) do
      decorated[#decorated + 1] = { v = v, k = key(v) }
    end
    tsort(decorated, function(a, b) return comp(a.k, b.k) end)
    local out = {}
    for i, d in ipairs(decorated) do out[i] = d.v end
    return out
  end

  function lib.groupBy(t, iter, ...)
    local groups = {}
    for k, v in pairs(t) do
      local g = iter(k, v, ...)
      local bucket = groups[g]
      if bucket then
        bucket[#bucket + 1] = v
      else
        groups[g] = { v }
      end
    end
    return groups
  end

  function lib.countBy(t, iter, ...)
    local counts = {}
    for k, v in pairs(t) do
      local g = iter(k, v, ...)
      counts[g] = (counts[g] or 0) + 1
    end
    return counts
  end

  -- size(t) counts pairs of t; size(a, b, ...) counts the non-nil arguments.
  function lib.size(...)
    local first = ...
    if type(first) == 'table' then return countPairs(first) end
    local n = 0
    for i = 1, select('#', ...) do
      if select(i, ...) ~= nil then n = n + 1 end
    end
    return n
  end

  -- Only keys are compared; values are ignored.
  function lib.containsKeys(t, other)
    for k in pairs(other) do
      if t[k] == nil then return false end
    end
    return true
  end

  function lib.sameKeys(a, b)
    return lib.containsKeys(a, b) and lib.containsKeys(b, a)
  end
end
