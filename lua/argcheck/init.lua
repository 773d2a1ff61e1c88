-- argcheck: generates, from a list of argument rules, a function that checks and parses the
-- arguments of a call, ordered (f(1, 'a')) or named (f{x=1, msg='a'}), then returns them or calls
-- `call` with them. See the package documentation for the rule fields and global options.
--
--   local argcheck = require 'argcheck'
--   local f = argcheck{
--      {name='x', type='number', default=0, help='a number'},
--      {name='msg', type='string', opt=true},
--      call = function(x, msg) ... end,
--   }

local env = require 'argcheck.env'
local utils = require 'argcheck.utils'
local doc = require 'argcheck.doc'
local usage = require 'argcheck.usage'
local Graph = require 'argcheck.graph'

local loadchunk = loadstring or load
local unpack = unpack or table.unpack

local function is_optional(rule)
   return rule.default ~= nil or rule.defaulta or rule.defaultf or rule.opt
end

local function validate(rules)
   assert(not (rules.noordered and rules.nonamed), 'rules must be at least ordered or named')
   assert(rules.help == nil or type(rules.help) == 'string', 'rules help must be a string or nil')
   assert(rules.doc == nil or type(rules.doc) == 'string', 'rules doc must be a string or nil')
   assert(rules.chain == nil or type(rules.chain) == 'function', 'rules chain must be a function or nil')
   assert(rules.overload == nil or type(rules.overload) == 'function', 'rules overload must be a function or nil')
   assert(not (rules.chain and rules.overload), 'rules must have either overload [or chain (deprecated)]')
   assert(not (rules.doc and rules.help), 'choose between doc or help, not both')
   for _, rule in ipairs(rules) do
      assert(rule.name, 'rule must have a name field')
      assert(rule.type == nil or type(rule.type) == 'string', 'rule type must be a string or nil')
      assert(rule.help == nil or type(rule.help) == 'string', 'rule help must be a string or nil')
      assert(rule.doc == nil or type(rule.doc) == 'string', 'rule doc must be a string or nil')
      assert(rule.check == nil or type(rule.check) == 'function', 'rule check must be a function or nil')
      assert(rule.defaulta == nil or type(rule.defaulta) == 'string', 'rule defaulta must be a string or nil')
      assert(rule.defaultf == nil or type(rule.defaultf) == 'function', 'rule defaultf must be a function or nil')
   end
   local first = rules[1]
   if first and first.name == 'self' then
      assert(not first.opt and not first.default and not first.defaulta and not first.defaultf,
         'self cannot be optional, nor having a default value!')
   end
end

-- The tree to extend: a fresh one, or the one behind the checker being overloaded.
local function tree_for(rules)
   local previous = rules.overload or rules.chain
   if not previous then
      return Graph.new('@')
   end
   local ok, graph = pcall(utils.getupvalue, previous, 'graph')
   if not ok or getmetatable(graph) ~= Graph then
      error('trying to overload a non-argcheck function')
   end
   return graph
end

-- Adds every variant of the rules to the tree. A required argument has one state (given), an
-- optional one three (given, left out, given as nil); the variants are enumerated as a number
-- written digit by digit in those bases, first rule most significant, highest number first.
local function add_variants(graph, rules)
   local nrules = #rules
   local base, weight = {}, {}
   local total = 1
   for i = nrules, 1, -1 do
      base[i] = is_optional(rules[i]) and 3 or 1
      weight[i] = total
      total = total * base[i]
   end
   local method = rules[1] and rules[1].name == 'self'
   for variant = total - 1, 0, -1 do
      local digits = {}
      for i = 1, nrules do
         digits[i] = tostring(math.floor(variant / weight[i]) % base[i] + 1)
      end
      local mask = table.concat(digits)
      if not rules.noordered then
         graph:addpath(rules, mask, 'O')
      end
      if not rules.nonamed then
         graph:addpath(rules, mask, method and 'M' or 'N')
      end
   end
end

local function argcheck(rules)
   validate(rules)

   if rules.doc or rules.help then
      doc(usage.render(usage.usage(true, rules, true)))
   end

   local graph = tree_for(rules)
   add_variants(graph, rules)

   local code, values = graph:generate(env.istype)
   if rules.debug then
      print(code)
   end
   local chunk, err = loadchunk(code, 'argcheck')
   if not chunk then
      error(string.format('could not generate argument checker: %s', err))
   end
   local checker = chunk(unpack(values, 1, values.n))

   if rules.debug then
      return checker, graph:print()
   end
   return checker
end

env.argcheck = argcheck

return argcheck
