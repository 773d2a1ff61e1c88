-- moses/func.lua -- utility functions of Moses 1.x (function combinators etc.).
-- Returns a function that installs them into the shared `lib` table.  Their
-- private state (memoize's nil stand-ins, the uniqueId counter) is created
-- anew on each install, i.e. each time the moses package is loaded.

local type, select, setmetatable = type, select, setmetatable
local mmin, mmax = math.min, math.max
local unpack = table.unpack or unpack
local clock = os.clock

return function(lib, H)
  local pack, copyRange = H.pack, H.copyRange

  --------------------------------------------------------------------------------
  -- Utility functions
  --------------------------------------------------------------------------------

  function lib.noop() end

  function lib.identity(value) return value end

  function lib.constant(value)
    return function() return value end
  end

  -- Stand-ins for nil, which can be neither a table key nor a stored value.
  local NIL_KEY, NIL_RESULT = {}, {}

  -- Caches the first result of f per hash(...) (default: the first argument).
  function lib.memoize(f, hash)
    hash = hash or lib.identity
    local cache = setmetatable({}, { __mode = 'k' })
    return function(...)
      local key = hash(...)
      if key == nil then key = NIL_KEY end
      local r = cache[key]
      if r == nil then
        r = f(...)
        if r == nil then r = NIL_RESULT end
        cache[key] = r
      end
      if r == NIL_RESULT then return nil end
      return r
    end
  end

  -- Runs f on the first `count` calls; later calls repeat the last results.
  function lib.before(f, count)
    local calls, last = 0, { n = 0 }
    return function(...)
      if calls < count then
        calls = calls + 1
        last = pack(f(...))
      end
      return unpack(last, 1, last.n)
    end
  end

  function lib.once(f)
    return lib.before(f, 1)
  end

  -- Silent until the count-th call, then f runs on that call and every later one.
  function lib.after(f, count)
    local calls = 0
    return function(...)
      calls = calls + 1
      if calls >= count then return f(...) end
    end
  end

  -- compose(f, g, h)(...) == f(g(h(...))); inner results pass on as one value.
  function lib.compose(...)
    local fs = pack(...)
    return function(...)
      if fs.n == 0 then return nil end
      local r = (fs[fs.n](...))
      for i = fs.n - 1, 1, -1 do r = (fs[i](r)) end
      return r
    end
  end

  -- pipe(x, f, g, h) == compose(f, g, h)(x), as in 1.x.
  function lib.pipe(value, ...)
    return lib.compose(...)(value)
  end

  function lib.complement(f)
    return function(...) return not f(...) end
  end

  -- f1(value), f2(value), ... as multiple results.
  function lib.juxtapose(value, ...)
    local fs, out = pack(...), {}
    for i = 1, fs.n do out[i] = (fs[i](value)) end
    return unpack(out, 1, fs.n)
  end

  function lib.wrap(f, wrapper)
    return function(...) return wrapper(f, ...) end
  end

  -- Array of iter(i, ...) for i = 1..n.
  function lib.times(n, iter, ...)
    local out = {}
    for i = 1, n do out[i] = iter(i, ...) end
    return out
  end

  function lib.bind(f, v)
    return function(...) return f(v, ...) end
  end

  function lib.bind2(f, v)
    return function(first, ...) return f(first, v, ...) end
  end

  -- Joins two packed argument lists, keeping nils in place.
  local function joinArgs(a, b)
    local out = { n = a.n + b.n }
    for i = 1, a.n do out[i] = a[i] end
    for i = 1, b.n do out[a.n + i] = b[i] end
    return out
  end

  function lib.bindn(f, ...)
    local bound = pack(...)
    return function(...)
      local args = joinArgs(bound, pack(...))
      return f(unpack(args, 1, args.n))
    end
  end

  -- Named methods become closures that always receive obj as self.
  function lib.bindAll(obj, ...)
    for i = 1, select('#', ...) do
      local name = select(i, ...)
      local method = obj[name]
      if method then obj[name] = lib.bind(method, obj) end
    end
    return obj
  end

  -- Session-wide counter; the first id handed out is 0, as in 1.x.
  local lastId = -1

  function lib.uniqueId(template, ...)
    lastId = lastId + 1
    if type(template) == 'string' then return template:format(lastId) end
    if type(template) == 'function' then return template(lastId, ...) end
    return lastId
  end

  -- Each call answers f of the previous answer, starting from f(x).
  function lib.iterator(f, x)
    return function()
      x = f(x)
      return x
    end
  end

  -- Drains a generic-for iterator triple (f, s, var) into an array of first values.
  function lib.array(...)
    local out = {}
    for v in ... do out[#out + 1] = v end
    return out
  end

  function lib.flip(f)
    return function(...)
      local args, n = pack(...), select('#', ...)
      local rev = {}
      for i = 1, n do rev[i] = args[n - i + 1] end
      return f(unpack(rev, 1, n))
    end
  end

  -- Function answering an array with each transform applied to the same args.
  function lib.over(...)
    local fs = pack(...)
    return function(...)
      local out = {}
      for i = 1, fs.n do out[#out + 1] = (fs[i](...)) end
      return out
    end
  end

  -- All predicates must agree; answers like an `and` chain over their results.
  function lib.overEvery(...)
    local preds = pack(...)
    return function(...)
      local r
      for i = 1, preds.n do
        r = preds[i](...)
        if not r then return r end
      end
      return r
    end
  end

  -- Any predicate suffices; answers like an `or` chain over their results.
  function lib.overSome(...)
    local preds = pack(...)
    return function(...)
      local r
      for i = 1, preds.n do
        r = preds[i](...)
        if r then return r end
      end
      return r
    end
  end

  -- The i-th argument goes through the i-th transform; extra arguments pass as-is.
  function lib.overArgs(f, ...)
    local transforms = pack(...)
    return function(...)
      local args = pack(...)
      for i = 1, mmin(transforms.n, args.n) do
        if args[i] ~= nil then args[i] = transforms[i](args[i]) end
      end
      return f(unpack(args, 1, args.n))
    end
  end

  -- The string '_' in a preset list marks a slot to be filled at call time.
  local PLACEHOLDER = '_'

  -- Fills the placeholders of `preset` from the front of `given`; returns the
  -- completed preset and what is left of `given`.
  local function fillPlaceholders(preset, given)
    local filled, used = { n = preset.n }, 0
    for i = 1, preset.n do
      if preset[i] == PLACEHOLDER then
        used = used + 1
        filled[i] = given[used]
      else
        filled[i] = preset[i]
      end
    end
    local rest = { n = mmax(given.n - used, 0) }
    for i = 1, rest.n do rest[i] = given[used + i] end
    return filled, rest
  end

  function lib.partial(f, ...)
    local preset = pack(...)
    return function(...)
      local filled, rest = fillPlaceholders(preset, pack(...))
      local args = joinArgs(filled, rest)
      return f(unpack(args, 1, args.n))
    end
  end

  -- The preset arguments go last; call-time arguments left over go first.
  function lib.partialRight(f, ...)
    local preset = pack(...)
    return function(...)
      local filled, rest = fillPlaceholders(preset, pack(...))
      local args = joinArgs(rest, filled)
      return f(unpack(args, 1, args.n))
    end
  end

  -- curry(f, n)(a)(b)...: one argument per call until n (default 2) are known.
  -- Every partial application is independent, so curried functions can be reused.
  -- A nil argument does not count, as in 1.x.
  function lib.curry(f, n_args)
    n_args = n_args or 2
    if n_args <= 1 then
      return function(v) return f(v) end
    end
    local function collect(known)
      return function(v)
        local args = known
        if v ~= nil then
          args = copyRange(known, 1, #known)
          args[#args + 1] = v
        end
        if #args >= n_args then return f(unpack(args, 1, #args)) end
        return collect(args)
      end
    end
    return collect({})
  end

  -- CPU seconds spent in f(...), followed by f's own results.
  function lib.time(f, ...)
    local t0 = clock()
    local r = pack(f(...))
    return clock() - t0, unpack(r, 1, r.n)
  end
end
