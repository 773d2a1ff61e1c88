-- argcheck.usage: the help text of a set of rules, and the description of what a failed call got.
--
--   usage.usage(true, rules [, norender])  the documentation of one set of rules: its help/doc
--                                         string with @ARGP (the argument list) and @ARGT (the
--                                         argument table) expanded, or the argument table alone
--   usage.usage(false, graph, ...)        '*Got:* **type**, ...' for the arguments of a call
--   usage.render(text)                    markdown rendered for a terminal when sundown is
--                                         installed and both stdout and stderr are terminals

local env = require 'argcheck.env'

local usage = {}

local markdown_renderer
do
   local ok, mod = pcall(require, 'sundown.ascii')
   if ok then markdown_renderer = mod end
end

local function is_optional(rule)
   return rule.opt or rule.default ~= nil or rule.defaulta or rule.defaultf
end

-- '[x][, msg], y': optional arguments bracketed. (Arguments defaulting to another argument are
-- listed as required here, as the original package does.)
local function argument_list(rules)
   local out = {}
   for i, rule in ipairs(rules) do
      local opt = rule.opt or rule.default ~= nil or rule.defaultf
      local sep = i == 1 and '' or ', '
      if opt then
         out[#out + 1] = '[' .. sep .. rule.name .. ']'
      else
         out[#out + 1] = sep .. rule.name
      end
   end
   return table.concat(out)
end

local function default_note(rule)
   if rule.defaulta then
      return string.format(' [defaulta=%s]', rule.defaulta)
   elseif rule.defaultf then
      return ' [has default]'
   end
   local d = rule.default
   local kind = type(d)
   if kind == 'nil' then
      return ''
   elseif kind == 'string' or kind == 'number' then
      return string.format(' [default=%s]', tostring(d))
   elseif kind == 'boolean' then
      return string.format(' [default=%s]', d and 'true' or 'false')
   end
   return ' [has default value]'
end

-- A fenced block listing every argument, its type and its help:
--   ({
--      x   = number  -- the x
--     [msg = string] -- a message [default=hi]
--   })
-- '(' ')' are left out when only named calls are allowed, '{' '}' when only ordered ones are.
local function argument_table(rules)
   local namewidth = 0
   for _, rule in ipairs(rules) do
      namewidth = math.max(namewidth, #rule.name)
   end
   local cols, notes = {}, {}
   for i, rule in ipairs(rules) do
      local opt = is_optional(rule)
      local col = (opt and '[' or ' ') .. rule.name .. string.rep(' ', namewidth - #rule.name)
      if rule.type then col = col .. ' = ' .. rule.type end
      if opt then col = col .. ']' end
      cols[i] = col
      notes[i] = (rule.help or '') .. (rule.doc or '') .. default_note(rule)
   end
   local colwidth = 0
   for _, col in ipairs(cols) do
      colwidth = math.max(colwidth, #col)
   end
   local lines = { '```' }
   lines[#lines + 1] = (rules.noordered and '' or '(') .. (rules.nonamed and '' or '{')
   for i, col in ipairs(cols) do
      lines[#lines + 1] = string.format('  %s %s -- %s', col, string.rep(' ', colwidth - #col), notes[i])
   end
   lines[#lines + 1] = (rules.nonamed and '' or '}') .. (rules.noordered and '' or ')')
   lines[#lines + 1] = '```'
   return table.concat(lines, '\n')
end

function usage.render(text)
   if markdown_renderer and torch and torch.isatty
      and torch.isatty(io.stderr) and torch.isatty(io.stdout) then
      return markdown_renderer.render(text)
   end
   return text
end

-- '**k=type**' entries for the fields of a table argument (at most 20 of them)
local function describe_fields(tbl)
   local parts = {}
   local count = 0
   for k, v in pairs(tbl) do
      count = count + 1
      if count > 20 then
         parts[#parts + 1] = '...'
         break
      end
      if type(k) == 'string' then
         parts[#parts + 1] = string.format('**%s=%s**', k, env.type(v))
      else
         parts[#parts + 1] = string.format('**[%s]**=?', env.type(k))
      end
   end
   return string.format('**table**={ %s }', table.concat(parts, ', '))
end

local function describe_call(graph, ...)
   local n = select('#', ...)
   local parts = {}
   for i = 1, n do
      parts[i] = string.format('**%s**', env.type((select(i, ...))))
   end
   local tblidx
   if graph:hasruletype('N') then
      if n == 1 and env.istype((select(1, ...)), 'table') then tblidx = 1 end
   elseif graph:hasruletype('M') then
      if n == 2 and env.istype((select(2, ...)), 'table') then tblidx = 2 end
   end
   if tblidx then
      parts[tblidx] = describe_fields((select(tblidx, ...)))
   end
   return '*Got:* ' .. table.concat(parts, ', ')
end

function usage.usage(truth, rules, ...)
   if not truth then
      return describe_call(rules, ...)
   end
   local text = rules.help or rules.doc
   if text then
      -- functions as replacements: the generated text is taken literally
      text = text:gsub('@ARGP', function() return argument_list(rules) end)
      text = text:gsub('@ARGT', function() return argument_table(rules) end)
      return text
   end
   return '\n*Arguments:*\n' .. argument_table(rules)
end

return usage
