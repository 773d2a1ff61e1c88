-- torch.CmdLine: command-line options and arguments for scripts, with Torch's help text, the
-- 'prefix,key=value' run names that scripts use for log directories, and log files that receive
-- everything `print` shows.
--
--   local cmd = torch.CmdLine()
--   cmd:text('Training')
--   cmd:option('-lr', 0.1, 'learning rate')
--   cmd:argument('data', 'data file')
--   local opt = cmd:parse(arg)

local torch = require 'torch'

local CmdLine = torch.class('torch.CmdLine')

-- '-lr' and '--lr' are stored under 'lr'.
local function bare(key)
   return (key:match('^%-*(.*)$'))
end

local function padded(s, width)
   return s .. string.rep(' ', width - #s)
end

local function check_self(self, method)
   if torch.typename(self) ~= 'torch.CmdLine' then
      error('CmdLine.' .. method .. ': expected a torch.CmdLine (use cmd:' .. method .. '(...))', 3)
   end
end

function CmdLine:__init(argseparator, keyseparator)
   self.argseparator = argseparator or ','
   self.keyseparator = keyseparator or '='
   self.options = {}
   self.arguments = {}
   -- Options, arguments and text lines in declaration order: what help() prints.
   self.helplines = {}
   self.dateformat = nil
   self.silentio = false
end

-- Log lines written by log() go only to the file, not to the screen.
function CmdLine:silent()
   check_self(self, 'silent')
   self.silentio = true
end

-- Log lines written by log() start with the date (os.date format) and '[name]: '.
function CmdLine:addTime(name, format)
   check_self(self, 'addTime')
   format = format or '%Y-%m-%d %H:%M:%S'
   if type(format) ~= 'string' then
      error('CmdLine.addTime: the format must be a string, got ' .. type(format), 2)
   end
   self.dateformat = format .. (name ~= nil and ('[' .. tostring(name) .. ']: ') or '')
end

function CmdLine:argument(key, help, kind)
   check_self(self, 'argument')
   if type(key) ~= 'string' then
      error('CmdLine.argument: the argument name must be a string, got ' .. type(key), 2)
   end
   local entry = { key = key, help = help, type = kind }
   self.arguments[#self.arguments + 1] = entry
   self.helplines[#self.helplines + 1] = entry
end

-- option('-name', default, help [, type]): the type is the default's unless given.
function CmdLine:option(key, default, help, kind)
   check_self(self, 'option')
   if type(key) ~= 'string' then
      error('CmdLine.option: the option name must be a string, got ' .. type(key), 2)
   end
   if default == nil then
      error('CmdLine.option: option ' .. key .. ' has no default value', 2)
   end
   kind = kind or type(default)
   if type(default) ~= kind then
      error('CmdLine.option: option ' .. key .. ' has a default of type ' .. type(default) ..
         ', not ' .. tostring(kind), 2)
   end
   local entry = { key = key, default = default, help = help, type = kind }
   if self.options[key] == nil then
      self.helplines[#self.helplines + 1] = entry
   else
      -- Redeclaring an option replaces it where it was listed.
      for i, line in ipairs(self.helplines) do
         if line == self.options[key] then self.helplines[i] = entry end
      end
   end
   self.options[key] = entry
end

function CmdLine:text(txt)
   check_self(self, 'text')
   txt = txt or ''
   if type(txt) ~= 'string' then
      error('CmdLine.text: expected a string, got ' .. type(txt), 2)
   end
   self.helplines[#self.helplines + 1] = txt
end

-- The params table with every option at its default.
function CmdLine:default()
   check_self(self, 'default')
   local params = {}
   for key, option in pairs(self.options) do
      params[bare(key)] = option.default
   end
   return params
end

-- As Torch: a blank line, `msg` on stderr, a blank line and the help on stdout, then exit with
-- status 1 (scripts and the shells that run them rely on it).
function CmdLine:error(msg)
   print('')
   io.stderr:write(msg)
   print('')
   self:help()
   os.exit(1)
end

local function fail(self, msg)
   self:error(msg)
end

-- An option's value from the word after it; returns the value and how many words it used.
local function read_option(self, option, words, i)
   if option.type == 'boolean' then
      return not option.default, 1
   end
   local value = words[i + 1]
   if value == nil then
      fail(self, 'missing argument for option ' .. option.key)
   end
   if option.type == 'number' then
      local n = tonumber(value)
      if n == nil then
         fail(self, 'invalid type for option ' .. option.key .. ' (should be number)')
      end
      value = n
   elseif option.type ~= 'string' then
      fail(self, 'unknown required option type ' .. tostring(option.type))
   end
   return value, 2
end

local function read_argument(self, value, n)
   local argument = self.arguments[n]
   if argument == nil then
      fail(self, 'invalid argument: ' .. tostring(value))
   end
   if argument.type == 'number' then
      local v = tonumber(value)
      if v == nil then
         fail(self, 'invalid argument type for argument ' .. argument.key .. ' (should be number)')
      end
      value = v
   elseif argument.type ~= nil and argument.type ~= 'string' and type(value) ~= argument.type then
      fail(self, 'invalid argument type for argument ' .. argument.key .. ' (should be ' ..
         argument.type .. ')')
   end
   return value
end

-- Reads `words` (normally the script's `arg`): options in any order, then positional arguments
-- in declaration order. -h, -help and --help print the help and exit.
function CmdLine:parse(words)
   check_self(self, 'parse')
   words = words or {}
   if type(words) ~= 'table' then
      error('CmdLine.parse: expected the argument table (arg), got ' .. type(words), 2)
   end
   local params = self:default()
   local i, n = 1, 0
   while i <= #words do
      local word = words[i]
      local option = self.options[word]
      -- Checked where an option may stand, so '-name -h' gives name the value '-h'.
      if word == '-h' or word == '-help' or word == '--help' then
         self:help(words)
         os.exit(0)
      elseif option then
         local value, used = read_option(self, option, words, i)
         params[bare(word)] = value
         i = i + used
      else
         -- An undeclared '-x' is a positional argument, as in Torch.
         n = n + 1
         local value = read_argument(self, word, n)
         params[bare(self.arguments[n].key)] = value
         i = i + 1
      end
   end
   if n < #self.arguments then
      fail(self, 'not enough arguments')
   end
   return params
end

-- prefix .. ',' .. the positional arguments as key=value in order, then the options that differ
-- from their defaults, sorted; booleans as t/f. Keys in `ignore` are left out.
function CmdLine:string(prefix, params, ignore)
   check_self(self, 'string')
   if type(params) ~= 'table' then
      error('CmdLine.string: bad argument #2 (params table expected, got ' .. type(params) .. ')', 2)
   end
   prefix = prefix or ''
   ignore = ignore or {}
   local sep, kv = self.argseparator, self.keyseparator
   local arguments, options = {}, {}
   for k, v in pairs(params) do
      local option = self.options['-' .. k] or self.options['--' .. k]
      if ignore[k] then
         print('-- ignore option ' .. k)
      elseif option then
         if v ~= option.default or ignore[k] == false then
            if type(v) == 'boolean' then v = v and 't' or 'f' end
            options[#options + 1] = k .. kv .. tostring(v)
            print(k, v, option.default)
         end
      else
         local position
         for i, argument in ipairs(self.arguments) do
            if bare(argument.key) == k then position = i end
         end
         if position then
            arguments[position] = k .. kv .. tostring(v)
         else
            print('WARNING: unknown option/argument: ' .. k .. ' IGNORING for DIRECTORY NAME')
         end
      end
   end
   table.sort(options)
   local parts = {}
   for i = 1, #self.arguments do
      if arguments[i] then parts[#parts + 1] = arguments[i] end
   end
   for _, o in ipairs(options) do parts[#parts + 1] = o end
   if #parts == 0 then return prefix end
   return prefix .. sep .. table.concat(parts, sep)
end

-- The print in effect before the first log(): logging prints through it, and a second log()
-- replaces the first one's print instead of stacking on it.
local screen_print

-- Sends everything `print` shows to `file` as well (a file name, or an open file), one line per
-- call: the values as tostring gives them, separated by spaces, after the date when addTime was
-- called. Starts the file with a header listing `params`.
function CmdLine:log(file, params)
   check_self(self, 'log')
   local f
   if io.type(file) == 'file' then
      f = file
   else
      if type(file) ~= 'string' then
         error('CmdLine.log: bad argument #1 (file name expected, got ' .. type(file) .. ')', 2)
      end
      local err
      f, err = io.open(file, 'w')
      if not f then error('CmdLine.log: cannot open ' .. err, 2) end
   end
   screen_print = screen_print or print
   local out = screen_print
   local cmd = self
   local function logging_print(...)
      if not cmd.silentio then out(...) end
      local line = {}
      if cmd.dateformat then line[#line + 1] = os.date(cmd.dateformat) end
      for i = 1, select('#', ...) do
         line[#line + 1] = tostring((select(i, ...)))
      end
      line[#line + 1] = '\n'
      f:write(table.concat(line, ' '))
      f:flush()
   end
   rawset(_G, 'print', logging_print)
   logging_print('[program started on ' .. os.date() .. ']')
   logging_print('[command line arguments]')
   if params then
      for k, v in pairs(params) do logging_print(k, v) end
   end
   logging_print('[----------------------]')
end

-- Usage line, then the options, arguments and text lines in the order they were declared.
function CmdLine:help(words)
   check_self(self, 'help')
   local out = { 'Usage: ' }
   if type(words) == 'table' and words[0] ~= nil then out[#out + 1] = tostring(words[0]) .. ' ' end
   out[#out + 1] = '[options]'
   for _, argument in ipairs(self.arguments) do
      out[#out + 1] = ' <' .. bare(argument.key) .. '>'
   end
   out[#out + 1] = '\n'
   local width = 0
   for _, line in ipairs(self.helplines) do
      if type(line) == 'table' then
         local w = line.default ~= nil and #line.key or #bare(line.key) + 2
         if w > width then width = w end
      end
   end
   for _, line in ipairs(self.helplines) do
      if type(line) == 'table' then
         out[#out + 1] = '  '
         if line.default ~= nil then
            out[#out + 1] = padded(line.key, width)
            if line.help then out[#out + 1] = ' ' .. tostring(line.help) end
            out[#out + 1] = ' [' .. tostring(line.default) .. ']'
         else
            out[#out + 1] = padded('<' .. bare(line.key) .. '>', width)
            if line.help then out[#out + 1] = ' ' .. tostring(line.help) end
         end
      else
         out[#out + 1] = line
      end
      out[#out + 1] = '\n'
   end
   io.write(table.concat(out))
   io.flush()
end

return CmdLine
