-- torch.conv2 / xcorr2 / conv3 (kernels::conv) on float32, timed as PyTorch's side does it
-- (benches/conv_torch.py: torch.nn.functional.conv2d / conv3d on one thread):
--    th examples/bench_conv.lua [repeats]
-- Each case prints the median milliseconds of `repeats` calls after a warm-up call, and the
-- result's sum (the Python side prints the same sums, to show that both computed the same thing).
torch.setdefaulttensortype('torch.FloatTensor')
torch.setnumthreads(1)
local repeats = tonumber(arg[1]) or 20

local function median(f)
   f()
   local times = {}
   for i = 1, repeats do
      local timer = torch.Timer()
      f()
      times[i] = timer:time().real
   end
   table.sort(times)
   return times[math.floor((repeats + 1) / 2)] * 1000
end

-- Deterministic operands that both sides can make: sin of the element index.
local function wave(...)
   local t = torch.Tensor(...)
   local n = t:nElement()
   t:copy(torch.range(1, n):sin():view(t:size()))
   return t
end

local image = wave(256, 256)
local volume = wave(32, 64, 64)
local planes = wave(16, 64, 64)
local cases = {
   { 'conv2 256x256 * 5x5 V', 'conv2', image, wave(5, 5), 'V' },
   { 'conv2 256x256 * 5x5 F', 'conv2', image, wave(5, 5), 'F' },
   { 'conv2 256x256 * 11x11 V', 'conv2', image, wave(11, 11), 'V' },
   { 'conv2 256x256 * 11x11 F', 'conv2', image, wave(11, 11), 'F' },
   { 'xcorr2 256x256 * 11x11 V', 'xcorr2', image, wave(11, 11), 'V' },
   { 'conv3 32x64x64 * 5x5x5 V', 'conv3', volume, wave(5, 5, 5), 'V' },
   { 'conv3 32x64x64 * 5x5x5 F', 'conv3', volume, wave(5, 5, 5), 'F' },
   { 'conv2 16x64x64 * 32x16x5x5 V', 'conv2', planes, wave(32, 16, 5, 5), 'V' },
}
for _, c in ipairs(cases) do
   local name, f, x, k, mode = (table.unpack or unpack)(c)
   local out
   local ms = median(function() out = torch[f](x, k, mode) end)
   print(string.format('%-30s %9.3f ms   sum %.6g', name, ms, out:double():sum()))
end
