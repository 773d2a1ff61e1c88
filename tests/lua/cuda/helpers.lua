-- Shared by the tests/lua/cuda scripts. Load it with
--    local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local dir = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './')
local H = dofile(dir .. '../process_test_helpers.lua')
-- Without a usable GPU, require 'cutorch' fails; the error says why (see H.noGpu).
local has_cutorch, why_not = pcall(require, 'cutorch')

H.dir = dir

-- The th running this script (for child processes).
H.th = paths.concat(paths.execdir(), 'th')

-- This process's environment as ipc.spawn's `env` list, LUATORCH_CUDA_IPC left out, plus `extra`
-- ("NAME=value" strings).
function H.environment(extra)
   local env = {}
   local f = assert(io.open('/proc/self/environ', 'rb'))
   for item in f:read('*a'):gmatch('[^%z]+') do
      if not item:match('^LUATORCH_CUDA_IPC=') then env[#env + 1] = item end
   end
   f:close()
   for _, e in ipairs(extra or {}) do env[#env + 1] = e end
   return env
end

-- Why the GPU checks cannot run here, or nil when they can.
function H.noGpu()
   -- The mock driver of tests/cuda_mock runs anywhere, CI included.
   if os.getenv('CI') == 'true' and os.getenv('LUATORCH_CUDA_MOCK') ~= '1' then
      return 'CI=true (CI machines have no GPU)'
   end
   if not has_cutorch then return tostring(why_not) end
   return nil
end

-- Runs every function of `cases` in sorted order, printing `PASS <name>` or `FAIL <name>:
-- <message>` for each; returns the number of failures (exits 1 on failure when `exit` is set).
function H.run(cases, prefix, exit)
   local names = {}
   for name in pairs(cases) do names[#names + 1] = name end
   table.sort(names)
   local failed = 0
   for _, name in ipairs(names) do
      local ok, msg = xpcall(cases[name], debug.traceback)
      local label = (prefix and (prefix .. '.') or '') .. name
      if ok then
         print('PASS ' .. label)
      else
         failed = failed + 1
         print(string.format('FAIL %s: %s', label, tostring(msg)))
      end
      io.stdout:flush()
   end
   if exit then
      if failed > 0 then
         print(string.format('%d of %d checks failed', failed, #names))
         os.exit(1)
      end
      print('ok')
   end
   return failed
end

-- The device tensor type matching a host tensor's.
local toDevice = { ['torch.FloatTensor'] = 'torch.CudaTensor', ['torch.DoubleTensor'] = 'torch.CudaDoubleTensor',
   ['torch.LongTensor'] = 'torch.CudaLongTensor' }
local toHost = {}
for h, d in pairs(toDevice) do toHost[d] = h end

function H.cuda(t) return t:type(toDevice[torch.type(t)]) end
function H.host(t) return t:type(toHost[torch.type(t)]) end
function H.isCuda(v) return toHost[torch.type(v)] ~= nil end

-- Whether a result computed on the device matches the host's: tensors of the matching type and
-- size with elements within `tol` (relative to the magnitude; NaNs must match), or numbers.
function H.close(dev, host, tol, what)
   tol = tol or 1e-5
   if type(host) == 'number' then
      H.check(type(dev) == 'number', '%s: expected a number, got %s', what, torch.type(dev))
      local ok = (dev ~= dev and host ~= host) or math.abs(dev - host) <= tol * math.max(1, math.abs(host))
      H.check(ok, '%s: %.10g on the device, %.10g on the host', what, dev, host)
      return
   end
   H.check(H.isCuda(dev), '%s: expected a CUDA tensor, got %s', what, torch.type(dev))
   H.eq(torch.type(dev), toDevice[torch.type(host)], what .. ': type')
   local ds = dev:dim() > 0 and table.concat(dev:size():totable(), 'x') or 'empty'
   local hs = host:dim() > 0 and table.concat(host:size():totable(), 'x') or 'empty'
   H.check(ds == hs, '%s: size %s on the device, %s on the host', what, ds, hs)
   if host:nElement() == 0 then return end
   local d = H.host(dev):double():view(-1)
   local h = host:double():contiguous():view(-1)
   for i = 1, h:size(1) do
      local a, b = d[i], h[i]
      local ok = (a ~= a and b ~= b) or a == b or math.abs(a - b) <= tol * math.max(1, math.abs(b))
      if not ok then
         error(string.format('%s: element %d is %.10g on the device, %.10g on the host', what, i, a, b), 2)
      end
   end
end

-- Applies f to host tensors and to device copies of them (other values as they are); compares
-- every result with `compare(dev, host, tol, what)`, H.close by default.
function H.same(what, f, inputs, tol, compare)
   compare = compare or H.close
   local dev = {}
   for i, t in ipairs(inputs) do dev[i] = torch.isTensor(t) and H.cuda(t) or t end
   local hostResults = { f(unpack(inputs)) }
   local devResults = { f(unpack(dev)) }
   H.eq(#devResults, #hostResults, what .. ': number of results')
   for i = 1, #hostResults do
      compare(devResults[i], hostResults[i], tol, what .. ' (result ' .. i .. ')')
   end
   -- In-place forms change the inputs: those must agree too.
   for i, t in ipairs(inputs) do
      if torch.isTensor(t) then compare(dev[i], t, tol, what .. ' (input ' .. i .. ' afterwards)') end
   end
end

return H
