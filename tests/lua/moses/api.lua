-- moses (the 1.x API, lua/moses): every function and alias, chaining and import, and the calls nn, dpnn and rnn make.
local _ = require 'moses'

local passed, failed = 0, 0
local function check(name, fn)
  local ok, err = pcall(fn)
  if ok then
    passed = passed + 1
  else
    failed = failed + 1
    print('FAIL ' .. name .. ': ' .. tostring(err))
  end
end

local eq = _.isEqual
local function same(a, b) assert(_.same(a, b), 'not the same values') end
local function is(a, b) assert(eq(a, b), 'values differ') end

-- Collects what an iterator yields.
local function drain(it)
  local out = {}
  if it then for v in it do out[#out + 1] = v end end
  return out
end

--------------------------------------------------------------------------------
-- Table functions
--------------------------------------------------------------------------------

check('clear', function()
  local t = { 1, 2, x = 3 }
  assert(_.clear(t) == t and next(t) == nil)
end)

check('each passes (key, value, ...)', function()
  local seen = {}
  _.each({ 'a', 'b', x = 'c' }, function(k, v, extra) seen[k] = v .. extra end, '!')
  is(seen, { 'a!', 'b!', x = 'c!' })
  assert(_.forEach == _.each)
end)

check('eachi: integer keys in order', function()
  local keys = {}
  _.eachi({ a = 1, [0] = 1, [-1] = 6, 3, x = 4, 5, [2.5] = 0 }, function(k) keys[#keys + 1] = k end)
  is(keys, { -1, 0, 1, 2 })
  assert(_.forEachi == _.eachi)
end)

check('at', function()
  is(_.at({ 4, 5, 6 }, 1, 3), { 4, 6 })
  is(_.at({ a = 4, b = true, c = false }, 'a', 'c', 'zz'), { 4, false })
end)

check('count / countf', function()
  assert(_.count({ 1, 1, 2, 3, 3, 3 }, 3) == 3)
  assert(_.count({ { 1 }, { 1 }, { 2 } }, { 1 }) == 2)
  assert(_.count({ false, false, true }, false) == 2)
  assert(_.count({ 1, 2, x = 3 }) == 3)
  assert(_.countf({ 1, 2, 3, 4 }, function(k, v) return v % 2 == 0 end) == 2)
end)

check('cycle', function()
  local ks = {}
  for k, v in _.cycle({ 'a', 'b' }, 3) do ks[#ks + 1] = k .. v end
  is(ks, { '1a', '2b', '1a', '2b', '1a', '2b' })
  assert(#drain(_.cycle({ 1, 2 })) == 2)      -- n defaults to 1
  assert(#drain(_.cycle({ 1, 2 }, 0)) == 0)
  assert(#drain(_.cycle({}, 5)) == 0)
  assert(_.loop == _.cycle)
end)

check('map: f(key, value), keys kept', function()
  is(_.map({ 1, 2, 3 }, function(k, v) return v + 10 end), { 11, 12, 13 })
  is(_.map({ a = 1, b = 2 }, function(k, v) return k .. v end), { a = 'a1', b = 'b2' })
  is(_.map({ 1, 2 }, function(k, v, m) return v * m end, 3), { 3, 6 })
  assert(_.collect == _.map)
end)

check('map: two results map to a new pair', function()
  is(_.map({ a = 1, b = 2 }, function(k, v) return k .. k, v * 2 end), { aa = 2, bb = 4 })
  -- a falsy second result is ignored
  is(_.map({ a = 1 }, function(k, v) return v, false end), { a = 1 })
end)

check('reduce family', function()
  assert(_.reduce({ 1, 2, 3, 4 }, function(s, v) return s + v end) == 10)
  assert(_.reduce({ 1, 2, 3 }, function(s, v) return s + v end, 10) == 16)
  assert(_.reduce({ true, false, true }, function(s, v) return s and v end) == false)
  assert(_.reduceRight({ 1, 2, 4, 16 }, function(s, v) return s / v end, 256) == 2)
  assert(_.reduceRight({ 'a', 'b', 'c' }, function(s, v) return s .. v end) == 'cba')
  local neg = function(_, v) return v <= 0 end
  assert(_.reduceby({ -1, 8, 0, -6, 3 }, function(s, v) return s + v end, 0, neg) == -7)
  is(_.mapReduce({ 'a', 'b', 'c' }, function(s, v) return s .. v end), { 'a', 'ab', 'abc' })
  is(_.mapReduceRight({ 'a', 'b', 'c' }, function(s, v) return s .. v end), { 'c', 'cb', 'cba' })
  assert(_.inject == _.reduce and _.foldl == _.reduce)
  assert(_.injectr == _.reduceRight and _.foldr == _.reduceRight)
  assert(_.mapr == _.mapReduce and _.maprr == _.mapReduceRight)
end)

check('include / detect', function()
  assert(_.include({ 6, 8, 10 }, 8) == true)
  assert(_.include({ 6, 8, 10 }, 1) == false)
  assert(_.include({ 6, { 18, { 2 } } }, { 18, { 2 } }))
  assert(_.include({ 'a', 'B' }, function(v) return v:upper() == v end))
  assert(_.detect({ 6, 8, 10 }, 10) == 3)
  assert(_.detect({ 'a', 'B', 'c' }, function(v) return v:upper() == v end) == 2)
  assert(_.detect({ 1, 2 }, 5) == nil)
  assert(_.any == _.include and _.some == _.include and _.contains == _.include)
end)

check('where / findWhere', function()
  local a, b, c = { a = 1, b = 2 }, { a = 2, b = 2 }, { a = 2, b = 4 }
  local set = { a, b, c }
  is(_.where(set, { a = 2 }), { b, c })
  assert(_.where(set, { a = 9 }) == nil)
  assert(_.findWhere(set, { a = 2, b = 4 }) == c)
  assert(_.findWhere(set, { a = 9 }) == nil)
end)

check('select / reject / all', function()
  local even = function(k, v) return v % 2 == 0 end
  is(_.select({ 1, 2, 3, 4, 5 }, even), { 2, 4 })
  is(_.reject({ 1, 2, 3, 4, 5 }, even), { 1, 3, 5 })
  assert(_.all({ 2, 4 }, even) and not _.all({ 2, 3 }, even) and _.all({}, even))
  assert(_.filter == _.select and _.discard == _.reject and _.every == _.all)
end)

check('invoke / pluck', function()
  is(_.invoke({ 'a', 'bea' }, string.len), { 1, 3 })
  is(_.invoke({ { 2, 1 }, { 3, 0 } }, _.sort), { { 1, 2 }, { 0, 3 } })
  local obj = { n = 5 }
  function obj:get(d) return self.n + d end
  is(_.invoke({ obj, obj }, 'get', 1), { 6, 6 })
  is(_.invoke({ { x = 1 }, { x = 3 } }, 'x'), { 1, 3 })
  is(_.pluck({ { age = 1 }, {}, { age = 3 } }, 'age'), { 1, 3 })
end)

check('max / min answer the transformed value', function()
  assert(_.max({ 1, 3, 2 }) == 3 and _.min({ 'b', 'a', 'c' }) == 'a')
  local people = { { age = 23 }, { age = 17 }, { age = 33 } }
  assert(_.max(people, function(p) return p.age end) == 33)
  assert(_.min(people, function(p) return p.age end) == 17)
  assert(_.max({}) == nil)
end)

check('shuffle / same', function()
  local t = _.range(1, 20)
  local s = _.shuffle(t, 42)
  same(s, t)
  assert(s ~= t and #s == 20)
  assert(_.same({ 1, 2, 3 }, { 3, 1, 2 }) and not _.same({ 1, 2 }, { 1, 2, 3 }))
end)

check('sort / sortBy', function()
  local t = { 'b', 'a', 'c' }
  assert(_.sort(t) == t)
  is(t, { 'a', 'b', 'c' })
  is(_.sort({ 1, 3, 2 }, function(a, b) return a > b end), { 3, 2, 1 })
  is(_.sortBy({ 1, 2, 3, 4, 5 }, math.sin), { 5, 4, 3, 1, 2 })
  is(_.sortBy({ 3, 1, 2 }), { 1, 2, 3 })
  local p = { { n = 'a', v = 3 }, { n = 'b', v = 1 } }
  is(_.pluck(_.sortBy(p, 'v'), 'n'), { 'b', 'a' })
  is(_.pluck(_.sortBy(p, 'v', function(a, b) return a > b end), 'n'), { 'a', 'b' })
end)

check('groupBy / countBy', function()
  local parity = function(k, v) return v % 2 == 0 and 'even' or 'odd' end
  is(_.groupBy({ 0, 1, 2, 3 }, parity), { even = { 0, 2 }, odd = { 1, 3 } })
  is(_.countBy({ 0, 1, 2, 3, 4 }, parity), { even = 3, odd = 2 })
  is(_.groupBy({ 3, 10 }, function(k, v, m) return v % m == 0 end, 2), { [false] = { 3 }, [true] = { 10 } })
end)

check('size', function()
  assert(_.size({ 1, 2, x = 3 }) == 3 and _.size({ 1, 2 }, 3) == 2)
  assert(_.size(1, nil, 3) == 2 and _.size() == 0 and _.size(nil) == 0)
end)

check('containsKeys / sameKeys', function()
  assert(_.containsKeys({ 1, 2, 3 }, { 4, 5 }) and not _.containsKeys({ 1 }, { 4, 5 }))
  assert(_.sameKeys({ x = 1, y = 2 }, { x = 0, y = 0 }) and not _.sameKeys({ 1, 2 }, { 1 }))
end)

--------------------------------------------------------------------------------
-- Array functions
--------------------------------------------------------------------------------

check('sample / sampleProb', function()
  local t = _.range(1, 20)
  local s = _.sample(t, 5, 7)
  assert(#s == 5 and _.isunique(s))
  assert(_.include(t, _.sample(t)))
  assert(_.sample(t, 0) == nil)
  for _i, v in ipairs(_.sampleProb(t, 0.5, 3)) do assert(_.include(t, v)) end
  is(_.sampleProb(t, 0), {})
  is(_.sampleProb(t, 1), t)
end)

check('toArray / find / reverse', function()
  is(_.toArray(1, 'a', true), { 1, 'a', true })
  assert(_.find({ { 4 }, { 3 } }, { 3 }) == 2 and _.find({ 1, 4, 2, 4 }, 4, 3) == 4)
  assert(_.find({ 1 }, 9) == nil)
  is(_.reverse({ 1, 2, 'd' }), { 'd', 2, 1 })
end)

check('fill', function()
  is(_.fill({ 1, 2, 3 }, 0), { 0, 0, 0 })
  is(_.fill({ 1, 2, 3, 4, 5 }, 0, 2, 4), { 1, 0, 0, 0, 5 })
  is(_.fill({ 1, 2 }, 0, 2, 4), { 1, 0, 0, 0 })
end)

check('selectWhile / dropWhile', function()
  local even = function(i, v) return v % 2 == 0 end
  is(_.selectWhile({ 2, 4, 5, 8 }, even), { 2, 4 })
  is(_.dropWhile({ 2, 4, 5, 8 }, even), { 5, 8 })
  is(_.dropWhile({ 2, 4 }, even), {})
  assert(_.takeWhile == _.selectWhile and _.rejectWhile == _.dropWhile)
end)

check('sortedIndex / indexOf / lastIndexOf / findIndex / findLastIndex', function()
  assert(_.sortedIndex({ 1, 2, 3 }, 4) == 4 and _.sortedIndex({ -5, 0, 4, 4 }, 3) == 3)
  assert(_.sortedIndex({ 10, 0, 3 }, 4, nil, true) == 3)
  assert(_.indexOf({ 'a', 'd', 'd' }, 'd') == 2 and _.indexOf({ 1 }, 2) == nil)
  assert(_.indexOf({ { 1 } }, { 1 }) == nil)   -- plain ==, unlike find
  assert(_.lastIndexOf({ 1, 2, 2, 3 }, 2) == 3)
  local m3 = function(i, v) return v % 3 == 0 end
  assert(_.findIndex({ 1, 2, 3, 4, 5, 6 }, m3) == 3 and _.findLastIndex({ 1, 2, 3, 4, 5, 6 }, m3) == 6)
  assert(_.findIndex({ 1 }, m3) == nil and _.findLastIndex({ 1 }, m3) == nil)
end)

check('addTop / push / pop / unshift', function()
  is(_.addTop({ 1 }, 1, 2, 3), { 3, 2, 1, 1 })
  is(_.push({ 1 }, 2, 3), { 1, 2, 3 })
  local t = { 1, 2, 3, 4 }
  assert(_.pop(t) == 1)
  is(t, { 2, 3, 4 })
  local a, b = _.pop(t, 2)
  assert(a == 2 and b == 3)
  t = { 1, 2, 3, 4 }
  local x, y = _.unshift(t, 2)
  assert(x == 4 and y == 3)
  is(t, { 1, 2 })
  assert(_.shift == _.pop)
end)

check('pull / removeRange', function()
  local t = { 1, 2, 1, 2, 3, 4, 3 }
  assert(_.pull(t, 1, 2, 3) == t)
  is(t, { 4 })
  local src = { 1, 2, 3, 4, 5, 6, 7, 8, 9 }
  is(_.removeRange(src, 3, 8), { 1, 2, 9 })
  is(src, { 1, 2, 3, 4, 5, 6, 7, 8, 9 })       -- works on a copy
  is(_.removeRange({ 1, 2, 3 }, 2), { 1 })
  is(_.removeRange({ 1, 2, 3 }, 0, 100), {})
  is(_.removeRange({ 1, 2, 3 }, 3, 2), { 1, 2, 3 })
  assert(_.remove == _.pull and _.rmRange == _.removeRange and _.chop == _.removeRange)
end)

check('chunk', function()
  is(_.chunk({ 1, 1, 2, 3, 3, 4 }, function(k, v) return v % 2 == 0 end), { { 1, 1 }, { 2 }, { 3, 3 }, { 4 } })
  is(_.chunk({ 2, 1 }, function(k, v) return v % 2 == 0 end), { { 2 }, { 1 } })
  local map = { a = 1 }
  assert(_.chunk(map, _.identity) == map)
end)

check('slice / first / initial / last / rest / nth', function()
  local t = { 1, 2, 3, 4, 5, 6, 7, 8, 9 }
  is(_.slice(t, 3, 6), { 3, 4, 5, 6 })
  is(_.slice(t, 8), { 8, 9 })
  is(_.slice(t, 0, 2), { 1, 2 })
  is(_.first(t, 3), { 1, 2, 3 })
  is(_.first(t), { 1 })
  is(_.first(t, 20), t)
  is(_.initial(t, 5), { 1, 2, 3, 4 })
  is(_.initial(t), { 1, 2, 3, 4, 5, 6, 7, 8 })
  assert(_.initial(t, -1) == nil)
  is(_.last(t, 3), { 7, 8, 9 })
  is(_.last(t), { 2, 3, 4, 5, 6, 7, 8, 9 })
  is(_.last(t, 20), t)
  assert(_.last(t, 0) == nil)
  is(_.rest(t, 6), { 6, 7, 8, 9 })
  is(_.rest(t, 10), {})
  is(_.rest(t, -3), t)
  assert(_.nth(t, 3) == 3)
  assert(_.sub == _.slice and _.head == _.first and _.take == _.first)
  assert(_.tail == _.rest and _.skip == _.last)
end)

check('compact / flatten', function()
  is(_.compact({ nil, 'aa', false, 'bb', true }), { 'aa', 'bb', true })
  is(_.flatten({ 1, { 2, 3 }, { 4, 5, { 6, 7 } } }), { 1, 2, 3, 4, 5, 6, 7 })
  is(_.flatten({ 1, { 2 }, { { 3 } } }, true), { 1, 2, { 3 } })
end)

check('difference / union / intersection / symmetricDifference', function()
  is(_.difference({ 1, 2, 'a', 4, 5 }, { 1, 'a' }), { 2, 4, 5 })
  is(_.difference({ 1, 2 }), { 1, 2 })
  is(_.union({ 'a' }, { 'a', 1, 2, 3 }, { 2, 10 }), { 'a', 1, 2, 3, 10 })
  is(_.intersection({ 'a' }, { 'a', 1 }, { 2, 'a' }), { 'a' })
  is(_.intersection({ 1, 3 }, { 4, 2, 3 }, { 2, 3, 10 }), { 3 })
  same(_.symmetricDifference({ 1, 2, 3 }, { 1, 4, 5 }), { 2, 3, 4, 5 })
  assert(_.without == _.difference and _.diff == _.difference)
  assert(_.symdiff == _.symmetricDifference and _.xor == _.symmetricDifference)
end)

check('unique / isunique', function()
  is(_.unique({ 1, 1, 2, 2, 3, 4, 4 }), { 1, 2, 3, 4 })
  assert(_.isunique({ 1, 2, 3 }) and not _.isunique({ 1, 2, 2 }))
  assert(_.uniq == _.unique and _.isuniq == _.isunique)
end)

check('zip / append / interleave / interpose', function()
  is(_.zip({ 'Bob', 'Alice', 'James' }, { 22, 23 }), { { 'Bob', 22 }, { 'Alice', 23 }, { 'James' } })
  assert(_.transpose == _.zip)
  is(_.append({ 1, 2 }, { 'a' }), { 1, 2, 'a' })
  is(_.interleave({ 1, 2, 3 }, { 'a', 'b', 'c' }), { 1, 'a', 2, 'b', 3, 'c' })
  is(_.interleave({ 1 }, { 'a', 'b' }), { 1, 'a', 'b' })
  is(_.interpose('a', { 1, 2, 3 }), { 1, 'a', 2, 'a', 3 })
  is(_.interpose(false, { 5, 5 }), { 5, false, 5 })
end)

check('range / rep', function()
  is(_.range(1, 4), { 1, 2, 3, 4 })
  is(_.range(3), { 0, 1, 2, 3 })
  is(_.range(0, 2, 0.7), { 0, 0.7, 1.4 })
  is(_.range(1, 5, 2), { 1, 3, 5 })
  is(_.range(5, 1, -2), { 5, 3, 1 })
  is(_.range(1, 5, 0), {})
  is(_.range(1, 5, -1), {})
  is(_.range(), {})
  is(_.range(2, 2), {})        -- 1.x quirk, kept
  is(_.rep(4, 3), { 4, 4, 4 })
end)

check('partition / sliding', function()
  is(drain(_.partition({ 1, 2, 3, 4, 5, 6 }, 4)), { { 1, 2, 3, 4 }, { 5, 6 } })
  is(drain(_.partition({ 1, 2, 3, 4, 5, 6 }, 4, 0)), { { 1, 2, 3, 4 }, { 5, 6, 0, 0 } })
  is(drain(_.partition({ 1, 2 })), { { 1 }, { 2 } })
  assert(_.partition({ 1 }, 0) == nil)
  local t = { 1, 2, 3, 4, 5, 6, 7 }
  is(drain(_.sliding(t, 3)), { { 1, 2, 3 }, { 3, 4, 5 }, { 5, 6, 7 } })
  is(drain(_.sliding(t, 5)), { { 1, 2, 3, 4, 5 }, { 5, 6, 7 } })
  is(drain(_.sliding(t, 5, 0)), { { 1, 2, 3, 4, 5 }, { 5, 6, 7, 0, 0 } })
  is(drain(_.sliding({ 1, 2, 3 })), { { 1, 2 }, { 2, 3 } })
  assert(_.sliding(t, 1) == nil)
  assert(_.part == _.partition)
end)

check('permutation', function()
  local t = { 'a', 'b', 'c' }
  local perms = _.map(drain(_.permutation(t)), function(k, p) return table.concat(p) end)
  same(perms, { 'abc', 'acb', 'bac', 'bca', 'cab', 'cba' })
  assert(#perms == 6)
  is(t, { 'a', 'b', 'c' })
  assert(_.perm == _.permutation)
end)

check('invert / concat', function()
  is(_.invert({ 'a', 'b' }), { a = 1, b = 2 })
  assert(_.mirror == _.invert)
  assert(_.concat({ 'a', 1, 0, true }) == 'a10true')
  assert(_.concat({ 1, 3, false, 'A' }, ', ', 2, 3) == '3, false')
  assert(_.join == _.concat)
end)

--------------------------------------------------------------------------------
-- Utility functions
--------------------------------------------------------------------------------

check('noop / identity / constant', function()
  assert(_.noop(1) == nil and select('#', _.noop()) == 0)
  assert(_.identity(false) == false)
  assert(_.constant(9)(1, 2) == 9)
end)

check('memoize', function()
  local calls = 0
  local sq = _.memoize(function(x) calls = calls + 1 return x * x end)
  assert(sq(3) == 9 and sq(3) == 9 and sq(4) == 16 and calls == 2)
  local h = _.memoize(function(a, b) calls = calls + 1 return a + b end, function(a, b) return a .. ',' .. b end)
  calls = 0
  assert(h(1, 2) == 3 and h(1, 2) == 3 and h(2, 1) == 3 and calls == 2)
  local nilf = _.memoize(function() calls = calls + 1 end)
  calls = 0
  nilf(); nilf()
  assert(calls == 1)
  assert(_.cache == _.memoize)
end)

check('once / before / after', function()
  local runs = 0
  local sq = _.once(function(a) runs = runs + 1 return a * a end)
  assert(sq(2) == 4 and sq(3) == 4 and runs == 1)
  local say = _.before(_.identity, 2)
  assert(say('a') == 'a' and say('b') == 'b' and say('c') == 'b')
  local f = _.after(_.identity, 3)
  assert(f(1) == nil and f(2) == nil and f(3) == 3 and f(4) == 4)
end)

check('compose / pipe / complement / juxtapose / wrap', function()
  local function f(x) return x ^ 2 end
  local function g(x) return x + 1 end
  local function h(x) return x / 2 end
  assert(_.compose(f, g, h)(10) == 36 and _.pipe(10, f, g, h) == 36)
  local function s(c) return function(x) return (x or '') .. c end end
  assert(_.compose(s 'f', s 'g', s 'h')() == 'hgf')
  assert(_.complement(function() return nil end)() == true)
  local a, b, c = _.juxtapose(10, f, g, h)
  assert(a == 100 and b == 11 and c == 5)
  assert(_.juxt == _.juxtapose)
  local w = _.wrap(function(n) return 'hi ' .. n end, function(fn, n) return fn(n) .. '!' end)
  assert(w('x') == 'hi x!')
end)

check('times', function()
  is(_.times(3, ('Lua rocks'):gmatch('.')), { 'L', 'u', 'a' })
  is(_.times(3, function(i, m) return i * m end, 2), { 2, 4, 6 })
end)

check('bind / bind2 / bindn / bindAll', function()
  assert(_.bind(math.max, 7)(1, 2) == 7)
  is(_.bind2(_.last, 2)({ 1, 2, 3 }), { 2, 3 })
  local out = _.bindn(function(...) return table.concat({ ... }) end, 'Out', ':', ' ')
  assert(out(1, 2, 3) == 'Out: 123')
  local keepsNil = _.bindn(function(...) return select('#', ...) end, nil, 2)
  assert(keepsNil(nil) == 3)
  local w = _.bindAll({ setX = function(self, x) self.x = x end, getX = function(self) return self.x end }, 'setX', 'getX', 'nope')
  w.setX(5)
  assert(w.x == 5 and w.getX() == 5)
end)

check('uniqueId', function()
  local a, b = _.uniqueId(), _.uniqueId()
  assert(type(a) == 'number' and b == a + 1)
  assert(_.uniqueId('ID%s') == 'ID' .. (b + 1))
  assert(_.uniqueId(function(id, p) return p .. id end, '$') == '$' .. (b + 2))
  assert(_.uid == _.uniqueId)
end)

check('iterator / array', function()
  local po2 = _.iterator(function(x) return x * 2 end, 1)
  assert(po2() == 2 and po2() == 4 and po2() == 8)
  assert(_.iter == _.iterator)
  is(_.array(('abc'):gmatch('.')), { 'a', 'b', 'c' })
  is(_.array(pairs(_.range(1, 3))), { 1, 2, 3 })
end)

check('flip / over / overEvery / overSome / overArgs', function()
  assert(_.flip(function(...) return table.concat({ ... }) end)('a', 'b', 'c') == 'cba')
  is(_.over(math.min, math.max)(5, 10, 3), { 3, 10 })
  local function alleven(...) for _i, v in ipairs({ ... }) do if v % 2 ~= 0 then return false end end return true end
  local function allpos(...) for _i, v in ipairs({ ... }) do if v < 0 then return false end end return true end
  local every, some = _.overEvery(alleven, allpos), _.overSome(alleven, allpos)
  assert(every(2, 4) == true and every(2, -4) == false and every(3, 4) == false)
  assert(some(3, 4) == true and some(-2, 4) == true and some(-1, -3) == false)
  local f = _.overArgs(function(...) return { ... } end, function(x) return x * 3 end, function(x) return x ^ 2 end)
  is(f(1, 2, 3), { 3, 4, 3 })
end)

check('partial / partialRight', function()
  local function diff(a, b) return a - b end
  assert(_.partial(diff, 20)(5) == 15)
  assert(_.partial(diff, '_', 5)(20) == 15)
  local function cat(...) return table.concat({ ... }, ',') end
  assert(_.partialRight(cat, 'a', 'b', 'c')('d') == 'd,a,b,c')
  assert(_.partialRight(cat, 'a', '_', 'c')('d', 'b') == 'b,a,d,c')
  assert(_.partialRight(cat, '_', 'a')('b', 'c', 'd') == 'c,d,b,a')
end)

check('curry', function()
  local function sum3(x, y, z) return x + y + z end
  local c = _.curry(sum3, 3)
  assert(c(1)(2)(3) == 6)
  local c1 = c(10)                       -- partial applications are independent
  assert(c1(1)(1) == 12 and c1(2)(2) == 14)
  assert(_.curry(function(x, y) return x * y end)(5)(4) == 20)
  assert(_.curry(_.identity, 1)('v') == 'v')
  assert(not pcall(function() return _.curry(function(a, b) return a + b end)(1)(2)(3) end))
end)

check('time', function()
  local dt, a, b = _.time(function(x, y) return y, x end, 1, 2)
  assert(type(dt) == 'number' and dt >= 0 and a == 2 and b == 1)
end)

--------------------------------------------------------------------------------
-- Object functions
--------------------------------------------------------------------------------

check('keys / values / kvpairs / toObj', function()
  same(_.keys({ x = 1, y = 2, 3 }), { 'x', 'y', 1 })
  same(_.values({ x = 1, y = 2, 3 }), { 1, 2, 3 })
  local kv = _.kvpairs({ x = 1, y = 2 })
  table.sort(kv, function(a, b) return a[1] < b[1] end)
  is(kv, { { 'x', 1 }, { 'y', 2 } })
  is(_.toObj({ { 'x', 1 }, { 'y', 2 } }), { x = 1, y = 2 })
end)

check('property / propertyOf / toBoolean', function()
  assert(_.property('sin')(math) == math.sin)
  assert(_.propertyOf(_)('propertyOf') == _.propertyOf)
  assert(_.toBoolean(0) == true and _.toBoolean(nil) == false)
end)

check('extend', function()
  is(_.extend({ a = 'a' }, { a = 'b', c = 'd' }, nil, 5, { e = 1 }), { a = 'b', c = 'd', e = 1 })
end)

check('functions', function()
  local base = { a = function() end }
  base.__index = base
  local obj = setmetatable({ c = function() end, x = 1 }, base)
  is(_.functions(obj), { 'c' })
  is(_.functions(obj, true), { 'a', 'c' })
  local libNames = _.functions()
  assert(#libNames > 150)
  for _i, name in ipairs(libNames) do assert(type(_[name]) == 'function', name) end
  assert(_.methods == _.functions)
end)

check('clone', function()
  local p = { pos = { x = 0 }, m = 1 }
  local deep, shallow = _.clone(p), _.clone(p, true)
  assert(eq(deep, p) and deep.pos ~= p.pos and shallow.pos == p.pos)
  assert(_.clone(5) == 5 and _.clone(print) == print and _.clone(nil) == nil)
  local cyc = {}
  cyc.self = cyc
  local c = _.clone(cyc)
  assert(c.self == c)
end)

check('tap / has / result', function()
  local seen
  local t = { 1 }
  assert(_.tap(t, function(x, y) seen = y end, 'y') == t and seen == 'y')
  assert(_.has(_, 'has') and _.has(math, 'random') and not _.has({}, 'x'))
  assert(_.result('abc', 'len') == 3 and _.result({ 'a', 'b' }, table.concat, ' ') == 'a b')
  assert(_.result({ size = 0 }, 'size') == 0)
end)

check('pick / omit / template', function()
  is(_.pick({ a = 1, b = 2, c = 3 }, 'a', { { 'c' } }, 'zz'), { a = 1, c = 3 })
  is(_.pick({ a = false }, 'a'), { a = false })
  is(_.omit({ a = 1, b = 2, c = 3 }, 'a', { 'c' }), { b = 2 })
  is(_.template({ a = 0 }, { a = 1, b = 2 }), { a = 0, b = 2 })
  is(_.template({ a = 0 }), { a = 0 })
  assert(_.choose == _.pick and _.drop == _.omit and _.defaults == _.template)
end)

check('isEqual', function()
  assert(eq(1, 1.0) and not eq(1, 2) and not eq(nil, false))
  assert(eq({ x = 0, { y = { 1 } } }, { x = 0, { y = { 1 } } }))
  assert(not eq({ 3, 4, 5 }, { 3, 4, { 5 } }) and not eq({ 1 }, { 1, 2 }))
  local mt = { __eq = function() return true end }
  local a, b = setmetatable({ 1 }, mt), { 2 }
  assert(not eq(a, b) and eq(a, b, true) and eq(b, a, true))
  assert(_.compare == _.isEqual)
end)

check('type predicates', function()
  assert(_.isTable({}) and not _.isTable('x'))
  assert(_.isCallable(print) and _.isCallable(setmetatable({}, { __call = print })) and not _.isCallable({}))
  assert(_.isArray({}) and _.isArray({ 1, 2 }) and not _.isArray({ 1, nil, 3 }) and not _.isArray({ a = 1 }))
  assert(not _.isArray({ [1] = 1, [10] = 2 }) and not _.isArray('x'))
  assert(_.isIterable({}) and not _.isIterable(print) and not _.isIterable(1))
  assert(_.isEmpty('') and _.isEmpty({}) and _.isEmpty(nil) and _.isEmpty(true) and not _.isEmpty({ 1 }))
  assert(_.isString('') and not _.isString(1))
  assert(_.isFunction(print) and not _.isFunction({}))
  assert(_.isNil(nil) and _.isNil() and not _.isNil(false))
  assert(_.isNumber(0 / 0) and not _.isNumber('1'))
  assert(_.isNaN(0 / 0) and not _.isNaN(1) and not _.isNaN('x'))
  assert(_.isFinite(99e99) and not _.isFinite(1 / 0) and not _.isFinite(0 / 0) and not _.isFinite('1'))
  assert(_.isBoolean(false) and not _.isBoolean(0))
  assert(_.isInteger(1) and _.isInteger(-1) and not _.isInteger(1.5) and _.isInteger(1 / 0) and not _.isInteger(0 / 0))
end)

--------------------------------------------------------------------------------
-- Chaining and import
--------------------------------------------------------------------------------

check('chain / _(value) / value', function()
  local v = _.chain({ 1, 2, 3, 4 }):filter(function(k, x) return x % 2 ~= 0 end):max():value()
  assert(v == 3)
  local t = { 1, 2, 3 }
  assert(_(t):value() == t and _.chain(t):value() == t)
  local taps = {}
  local r = _({ 1, 2, 3 })
    :map(function(k, x) return x * 2 end)
    :tap(function(x) taps[#taps + 1] = _.max(x) end)
    :reverse()
    :value()
  is(r, { 6, 4, 2 })
  is(taps, { 6 })
  -- the lyrics word count from the 1.x tutorial
  local stats = _({ 'I am okay', 'i sleep' })
    :map(function(k, line) local w = {} for x in line:gmatch('%w+') do w[#w + 1] = x end return w end)
    :flatten()
    :countBy(function(i, x) return x:lower() end)
    :value()
  is(stats, { i = 2, am = 1, okay = 1, sleep = 1 })
end)

check('import', function()
  local ctx = _.import({})
  for _i, name in ipairs(_.functions()) do assert(ctx[name] == _[name], name) end
  local kept = _.import({ each = 1 }, true)
  assert(kept.each == 1 and kept.map == _.map)
  local over = _.import({ each = 1 })
  assert(over.each == _.each)
  assert(ctx.chain == nil and ctx.import == nil)
end)

check('aliases all resolve to functions', function()
  local names = { 'forEach', 'forEachi', 'loop', 'collect', 'inject', 'foldl', 'injectr', 'foldr',
    'mapr', 'maprr', 'any', 'some', 'contains', 'filter', 'discard', 'every', 'takeWhile',
    'rejectWhile', 'shift', 'remove', 'rmRange', 'chop', 'sub', 'head', 'take', 'tail', 'skip',
    'without', 'diff', 'symdiff', 'xor', 'uniq', 'isuniq', 'transpose', 'part', 'perm', 'mirror',
    'join', 'cache', 'juxt', 'uid', 'iter', 'methods', 'choose', 'drop', 'defaults', 'compare' }
  for _i, n in ipairs(names) do assert(type(_[n]) == 'function', n) end
end)

--------------------------------------------------------------------------------
-- The way torch/nn, dpnn and rnn use the library (with stand-in objects)
--------------------------------------------------------------------------------

-- A minimal tensor stand-in: :float(), :clone(), :sum().
local Tensor = {}
Tensor.__index = Tensor
local function tensor(vals, kind) return setmetatable({ vals = vals, kind = kind or 'double' }, Tensor) end
function Tensor:float() return tensor(self.vals, 'float') end
function Tensor:clone() return tensor({ unpack(self.vals) }, self.kind) end
function Tensor:sum() local s = 0 for _i, v in ipairs(self.vals) do s = s + v end return s end

check('nn test DontCast: map over a table of tensors', function()
  local input = { tensor({ 1 }), tensor({ 2 }) }
  local finput = _.map(input, function(k, v) return v:float() end)
  assert(#finput == 2 and finput[1].kind == 'float' and finput[2].vals[1] == 2)
end)

check('nn NaN: isNaN(tensor:sum())', function()
  assert(_.isNaN(tensor({ 1, 0 / 0 }):sum()) and not _.isNaN(tensor({ 1, 2 }):sum()))
  assert(_.isFinite(tensor({ 1, 2 }):sum()) and not _.isFinite(tensor({ 1 / 0 }):sum()))
end)

check('nn Convert: indexOf over chars', function()
  local shape = {}
  for ch in ('bchw'):gmatch('.') do shape[#shape + 1] = ch end
  assert(_.indexOf(shape, ('hw'):sub(1, 1)) == 3)
end)

check('dpnn: map strips a metatable, contains on key lists, clone of lists', function()
  local Module = { __index = {} }
  local m = setmetatable({ output = tensor({ 1 }), weight = tensor({ 2 }), train = true }, Module)
  local state = _.map(m, function(k, v) return v end)
  assert(getmetatable(state) == nil and state.output == m.output and state.train == true)
  local empty = _.clone({ 'output', 'gradInput' })
  assert(_.contains(empty, 'output') and not _.contains(empty, 'weight'))
  assert(_.isEmpty({}) and not _.isEmpty({ tensor({}) }))
end)

check('rnn: first/last/slice/reverse/size/compact/keys/values', function()
  local inputs = { 'x1', 'x2', 'x3', 'x4' }
  local n = #inputs
  is(_.first(inputs, n - 1), { 'x1', 'x2', 'x3' })
  is(_.last(inputs, n - 1), { 'x2', 'x3', 'x4' })
  is(_.slice(inputs, 2, #inputs), { 'x2', 'x3', 'x4' })
  is(_.reverse(_.reverse(inputs)), inputs)
  local clones = { [3] = 'c3', [7] = 'c7', [8] = 'c8' }   -- sparse, keyed by step
  assert(_.size(clones) == 3)
  local packed = _.compact(clones)
  assert(#packed == 3)
  same(packed, { 'c3', 'c7', 'c8' })
  assert(_.contains({ 'both', 'eval', 'train', 'neither' }, 'eval'))
  assert(#_.keys({ a = 1, b = 2 }) == 2)
  is(_.last(_.sort(_.values({ a = 5, b = 1, c = 3 })), 2), { 3, 5 })
end)

print(('%d passed, %d failed'):format(passed, failed))
if failed > 0 then os.exit(1) end
