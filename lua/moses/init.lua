-- moses/init.lua -- functional-programming helpers for Lua, following the Moses 1.x API
-- (the 1.6.1 interface that torch/nn, dpnn and rnn were written against).
--
-- Written from scratch for luatorch.  Conventions of the 1.x API that callers
-- rely on, and that this package therefore keeps:
--   * iterator callbacks receive (key, value, ...)  -- e.g. map, each, select;
--   * reduce-style callbacks receive (state, value);
--   * "array" functions walk indices 1..#t, "table" functions walk pairs(t);
--   * `_(x)` / `_.chain(x)` wrap a value for method chaining, `:value()` unwraps.
--
-- Usage: local _ = require 'moses'
--
-- Package layout: moses/helpers.lua (private helpers), moses/predicates.lua
-- (is* object predicates), moses/table.lua, moses/array.lua, moses/func.lua
-- (utility functions) and moses/object.lua each install their section into
-- `lib`; the aliases, the module table, chaining and import are set up here.

local pairs, rawget, setmetatable = pairs, rawget, setmetatable

-- Every public function and alias lives in `lib`.  The table handed back by
-- require is built from it at the bottom of this file; `lib` itself is also what
-- `_.functions()` lists and `_.import()` copies, so the chaining helpers
-- (chain, value, import) stay out of those lists, as in 1.x.
local lib = {}

local H = require 'moses.helpers'

-- Order matters: the predicates come first, since later parts capture
-- lib.isEqual when they are installed.
require 'moses.predicates'(lib, H)
require 'moses.table'(lib, H)
require 'moses.array'(lib, H)
require 'moses.func'(lib, H)
require 'moses.object'(lib, H)

--------------------------------------------------------------------------------
-- Aliases (the 1.x set)
--------------------------------------------------------------------------------

local aliases = {
  -- table functions
  forEach = 'each', forEachi = 'eachi', loop = 'cycle', collect = 'map',
  inject = 'reduce', foldl = 'reduce', injectr = 'reduceRight', foldr = 'reduceRight',
  mapr = 'mapReduce', maprr = 'mapReduceRight',
  any = 'include', some = 'include', contains = 'include',
  filter = 'select', discard = 'reject', every = 'all',
  -- array functions
  takeWhile = 'selectWhile', rejectWhile = 'dropWhile', shift = 'pop', remove = 'pull',
  rmRange = 'removeRange', chop = 'removeRange', sub = 'slice',
  head = 'first', take = 'first', tail = 'rest', skip = 'last',
  without = 'difference', diff = 'difference',
  symdiff = 'symmetricDifference', xor = 'symmetricDifference',
  uniq = 'unique', isuniq = 'isunique', transpose = 'zip',
  part = 'partition', perm = 'permutation', mirror = 'invert', join = 'concat',
  -- utility functions
  cache = 'memoize', juxt = 'juxtapose', uid = 'uniqueId', iter = 'iterator',
  -- object functions
  methods = 'functions', choose = 'pick', drop = 'omit',
  defaults = 'template', compare = 'isEqual',
}
for alias, name in pairs(aliases) do lib[alias] = lib[name] end

--------------------------------------------------------------------------------
-- The module table, chaining and import
--------------------------------------------------------------------------------

local M = {}
for name, fn in pairs(lib) do M[name] = fn end

-- A chained value: library functions become methods that take the wrapped value
-- as first argument and wrap their (first) result again.
local Chain = {}
local chainMethods = {}
Chain.__index = chainMethods

local function wrap(value)
  return setmetatable({ _value = value, _wrapped = true }, Chain)
end

for name, fn in pairs(lib) do
  chainMethods[name] = function(self, ...)
    return wrap((fn(self._value, ...)))
  end
end

function chainMethods:value() return self._value end
function chainMethods:chain() return self end

function M.chain(value) return wrap(value) end

-- Copies the library functions into `context` (default: the global table).
-- With noConflict, names already present in the context are left alone.
function M.import(context, noConflict)
  context = context or _G
  for name, fn in pairs(lib) do
    if not (noConflict and rawget(context, name) ~= nil) then
      context[name] = fn
    end
  end
  return context
end

M._VERSION = 'Moses v1.6.1'
M._DESCRIPTION = 'utility-belt library for functional programming in Lua (1.x API, luatorch implementation)'

-- `_(value)` is shorthand for `_.chain(value)`.
return setmetatable(M, { __call = function(_, value) return wrap(value) end })
