-- torch.Timer and torch.tic/toc: monotonicity and the stop/resume/reset logic. No assertion
-- depends on how long anything takes.
local H = dofile('torch_test_helpers.lua')

local t = torch.Timer()
H.eq(torch.typename(t), 'torch.Timer', 'typename')
H.eq(tostring(t), 'torch.Timer [status: running]', 'tostring running')
local a = t:time()
for _, k in ipairs({ 'real', 'user', 'sys' }) do
   H.eq(type(a[k]), 'number', k .. ' is a number')
   H.check(a[k] >= 0, k .. ' is not negative')
end

-- While running, every clock only moves forward.
local prev = t:time()
for _ = 1, 200 do
   local now = t:time()
   for _, k in ipairs({ 'real', 'user', 'sys' }) do
      H.check(now[k] >= prev[k], k .. ' went backwards')
   end
   prev = now
end

-- Stopped: time() no longer changes, however often it is read.
H.check(t:stop() == t, 'stop returns the timer')
H.eq(tostring(t), 'torch.Timer [status: stopped]', 'tostring stopped')
local s1 = t:time()
for _ = 1, 1000 do math.sqrt(12345) end
local s2 = t:time()
H.eq(s2.real, s1.real, 'stopped real is frozen')
H.eq(s2.user, s1.user, 'stopped user is frozen')
H.eq(s2.sys, s1.sys, 'stopped sys is frozen')
t:stop()
H.eq(t:time().real, s1.real, 'a second stop changes nothing')

-- Resumed: counting continues from the stopped total.
H.check(t:resume() == t, 'resume returns the timer')
H.eq(tostring(t), 'torch.Timer [status: running]', 'tostring resumed')
H.check(t:time().real >= s1.real, 'resumed total starts from the stopped total')
t:resume()
H.check(t:time().real >= s1.real, 'resume while running changes nothing')

-- Stopped time does not count. t1 starts after t2, then stops while t2 runs on until it is
-- 0.05 s ahead; once resumed, t1 can never catch up those 0.05 s.
local t2 = torch.Timer()
local t1 = torch.Timer()
t1:stop()
local frozen = t1:time().real
while t2:time().real - frozen < 0.05 do end
t1:resume()
local r1 = t1:time().real
local r2 = t2:time().real
H.check(r2 - r1 >= 0.049, 'the stopped stretch was not counted (' .. r2 .. ' vs ' .. r1 .. ')')

-- reset while stopped: zero, and still stopped.
local z = torch.Timer()
z:stop()
H.check(z:reset() == z, 'reset returns the timer')
local zt = z:time()
H.eq(zt.real, 0, 'reset real')
H.eq(zt.user, 0, 'reset user')
H.eq(zt.sys, 0, 'reset sys')
H.eq(tostring(z), 'torch.Timer [status: stopped]', 'reset keeps a stopped timer stopped')
for _ = 1, 1000 do math.sqrt(2) end
H.eq(z:time().real, 0, 'a reset, stopped timer stays at zero')
z:resume()
H.check(z:time().real >= 0, 'counts again after resume')

-- reset while running: keeps running, starting again from zero (below a timer that was not
-- reset and started earlier).
local early = torch.Timer()
local running = torch.Timer()
while early:time().real < 0.01 do end
running:reset()
H.eq(tostring(running), 'torch.Timer [status: running]', 'reset keeps a running timer running')
local rr = running:time().real
H.check(rr < early:time().real, 'reset restarted the count')

-- Methods chain; calling them on something else is an error naming the method.
H.check(torch.Timer():stop():resume():reset():stop() ~= nil, 'chaining')
H.fails_containing(function() torch.Timer.time({}) end, 'torch.Timer.time: expected a torch.Timer')

-- tic/toc: wall-clock seconds (since the epoch) and the seconds since a tic.
local tic = torch.tic()
H.eq(type(tic), 'number', 'tic is a number')
H.check(tic > 1e9, 'tic is seconds since the epoch')
local e1 = torch.toc(tic)
local e2 = torch.toc(tic)
H.check(e1 >= 0 and e2 >= e1, 'toc grows')
H.fails_containing(function() torch.toc() end, 'torch.toc: bad argument #1 (number from torch.tic() expected, got nil)')

print('ok')
