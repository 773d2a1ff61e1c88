-- xlua.OptionParser: command-line options in the style of Python's optparse, as Torch scripts used
-- them:
--   local op = xlua.OptionParser('%prog [options] FILE')
--   op:option{'-d', '--dir', action='store', dest='dir', help='where to work', default='.'}
--   op:option{'-v', '--verbose', action='store_true', dest='verbose', help='say more'}
--   local opt, args = op:parse()   -- reads the global `arg`
-- `-d DIR`, `--dir DIR` and `--dir=DIR` are the same; what is not an option ends up in `args`.

local OptionParser = {}
OptionParser.__index = OptionParser

local ACTIONS = { store = true, store_true = true, store_false = true }

local function check_self(self, method)
   if getmetatable(self) ~= OptionParser then
      error('xlua.OptionParser:' .. method .. ': call it with a colon (op:' .. method .. '(...))', 3)
   end
end

-- OptionParser(usage): usage is the text after 'Usage: ', %prog standing for the program; as with
-- xlua, a table {usage=..., version=...} is accepted too. -h/--help is always there.
function OptionParser.new(usage)
   local version
   if type(usage) == 'table' then usage, version = usage.usage, usage.version end
   if usage == nil then usage = '%prog [options]' end
   if type(usage) ~= 'string' then
      error('xlua.OptionParser: bad argument #1 (usage string expected, got ' .. type(usage) .. ')', 2)
   end
   local self = setmetatable({
      usage = usage,
      version = version,
      option_descriptions = {},
      option_of = {},
   }, OptionParser)
   self:option { '-h', '--help', action = 'store_true', dest = 'help', help = 'show this help message and exit' }
   return self
end

setmetatable(OptionParser, {
   __call = function(_, usage) return OptionParser.new(usage) end,
})

-- fail(message): the message on stderr, the help on stdout, and exit status 1.
function OptionParser:fail(message)
   check_self(self, 'fail')
   io.stderr:write(tostring(message) .. '\n')
   self:help()
   os.exit(1)
end

-- option{flag, ...[, action=][, dest=][, help=][, default=][, req=][, metavar=]}
function OptionParser:option(desc)
   check_self(self, 'option')
   if type(desc) ~= 'table' then
      error('xlua.OptionParser:option: bad argument #1 (table expected, got ' .. type(desc) .. ')', 2)
   end
   if type(desc[1]) ~= 'string' then
      error('xlua.OptionParser:option: the option needs at least one flag, such as "-d" or "--dir"', 2)
   end
   for i, flag in ipairs(desc) do
      if type(flag) ~= 'string' or not flag:match('^%-') then
         error('xlua.OptionParser:option: flag #' .. i .. ' (' .. tostring(flag) .. ') does not start with -', 2)
      end
   end
   if desc.action ~= nil and not ACTIONS[desc.action] then
      error('xlua.OptionParser:option: unknown action "' .. tostring(desc.action)
         .. '" for ' .. desc[1] .. ' (store, store_true or store_false)', 2)
   end
   if desc.dest == nil then
      -- as optparse does: --dry-run gives dry_run, and a lone -x gives x
      local long
      for _, flag in ipairs(desc) do
         if flag:match('^%-%-.') then long = long or flag end
      end
      desc.dest = ((long or desc[1]):gsub('^%-+', ''):gsub('%-', '_'))
   end
   self.option_descriptions[#self.option_descriptions + 1] = desc
   for _, flag in ipairs(desc) do self.option_of[flag] = desc end
end

-- parse([options]): (options, args) from the global `arg`. Defaults fill what the command line does
-- not give; options.__main__ says whether there was a command line at all.
function OptionParser:parse(options)
   check_self(self, 'parse')
   if options ~= nil and type(options) ~= 'table' then
      error('xlua.OptionParser:parse: bad argument #1 (table or nil expected, got ' .. type(options) .. ')', 2)
   end
   options = options or {}
   local args = {}
   for _, desc in ipairs(self.option_descriptions) do
      if desc.default ~= nil and options[desc.dest] == nil then options[desc.dest] = desc.default end
   end
   local cmdline = rawget(_G, 'arg')
   if type(cmdline) ~= 'table' then
      options.__main__ = false
      self.options = options
      return options, args
   end
   options.__main__ = true

   -- --dir=DIR is read as --dir DIR
   local words = {}
   for i = 1, #cmdline do
      local word = tostring(cmdline[i])
      local flag, value = word:match('^(%-%-[^=]+)=(.*)$')
      if flag then
         words[#words + 1] = flag
         words[#words + 1] = value
      else
         words[#words + 1] = word
      end
   end

   local i = 1
   while i <= #words do
      local word = words[i]
      local desc = self.option_of[word]
      if word == '--' then
         -- what follows is arguments, even when it starts with -
         for j = i + 1, #words do args[#args + 1] = words[j] end
         break
      elseif desc then
         local action, value = desc.action, nil
         if action == nil or action == 'store' then
            i = i + 1
            value = words[i]
            if value == nil then value = desc.default end
            if value == nil then self:fail('option requires an argument ' .. word) end
         elseif action == 'store_true' then
            value = true
         else
            value = false
         end
         options[desc.dest] = value
      elseif word:match('^%-') then
         self:fail('invalid option ' .. word)
      else
         args[#args + 1] = word
      end
      i = i + 1
   end
   if options.help then
      self:help()
      os.exit(0)
   end
   for _, desc in ipairs(self.option_descriptions) do
      if desc.req and options[desc.dest] == nil then
         self:fail('option ' .. desc[1] .. ' requires an argument')
      end
   end
   self.options = options
   return options, args
end

-- flags(desc): '-d DIR, --dir=DIR' as the help shows an option.
function OptionParser:flags(desc)
   check_self(self, 'flags')
   local takes_value = desc.action == nil or desc.action == 'store'
   local metavar = desc.metavar or tostring(desc.dest):upper()
   local shown = {}
   for _, flag in ipairs(desc) do
      if not takes_value then
         shown[#shown + 1] = flag
      elseif #flag == 2 then
         shown[#shown + 1] = flag .. ' ' .. metavar
      else
         shown[#shown + 1] = flag .. '=' .. metavar
      end
   end
   return table.concat(shown, ', ')
end

-- help(): 'Usage: ...', then each option with its help, default and whether it is required.
function OptionParser:help()
   check_self(self, 'help')
   local cmdline = rawget(_G, 'arg')
   local prog = 'THISPROG'
   if type(cmdline) == 'table' then
      if cmdline[-1] then
         prog = tostring(cmdline[-1]) .. ' ' .. tostring(cmdline[0])
      elseif cmdline[0] then
         prog = tostring(cmdline[0])
      end
   end
   local out = { 'Usage: ' .. self.usage:gsub('%%prog', (prog:gsub('%%', '%%%%'))), '', 'Options:' }
   local pad = 0
   for _, desc in ipairs(self.option_descriptions) do pad = math.max(pad, #self:flags(desc)) end
   for _, desc in ipairs(self.option_descriptions) do
      local flags = self:flags(desc)
      local note = ''
      if desc.req then
         note = ' [REQUIRED]'
      elseif desc.default then
         note = ' [default = ' .. tostring(desc.default) .. ']'
      end
      out[#out + 1] = '  ' .. flags .. string.rep(' ', pad - #flags) .. '  ' .. tostring(desc.help or '') .. note
   end
   io.stdout:write(table.concat(out, '\n') .. '\n')
end

-- tostring([compact[, flags]]): the parsed options, one ' + key = value' a line under
-- '<script> configuration:'; with compact, '-a=1,-b=x' (the first flag of each option with a true
-- value, only those in `flags` when given), '/' and ' ' replaced so that it can name a file.
function OptionParser:tostring(compact, flags)
   check_self(self, 'tostring')
   local options = self.options
   if options == nil then error('xlua.OptionParser:tostring: parse() has not been called', 2) end
   if not compact then
      local cmdline = rawget(_G, 'arg')
      local script = type(cmdline) == 'table' and cmdline[0] and tostring(cmdline[0]) or 'interpreted.lua'
      local keys = {}
      for k in pairs(options) do keys[#keys + 1] = k end
      table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
      local out = { '<' .. script:gsub('%.lua$', '') .. '> configuration:\n' }
      for _, k in ipairs(keys) do out[#out + 1] = ' + ' .. tostring(k) .. ' = ' .. tostring(options[k]) .. '\n' end
      return table.concat(out)
   end
   if flags ~= nil and type(flags) ~= 'table' then
      error('xlua.OptionParser:tostring: bad argument #2 (table of flags expected, got ' .. type(flags) .. ')', 2)
   end
   local wanted
   if flags and #flags > 0 then
      wanted = {}
      for _, f in ipairs(flags) do wanted[f] = true end
   end
   local out = {}
   for _, desc in ipairs(self.option_descriptions) do
      local value = options[desc.dest]
      if value and (wanted == nil or wanted[desc[1]]) then
         out[#out + 1] = desc[1] .. '=' .. tostring(value)
      end
   end
   return (table.concat(out, ','):gsub('/', '|'):gsub(' ', '_'))
end

-- summarize([compact[, flags]]): writes tostring's text.
function OptionParser:summarize(compact, flags)
   check_self(self, 'summarize')
   io.write(self:tostring(compact, flags))
end

local xlua = rawget(_G, 'xlua')
if type(xlua) == 'table' then xlua.OptionParser = OptionParser end
return OptionParser
