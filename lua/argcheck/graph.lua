-- argcheck.graph: the decision tree behind a checker, and the Lua source generated from it.
--
-- Each set of rules is unfolded into every way a call may present its arguments: an optional
-- argument is either given, left out, or (ordered calls only) given as nil. Every such variant is a
-- path of typed steps from the root: an ordered call ('O') steps through the positional arguments,
-- a named call ('N') starts with a table step and then steps through the named fields it holds,
-- and a method call with named arguments ('M') steps through self, then a table, then the fields.
-- Paths share their common prefixes; the node where a path ends holds its rules (and which
-- variant it is). Overloading adds more paths to the same tree.
--
-- The generated checker walks the tree depth first, in the order the paths were added, and
-- returns at the first node that consumes exactly all the arguments.

local usage = require 'argcheck.usage'

local Graph = {}
Graph.__index = Graph

local function new_node(typename, name, check)
   assert(typename, 'argcheck: a rule without type cannot be checked')
   return setmetatable({ type = typename, name = name, check = check, next = {} }, Graph)
end

-- the tree root (its type is shown as '@' in the dot output)
function Graph.new(typename)
   return new_node(typename or '@')
end

function Graph:add(node)
   self.next[#self.next + 1] = node
end

-- first child taking the same step
local function find_child(node, step)
   for _, child in ipairs(node.next) do
      if child.type == step.type and child.check == step.check and child.name == step.name then
         return child
      end
   end
   return nil
end

-- Follows `steps` as far as the tree has them; returns the last node reached and how many steps
-- were followed.
function Graph:match(steps)
   local node = self
   for i, step in ipairs(steps) do
      local child = find_child(node, step)
      if not child then return node, i - 1 end
      node = child
   end
   return node, #steps
end

-- visits the subtree, parents before children
function Graph:apply(fn)
   fn(self)
   for _, child in ipairs(self.next) do
      child:apply(fn)
   end
end

-- does a path of this kind ('O', 'N' or 'M') end somewhere in the subtree?
function Graph:hasruletype(kind)
   if self.rulestype == kind then return true end
   for _, child in ipairs(self.next) do
      if child:hasruletype(kind) then return true end
   end
   return false
end

-- The steps of one variant. mask[i] is 1 (given), 2 (left out) or 3 (given as nil; only ordered
-- calls see the nil, named ones cannot tell it from a missing field). Steps of positional
-- arguments, and the self of a method, carry no name.
local function variant_steps(rules, mask, kind)
   local steps = {}
   for i, rule in ipairs(rules) do
      local m = mask:sub(i, i)
      local named = not (kind == 'O' or (kind == 'M' and i == 1))
      local name = named and rule.name or nil
      if m == '1' then
         steps[#steps + 1] = { type = rule.type, name = name, check = rule.check }
      elseif m == '3' and kind == 'O' then
         steps[#steps + 1] = { type = 'nil', name = name }
      end
   end
   if kind == 'N' then
      table.insert(steps, 1, { type = 'table' })
   elseif kind == 'M' then
      table.insert(steps, 2, { type = 'table' })
   end
   return steps
end

function Graph:addpath(rules, mask, kind)
   assert(rules and mask and kind)
   local steps = variant_steps(rules, mask, kind)
   local node, depth = self:match(steps)
   if depth == #steps then
      if not rules.force and node.rules and node.rules ~= rules then
         error('argcheck rules led to ambiguous situations')
      end
      node.rules, node.rulesmask, node.rulestype = rules, mask, kind
   end
   for i = depth + 1, #steps do
      local step = steps[i]
      local child = new_node(step.type, step.name, step.check)
      if i == #steps then
         child.rules, child.rulesmask, child.rulestype = rules, mask, kind
      end
      node:add(child)
      node = child
   end
   if kind == 'M' then
      local head, found = self:match({ steps[1] })
      assert(found == 1, 'argcheck internal error: self not found')
      head.isself = true
   end
end

---------------------------------------------------------------------------------------------------
-- dot output

local function node_id(node)
   return 'id' .. (tostring(node):match('0x(%x+)') or tostring(node):gsub('%W', ''))
end

local function dot_lines(node, out)
   out[#out + 1] = 'edge [penwidth=.3 arrowsize=0.8];'
   out[#out + 1] = string.format('%s [label="%s%s%s%s" penwidth=.1 fontsize=10 style=filled fillcolor="%s"];',
      node_id(node), node.type, node.isself and '*' or '', node.check and ' <check>' or '',
      node.name and (' (' .. node.name .. ')') or '', node.rules and '#aaaaaa' or '#eeeeee')
   for _, child in ipairs(node.next) do
      dot_lines(child, out)
      out[#out + 1] = string.format('%s -> %s;', node_id(node), node_id(child))
   end
end

function Graph:print()
   local out = { 'digraph ACN {' }
   dot_lines(self, out)
   out[#out + 1] = '}'
   return table.concat(out, '\n')
end

---------------------------------------------------------------------------------------------------
-- usage of the whole tree: every set of rules once, in tree order, then what the call got

function Graph:usage(...)
   local docs, seen = {}, {}
   self:apply(function(node)
      local rules = node.rules
      if rules and not seen[rules] then
         seen[rules] = true
         docs[#docs + 1] = usage.usage(true, rules)
      end
   end)
   return table.concat(docs, '\n\nor\n\n') .. '\n' .. usage.usage(false, self, ...) .. '\n'
end

---------------------------------------------------------------------------------------------------
-- code generation

-- Values the generated function needs become upvalues named after what they are; past a few
-- dozen (LuaJIT allows 60 upvalues per function) they go into one table instead.
local MAX_NAMED = 48

local Emitter = {}
Emitter.__index = Emitter

local function new_emitter()
   return setmetatable({ lines = {}, names = {}, values = {}, index = {}, spill = {}, count = {} }, Emitter)
end

function Emitter:line(depth, fmt, ...)
   self.lines[#self.lines + 1] = string.rep('  ', depth) .. string.format(fmt, ...)
end

-- the expression that reads `value` inside the generated function
function Emitter:ref(value, prefix)
   local key = value
   if value ~= value then key = Emitter end -- NaN cannot index a table
   local known = self.index[prefix] and self.index[prefix][key]
   if known then return known end
   local expr
   if #self.names < MAX_NAMED then
      self.count[prefix] = (self.count[prefix] or 0) + 1
      expr = string.format('%s%d', prefix, self.count[prefix])
      self.names[#self.names + 1] = expr
      self.values[#self.values + 1] = value
   else
      self.spill[#self.spill + 1] = value
      expr = string.format('spill[%d]', #self.spill)
   end
   self.index[prefix] = self.index[prefix] or {}
   self.index[prefix][key] = expr
   return expr
end

-- the test of one step, for the argument expression `arg`
function Emitter:step_test(node, arg)
   local test = string.format('istype(%s, %q)', arg, node.type)
   if node.check then
      test = string.format('%s and %s(%s)', test, self:ref(node.check, 'check'), arg)
   end
   return test
end

local function argument_expr(kind, rule, position)
   if kind == 'O' then
      return string.format('(select(%d, ...))', position)
   end
   return string.format('args[%q]', rule.name)
end

local function rule_index(rules, name)
   for i, rule in ipairs(rules) do
      if rule.name == name then return i end
   end
   error(string.format('invalid defaulta name <%s>', name))
end

-- The body run when a path of this kind ends at `node`: binds every argument and returns.
function Emitter:terminal(node, kind, depth)
   local rules, mask = node.rules, node.rulesmask
   if kind == 'M' then
      -- self is bound already; the rest are numbered from 1
      local rest = {}
      for k, v in pairs(rules) do rest[k] = v end
      table.remove(rest, 1)
      rules, mask = rest, mask:sub(2)
   end
   local bound = {}
   -- the arguments the call gave, in the order it gave them
   local position = 0
   for i, rule in ipairs(rules) do
      local m = mask:sub(i, i)
      if m == '1' or (m == '3' and kind == 'O') then
         position = position + 1
         self:line(depth, 'local arg%d = %s', i, argument_expr(kind, rule, position))
         bound[i] = true
      end
   end
   -- the defaults of those it left out (or gave as nil); defaults naming another argument last
   local later = {}
   for i, rule in ipairs(rules) do
      local m = mask:sub(i, i)
      local missing = m == '2' or (m == '3' and (rule.default or rule.defaulta or rule.defaultf))
      if missing then
         if rule.default ~= nil then
            self:line(depth, 'local arg%d = %s', i, self:ref(rule.default, 'default'))
         elseif rule.defaultf then
            self:line(depth, 'local arg%d = %s()', i, self:ref(rule.defaultf, 'defaultf'))
         elseif rule.opt then
            self:line(depth, 'local arg%d', i)
         elseif rule.defaulta then
            later[#later + 1] = string.format('local arg%d = arg%d', i, rule_index(rules, rule.defaulta))
         end
         bound[i] = true
      end
   end
   for _, l in ipairs(later) do self:line(depth, '%s', l) end
   for i = 1, #rules do
      if not bound[i] then self:line(depth, 'local arg%d', i) end
   end

   local values = {}
   for i, rule in ipairs(rules) do
      values[i] = rules.pack and string.format('[%q] = arg%d', rule.name, i) or ('arg' .. i)
   end
   local list
   if rules.pack then
      list = '{' .. table.concat(values, ', ') .. '}'
      if kind == 'M' then list = 'self, ' .. list end
   else
      if kind == 'M' then table.insert(values, 1, 'self') end
      list = table.concat(values, ', ')
   end
   local result
   if rules.call and not rules.quiet then
      result = string.format('%s(%s)', self:ref(rules.call, 'call'), list)
   elseif rules.quiet and rules.call then
      result = self:ref(rules.call, 'call') .. (#list > 0 and (', ' .. list) or '')
   elseif rules.quiet then
      result = 'true' .. (#list > 0 and (', ' .. list) or '')
   else
      result = list
   end
   self:line(depth, 'return %s', result)
end

-- Emits the tests of `node`'s subtree for calls of one kind. `depth` is the node's depth below
-- where the walk started, `taken` how many arguments the steps down to its parent consumed, and
-- `count` the variable holding how many arguments (or named fields) the call has.
function Emitter:walk(node, kind, depth, taken, count, indent)
   if not node:hasruletype(kind) then return end
   local inner = indent
   if depth > 0 then
      local arg = kind == 'O' and string.format('(select(%d, ...))', depth)
         or string.format('args[%q]', node.name)
      if node.type == 'nil' and kind ~= 'O' then
         -- a named nil consumes no field
         self:line(indent, 'if %s then', self:step_test(node, arg))
      else
         self:line(indent, 'if %s > %d and %s then', count, taken, self:step_test(node, arg))
         taken = taken + 1
      end
      inner = indent + 1
   end
   if node.rules and node.rulestype == kind then
      self:line(inner, 'if %s == %d then', count, taken)
      self:terminal(node, kind, inner + 1)
      self:line(inner, 'end')
   end
   for _, child in ipairs(node.next) do
      self:walk(child, kind, depth + 1, taken, count, inner)
   end
   if depth > 0 then
      self:line(indent, 'end')
   end
end

local COUNT_FIELDS = 'local nfield = 0 for _ in pairs(args) do nfield = nfield + 1 end'

-- Returns the source of the checker and the values its chunk expects (as `...`, in order:
-- istype, graph, spill table, then the named upvalues).
function Graph:generate(istype)
   local e = new_emitter()
   local body = e.lines
   e:line(0, 'return function(...)')
   e:line(1, 'local narg = select("#", ...)')
   e:walk(self, 'O', 0, 0, 'narg', 1)

   if self:hasruletype('N') then
      local head = find_child(self, { type = 'table' })
      assert(head, 'argcheck internal error: no named arguments entry')
      e:line(1, 'if narg == 1 and istype((select(1, ...)), "table") then')
      e:line(2, 'local args = (select(1, ...))')
      e:line(2, COUNT_FIELDS)
      e:walk(head, 'N', 0, 0, 'nfield', 2)
      e:line(1, 'end')
   end

   for _, head in ipairs(self.next) do
      if head.isself then
         local tbl = find_child(head, { type = 'table' })
         assert(tbl, 'argcheck internal error: no named arguments entry after self')
         local selftest = e:step_test(head, '(select(1, ...))')
         e:line(1, 'if narg == 2 and istype((select(2, ...)), "table") and %s then', selftest)
         e:line(2, 'local self = (select(1, ...))')
         e:line(2, 'local args = (select(2, ...))')
         e:line(2, COUNT_FIELDS)
         e:walk(tbl, 'M', 0, 0, 'nfield', 2)
         e:line(1, 'end')
      end
   end

   local quiet = true
   self:apply(function(node)
      if node.rules and not node.rules.quiet then quiet = false end
   end)
   e:line(1, 'local usage = require "argcheck.usage"')
   if quiet then
      e:line(1, 'return false, usage.render(graph:usage(...))')
   else
      e:line(1, 'error(string.format("%%s\\ninvalid arguments!", usage.render(graph:usage(...))))')
   end
   e:line(0, 'end')

   local header = 'local istype, graph, spill'
   if #e.names > 0 then header = header .. ', ' .. table.concat(e.names, ', ') end
   local code = header .. ' = ...\n' .. table.concat(body, '\n')
   local values = { n = 3 + #e.values, istype, self, e.spill }
   for i, v in ipairs(e.values) do values[3 + i] = v end
   return code, values
end

return Graph
