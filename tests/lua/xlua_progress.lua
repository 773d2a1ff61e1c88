-- Draws one progress bar of N steps (first argument, default 20), then a second one, on stdout.
local n = tonumber((...)) or 20
assert(xlua == require 'xlua' and rawget(_G, 'xlua') == xlua)
for i = 1, n do xlua.progress(i, n) end
io.write('between bars\n')
for i = 1, 3 do xlua.progress(i, 3) end
local ok, err = pcall(xlua.progress, 'x', 3)
assert(not ok and err:find('xlua.progress', 1, true), tostring(err))
-- formatTime
assert(xlua.formatTime(0) == '0ms')
assert(xlua.formatTime(0.0123) == '12ms')
assert(xlua.formatTime(1.5) == '1s500ms')
assert(xlua.formatTime(83) == '1m23s')
assert(xlua.formatTime(3723.5) == '1h2m')
assert(xlua.formatTime(90000) == '1D1h')
io.write('done\n')
