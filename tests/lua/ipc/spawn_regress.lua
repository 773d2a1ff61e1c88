-- A small stand-in for clementfarabet/regress (the test harness torch-ipc's tests require), enough to run
-- torch-ipc's test files unchanged: `test{name = fn, ...}` runs the cases in sorted order, prints
-- `PASS <name>` or `FAIL <name>: <traceback>` for each, and raises at the end if any failed.
local test = {}

local function check(cond, msg)
   if not cond then error(msg or 'assertion failed', 3) end
end

function test.mustBeTrue(v, msg) check(v == true, msg) end
function test.mustBeFalse(v, msg) check(v == false, msg) end
function test.mustExist(v, msg) check(v, msg) end
test.shouldBeTrue = test.mustBeTrue
test.shouldBeFalse = test.mustBeFalse
test.shouldExist = test.mustExist
function test.ascii() end

function test.run(cases)
   local names = {}
   for name in pairs(cases) do names[#names + 1] = name end
   table.sort(names)
   local failed = 0
   for _, name in ipairs(names) do
      local ok, msg = xpcall(cases[name], debug.traceback)
      if ok then
         print('PASS ' .. name)
      else
         failed = failed + 1
         print('FAIL ' .. name .. ': ' .. tostring(msg))
      end
   end
   io.stdout:flush()
   if failed > 0 then error(string.format('%d of %d tests failed', failed, #names), 2) end
end

return setmetatable(test, { __call = function(_, cases) return test.run(cases) end })
