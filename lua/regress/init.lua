-- regress: the small unit-test harness torch-ipc's tests are written for.
--
--    local test = require 'regress'
--    test {
--       someCase = function() test.mustBeTrue(1 + 1 == 2, 'arithmetic') end,
--       ...
--    }
--
-- Cases run in sorted name order, each under xpcall with a traceback. A line of marks shows each
-- case's outcome, then every failure is reported with its traceback, and if any case failed the
-- call raises an error naming them. The assertion functions work anywhere, ipc.map worker
-- threads included (a failure there is an ordinary Lua error that surfaces through join).

local test = {}

local marks = { pass = '\226\156\148', fail = '\226\156\151', warn = '?' } -- check mark, ballot x

-- Colours only when stdout is a terminal (worker threads have no trepl to ask).
local function painter()
   local ok, sys = pcall(require, 'libsys')
   local tty = ok and type(sys.isatty) == 'function' and sys.isatty(1) and os.getenv('TERM') ~= 'dumb'
   local codes = { green = '\27[0;32m', red = '\27[0;31m', magenta = '\27[0;35m' }
   return function(colour, s)
      if not tty then return s end
      return codes[colour] .. s .. '\27[0m'
   end
end

-- Warnings from should* calls made while no run is in progress go to stderr at once; during a run
-- they are collected and printed with the report.
local warnings = nil

local function warn(msg, level)
   local info = debug.getinfo(level + 1, 'Sl')
   local where = info and (info.short_src .. ':' .. tostring(info.currentline)) or '?'
   local text = where .. ': ' .. tostring(msg)
   if warnings then
      table.insert(warnings, text)
   else
      io.stderr:write('regress warning: ', text, '\n')
   end
end

local function describe(v)
   if type(v) == 'string' then return string.format('%q', v) end
   return tostring(v)
end

function test.mustBeTrue(v, msg)
   if v ~= true then error(msg or ('expected true, got ' .. describe(v)), 2) end
end

function test.mustBeFalse(v, msg)
   if v ~= false then error(msg or ('expected false, got ' .. describe(v)), 2) end
end

function test.mustExist(v, msg)
   if not v then error(msg or ('expected a value, got ' .. describe(v)), 2) end
end

function test.shouldBeTrue(v, msg)
   if v ~= true then warn(msg or ('expected true, got ' .. describe(v)), 2) end
end

function test.shouldBeFalse(v, msg)
   if v ~= false then warn(msg or ('expected false, got ' .. describe(v)), 2) end
end

function test.shouldExist(v, msg)
   if not v then warn(msg or ('expected a value, got ' .. describe(v)), 2) end
end

-- Plain-ASCII marks (v, x, ?) for terminals without UTF-8.
function test.ascii()
   marks.pass, marks.fail, marks.warn = 'v', 'x', '?'
end

-- The source of the script that called test{...} or test.run(...), without the leading '@'.
local function caller_source()
   for level = 3, 6 do
      local info = debug.getinfo(level, 'S')
      if not info then break end
      if info.source ~= debug.getinfo(1, 'S').source then
         return (info.source:gsub('^@', ''))
      end
   end
   return '?'
end

-- Runs every case of `tests` (a table of name -> function). Returns true when all passed; raises
-- an error naming the failed cases otherwise.
function test.run(tests)
   if type(tests) ~= 'table' then
      error('regress: expected a table of test functions, got ' .. type(tests), 2)
   end
   local names = {}
   for name, fn in pairs(tests) do
      if type(fn) ~= 'function' then
         error('regress: test ' .. tostring(name) .. ' is a ' .. type(fn) .. ', not a function', 2)
      end
      table.insert(names, name)
   end
   table.sort(names, function(a, b) return tostring(a) < tostring(b) end)

   local paint = painter()
   local source = caller_source()
   io.write('Running tests for file [', source, ']:\n')
   io.flush()

   local outer = warnings
   warnings = {}
   local failures = {}
   for _, name in ipairs(names) do
      local ok, err = xpcall(tests[name], debug.traceback)
      if ok then
         io.write(paint('green', marks.pass))
      else
         io.write(paint('red', marks.fail))
         table.insert(failures, { name = name, err = err })
      end
      io.flush()
   end
   io.write('\n')
   local found = warnings
   warnings = outer

   for _, f in ipairs(failures) do
      io.write(paint('red', 'test[' .. tostring(f.name) .. '] failed - ' .. tostring(f.err)), '\n')
   end
   for _, w in ipairs(found) do
      io.write(paint('magenta', marks.warn .. ' warning: ' .. w), '\n')
   end
   io.write(string.format('%d of %d tests passed in [%s]\n', #names - #failures, #names, source))
   io.flush()

   if #failures > 0 then
      local failed = {}
      for _, f in ipairs(failures) do table.insert(failed, tostring(f.name)) end
      error(string.format('regress: %d of %d tests failed in [%s]: %s', #failures, #names, source,
         table.concat(failed, ', ')), 0)
   end
   return true
end

return setmetatable(test, {
   __call = function(_, tests) return test.run(tests) end,
})
