-- The GPU checks of cutorch, runnable on a machine with a GPU and a prebuilt th:
--    th tests/lua/cuda/run_all.lua [name-pattern]
-- Prints `PASS <file>.<case>` or `FAIL <file>.<case>: <message>` per case, then `ok` or the count
-- of failures (exit 1). Without a GPU (or under CI=true) it prints why and `SKIP`, exiting 0.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

local why = H.noGpu()
if why then
   print('SKIP cutorch GPU checks: ' .. why)
   os.exit(0)
end

local pattern = arg and arg[1]
local failed, total = 0, 0
for _, file in ipairs { 'device', 'ops', 'construct', 'gather', 'matrix', 'blas', 'reduce', 'sort', 'serialize', 'ffi', 'streams', 'ipc', 'share' } do
   local cases = dofile(H.dir .. file .. '.lua')
   local selected = {}
   for name, f in pairs(cases) do
      if not pattern or (file .. '.' .. name):find(pattern) then
         selected[name] = f
         total = total + 1
      end
   end
   failed = failed + H.run(selected, file)
end
if failed > 0 then
   print(string.format('%d of %d checks failed', failed, total))
   os.exit(1)
end
print(string.format('ok (%d checks)', total))
