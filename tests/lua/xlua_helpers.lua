-- string.split and the other helpers scripts take from xlua.
require 'xlua'

local function same(t, want)
   if #t ~= #want then return false end
   for i = 1, #want do if t[i] ~= want[i] then return false end end
   return true
end

assert(same(string.split('a b c', ' '), { 'a', 'b', 'c' }))
assert(same(('host1:8080'):split(':'), { 'host1', '8080' }))
assert(same(string.split('a,,b', ','), { 'a', '', 'b' }))
assert(same(string.split(',a,b,', ','), { 'a', 'b' }))
assert(same(string.split('abc', ','), { 'abc' }))
assert(same(string.split('', ','), {}))
assert(same(string.split('one  two\tthree'), { 'one', 'two', 'three' }))
assert(same(string.split('a1b22c', '%d+'), { 'a', 'b', 'c' }))
assert(same(string.split('abc', '%s*'), { 'a', 'b', 'c' }), 'empty matches terminate')
local ok, err = pcall(string.split, nil, ',')
assert(not ok and err:find('string.split', 1, true), tostring(err))
ok, err = pcall(string.split, 'a', '')
assert(not ok and err:find('string.split', 1, true), tostring(err))

-- tables
local kept, removed = table.splice({ 1, 2, 3, 4, 5 }, 2, 2)
assert(same(kept, { 1, 4, 5 }) and same(removed, { 2, 3 }))
local pruned = table.prune({ 1, 2, 2, 3, 3, 3 })
table.sort(pruned)
assert(same(pruned, { 1, 2, 3 }))
assert(string.tosymbol('xlua.progress') == xlua.progress)

-- require that does not fail
assert(xlua.require('paths') == paths)
assert(xlua.require('no.such.module.xyz') == false)
assert(xlua.installed('paths') == true)
assert(xlua.installed('no.such.module.xyz') == false)

-- error with a domain
ok, err = pcall(xlua.error, 'went wrong', 'mymod')
assert(not ok and err:find('<mymod> went wrong', 1, true), tostring(err))

-- unpack: positional and named arguments, defaults, required ones
local function f(...)
   local args, a, b = xlua.unpack({ ... }, 'f', 'a test function',
      { arg = 'a', type = 'number', help = 'first', req = true },
      { arg = 'b', type = 'string', help = 'second', default = 'dflt' })
   return args, a, b
end
local args, a, b = f(1)
assert(a == 1 and b == 'dflt' and args.a == 1 and args.b == 'dflt')
args, a, b = f { a = 2, b = 'x' }
assert(a == 2 and b == 'x')
assert(tostring(args.usage):find('a test function', 1, true))
ok = pcall(f)
assert(not ok, 'a missing required argument is an error')
local obj = {}
xlua.unpack_class(obj, { 5 }, 'g', nil, { arg = 'size', type = 'number', help = 'size' })
assert(obj.size == 5)
print('ok')
