-- torch.Timer, and torch.tic/torch.toc.
--
-- A Timer accumulates wall time (from a monotonic clock) and the process's user and system CPU
-- time (getrusage) while it runs. Stopped time does not count: stop() adds the running stretch to
-- the totals, resume() starts a new stretch, and reset() zeroes the totals without changing
-- whether the timer runs (so a stopped timer stays stopped, at zero). The clocks are read by
-- libtorch (src/torch/timer.rs).

local torch = require 'torch'
local C = torch._C

local clock = C.timerClock

local Timer = torch.class('torch.Timer')

local function check(self, method)
   if torch.typename(self) ~= 'torch.Timer' then
      error('torch.Timer.' .. method .. ': expected a torch.Timer (use timer:' .. method .. '())', 3)
   end
end

-- Starts the current stretch now.
local function start(self)
   self._startReal, self._startUser, self._startSys = clock()
end

function Timer:__init()
   self._running = true
   self._totalReal, self._totalUser, self._totalSys = 0, 0, 0
   start(self)
end

function Timer:reset()
   check(self, 'reset')
   self._totalReal, self._totalUser, self._totalSys = 0, 0, 0
   start(self)
   return self
end

function Timer:stop()
   check(self, 'stop')
   if self._running then
      local real, user, sys = clock()
      self._totalReal = self._totalReal + (real - self._startReal)
      self._totalUser = self._totalUser + (user - self._startUser)
      self._totalSys = self._totalSys + (sys - self._startSys)
      self._running = false
   end
   return self
end

function Timer:resume()
   check(self, 'resume')
   if not self._running then
      self._running = true
      start(self)
   end
   return self
end

function Timer:isRunning()
   check(self, 'isRunning')
   return self._running
end

-- {real=, user=, sys=} in seconds: the totals, plus the current stretch when running.
function Timer:time()
   check(self, 'time')
   local real, user, sys = self._totalReal, self._totalUser, self._totalSys
   if self._running then
      local r, u, s = clock()
      real = real + (r - self._startReal)
      user = user + (u - self._startUser)
      sys = sys + (s - self._startSys)
   end
   return { real = real, user = user, sys = sys }
end

function Timer:__tostring__()
   return 'torch.Timer [status: ' .. (self._running and 'running' or 'stopped') .. ']'
end

-- torch.tic() gives the wall-clock time in seconds; torch.toc(t) the seconds elapsed since t.
local wall = C.wallClock

function torch.tic()
   return wall()
end

function torch.toc(t)
   if type(t) ~= 'number' then
      error('torch.toc: bad argument #1 (number from torch.tic() expected, got ' .. type(t) .. ')', 2)
   end
   return wall() - t
end

return Timer
