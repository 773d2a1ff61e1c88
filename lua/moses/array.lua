-- moses/array.lua -- array functions of Moses 1.x (they walk indices 1..#t).
-- Returns a function that installs them into the shared `lib` table; other
-- library functions are looked up in `lib` when called.

local pairs, ipairs, type, select = pairs, ipairs, type, select
local tostring = tostring
local floor, random, randomseed = math.floor, math.random, math.randomseed
local mmin, mmax = math.min, math.max
local tsort, tconcat, tinsert, tremove = table.sort, table.concat, table.insert, table.remove
local unpack = table.unpack or unpack

return function(lib, H)
  local pack, less, copyRange, shallowCopy = H.pack, H.less, H.copyRange, H.shallowCopy
  local isEqual = lib.isEqual  -- installed by moses.predicates

  --------------------------------------------------------------------------------
  -- Array functions (walk indices 1..#t)
  --------------------------------------------------------------------------------

  -- One value when n is 1 (the default), else an array of n distinct picks.
  function lib.sample(array, n, seed)
    n = n or 1
    if n < 1 then return nil end
    if n == 1 then
      if seed then randomseed(seed) end
      if #array == 0 then return nil end
      return array[random(1, #array)]
    end
    return lib.slice(lib.shuffle(array, seed), 1, n)
  end

  -- Each element is kept independently with probability prob.
  function lib.sampleProb(array, prob, seed)
    if seed then randomseed(seed) end
    local out = {}
    for i = 1, #array do
      if random() < prob then out[#out + 1] = array[i] end
    end
    return out
  end

  function lib.toArray(...) return { ... } end

  -- First index (from `from`, default 1) holding a value isEqual to `value`.
  function lib.find(array, value, from)
    for i = from or 1, #array do
      if isEqual(array[i], value) then return i end
    end
    return nil
  end

  function lib.reverse(array)
    local out, n = {}, #array
    for i = n, 1, -1 do out[#out + 1] = array[i] end
    return out
  end

  -- In place; j past the end grows the array.
  function lib.fill(array, value, i, j)
    for k = i or 1, j or #array do array[k] = value end
    return array
  end

  function lib.selectWhile(array, f, ...)
    local out = {}
    for i, v in ipairs(array) do
      if not f(i, v, ...) then break end
      out[i] = v
    end
    return out
  end

  function lib.dropWhile(array, f, ...)
    for i, v in ipairs(array) do
      if not f(i, v, ...) then return lib.rest(array, i) end
    end
    return {}
  end

  -- Index where value would go to keep the array sorted; `sort` sorts it first.
  function lib.sortedIndex(array, value, comp, sort)
    comp = comp or less
    if sort then tsort(array, comp) end
    for i = 1, #array do
      if not comp(array[i], value) then return i end
    end
    return #array + 1
  end

  -- indexOf/lastIndexOf compare with ==, unlike find which uses isEqual.
  function lib.indexOf(array, value)
    for i = 1, #array do
      if array[i] == value then return i end
    end
    return nil
  end

  function lib.lastIndexOf(array, value)
    for i = #array, 1, -1 do
      if array[i] == value then return i end
    end
    return nil
  end

  function lib.findIndex(array, pred, ...)
    for i = 1, #array do
      if pred(i, array[i], ...) then return i end
    end
    return nil
  end

  function lib.findLastIndex(array, pred, ...)
    for i = #array, 1, -1 do
      if pred(i, array[i], ...) then return i end
    end
    return nil
  end

  -- Each argument in turn goes to the front, so the last one ends up first.
  function lib.addTop(array, ...)
    for i = 1, select('#', ...) do
      local v = select(i, ...)
      if v ~= nil then tinsert(array, 1, v) end
    end
    return array
  end

  function lib.push(array, ...)
    for i = 1, select('#', ...) do
      local v = select(i, ...)
      if v ~= nil then array[#array + 1] = v end
    end
    return array
  end

  -- Removes the first n (default 1) values and returns them as multiple results.
  function lib.pop(array, n)
    n = mmin(n or 1, #array)
    local out = {}
    for i = 1, n do out[i] = tremove(array, 1) end
    return unpack(out, 1, n)
  end

  -- Removes the last n (default 1) values; the last one comes back first.
  function lib.unshift(array, n)
    n = mmin(n or 1, #array)
    local out = {}
    for i = 1, n do out[i] = tremove(array) end
    return unpack(out, 1, n)
  end

  -- In place: drops every element isEqual to one of the arguments.
  function lib.pull(array, ...)
    local doomed = pack(...)
    for i = #array, 1, -1 do
      for d = 1, doomed.n do
        if isEqual(array[i], doomed[d]) then
          tremove(array, i)
          break
        end
      end
    end
    return array
  end

  -- Returns a copy without indices start..finish (both clamped to the array).
  function lib.removeRange(array, start, finish)
    local out = shallowCopy(array)
    local n = #out
    if n < 1 then return out end
    start = mmax(1, mmin(start or 1, n))
    finish = mmax(1, mmin(finish or n, n))
    if finish < start then return out end
    for _ = start, finish do tremove(out, start) end
    return out
  end

  -- Consecutive elements giving the same f(k, v, ...) go in the same chunk.
  -- Non-arrays are handed back unchanged, as in 1.x.
  function lib.chunk(array, f, ...)
    if not lib.isArray(array) then return array end
    f = f or function(_, v) return v end
    local chunks, current, last = {}, nil, nil
    for i = 1, #array do
      local tag = f(i, array[i], ...)
      if current == nil or tag ~= last then
        current = {}
        chunks[#chunks + 1] = current
      end
      current[#current + 1] = array[i]
      last = tag
    end
    return chunks
  end

  -- array[start..finish], defaults 1 and #array; out-of-range bounds are clipped.
  function lib.slice(array, start, finish)
    return copyRange(array, mmax(start or 1, 1), mmin(finish or #array, #array))
  end

  function lib.first(array, n)
    return lib.slice(array, 1, mmin(n or 1, #array))
  end

  -- All but the last n (default 1); nil for a negative n, as in 1.x.
  function lib.initial(array, n)
    if n and n < 0 then return nil end
    local len = #array
    local stop = n and (len - mmin(n, len)) or (len - 1)
    return lib.slice(array, 1, stop)
  end

  -- The last n values; without n, all but the first.  nil for n <= 0, as in 1.x.
  function lib.last(array, n)
    if n and n <= 0 then return nil end
    local len = #array
    local start = n and (len - mmin(n - 1, len - 1)) or 2
    return lib.slice(array, start, len)
  end

  -- Values from `index` (default 1) onwards.
  function lib.rest(array, index)
    local len = #array
    if index and index > len then return {} end
    return lib.slice(array, index and mmax(1, index) or 1, len)
  end

  function lib.nth(array, index) return array[index] end

  -- Drops false and nil, packing what is left into a sequence.
  function lib.compact(array)
    local out = {}
    for _, v in pairs(array) do
      if v then out[#out + 1] = v end
    end
    return out
  end

  function lib.flatten(array, shallow)
    local out = {}
    for _, v in pairs(array) do
      if type(v) == 'table' then
        local inner = shallow and v or lib.flatten(v)
        for _, w in pairs(inner) do out[#out + 1] = w end
      else
        out[#out + 1] = v
      end
    end
    return out
  end

  -- Without a second array, a copy of the first.
  function lib.difference(array, array2)
    if not array2 then return shallowCopy(array) end
    return lib.select(array, function(_, v) return not lib.include(array2, v) end)
  end

  -- Deep-flattens its arguments, then removes duplicates (1.x behaviour).
  function lib.union(...)
    return lib.unique(lib.flatten({ ... }))
  end

  -- Values of `array` found in every other argument; order and repeats kept.
  function lib.intersection(array, ...)
    local others = { ... }
    local out = {}
    for _, v in ipairs(array) do
      if lib.all(others, function(_, other) return lib.include(other, v) end) then
        out[#out + 1] = v
      end
    end
    return out
  end

  function lib.symmetricDifference(array, array2)
    return lib.difference(lib.union(array, array2), lib.intersection(array, array2))
  end

  -- First occurrences kept, compared with isEqual.
  function lib.unique(array)
    local out = {}
    for i = 1, #array do
      local v = array[i]
      if not lib.find(out, v) then out[#out + 1] = v end
    end
    return out
  end

  function lib.isunique(array)
    return isEqual(array, lib.unique(array))
  end

  -- Longest length among the given arrays.
  local function longest(arrays)
    local len = 0
    for i = 1, arrays.n do
      if type(arrays[i]) == 'table' then len = mmax(len, #arrays[i]) end
    end
    return len
  end

  -- Row i holds the i-th value of each array; missing values are skipped, so
  -- rows of shorter arrays are shorter.
  function lib.zip(...)
    local arrays = pack(...)
    local out = {}
    for i = 1, longest(arrays) do
      local row = {}
      for a = 1, arrays.n do
        local v = arrays[a] and arrays[a][i]
        if v ~= nil then row[#row + 1] = v end
      end
      out[i] = row
    end
    return out
  end

  function lib.append(array, other)
    local out = {}
    for _, v in ipairs(array) do out[#out + 1] = v end
    for _, v in ipairs(other) do out[#out + 1] = v end
    return out
  end

  -- zip, then laid out flat (one level only: table elements stay whole).
  function lib.interleave(...)
    local arrays = pack(...)
    local out = {}
    for i = 1, longest(arrays) do
      for a = 1, arrays.n do
        local v = arrays[a] and arrays[a][i]
        if v ~= nil then out[#out + 1] = v end
      end
    end
    return out
  end

  function lib.interpose(value, array)
    local out, n = {}, #array
    for i = 1, n do
      out[#out + 1] = array[i]
      if i < n and value ~= nil then out[#out + 1] = value end
    end
    return out
  end

  -- range(stop) counts from 0; range(start, stop[, step]).  The 1.x arithmetic is
  -- kept exactly: floor((stop - start) / step) steps are taken, and a range with
  -- no step at all (e.g. range(1, 1), or a step of the wrong sign) is empty.
  function lib.range(...)
    -- trailing nils do not count as arguments: range(n, nil) is range(n)
    local args = { ... }
    local nargs = #args
    local start, stop, step
    if nargs == 0 then
      return {}
    elseif nargs == 1 then
      start, stop, step = 0, args[1], 1
    else
      start, stop, step = args[1], args[2], args[3] or 1
    end
    if step == 0 then return {} end
    local steps = mmax(floor((stop - start) / step), 0)
    local out = {}
    if steps == 0 then return out end
    for i = 0, steps do out[i + 1] = start + step * i end
    return out
  end

  function lib.rep(value, n)
    local out = {}
    for i = 1, n do out[i] = value end
    return out
  end

  -- Pads `window` with `pad` up to n elements (pad == nil means no padding).
  local function padTo(window, n, pad)
    if pad ~= nil then
      for i = #window + 1, n do window[i] = pad end
    end
    return window
  end

  -- Iterator over consecutive pieces of n values (default 1).
  function lib.partition(array, n, pad)
    n = n or 1
    if n <= 0 then return nil end
    local pos = 1
    return function()
      if pos > #array then return nil end
      local piece = lib.slice(array, pos, pos + n - 1)
      pos = pos + n
      return padTo(piece, n, pad)
    end
  end

  -- Iterator over windows of n values (default 2) that share their end points:
  -- each window starts where the previous one ended.
  function lib.sliding(array, n, pad)
    n = n or 2
    if n <= 1 then return nil end
    local pos = 1
    return function()
      local len = #array
      -- a window starting on the last element would only repeat it: stop there
      if pos >= len then return nil end
      local window = lib.slice(array, pos, pos + n - 1)
      pos = pos + n - 1
      return padTo(window, n, pad)
    end
  end

  -- Iterator over all orderings of the array.  Each result is a fresh table and
  -- the input is left as it was.
  function lib.permutation(array)
    local work = copyRange(array, 1, #array)
    local function permute(k)
      if k <= 1 then
        coroutine.yield(copyRange(work, 1, #work))
        return
      end
      for i = 1, k do
        work[i], work[k] = work[k], work[i]
        permute(k - 1)
        work[i], work[k] = work[k], work[i]
      end
    end
    local co = coroutine.create(function() permute(#work) end)
    return function()
      if coroutine.status(co) == 'dead' then return nil end
      local ok, p = coroutine.resume(co)
      if not ok then error(p, 2) end
      return p
    end
  end

  function lib.invert(array)
    local out = {}
    for k, v in pairs(array) do out[v] = k end
    return out
  end

  -- Like table.concat, but any value (booleans too) goes through tostring.
  function lib.concat(array, sep, i, j)
    local strs = {}
    for k, v in pairs(array) do strs[k] = tostring(v) end
    return tconcat(strs, sep or '', i or 1, j or #array)
  end
end
