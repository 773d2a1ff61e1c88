-- Collecting an ipc.spawn handle that was never waited: the child gets SIGTERM (then SIGKILL if it
-- ignores it) and is reaped before collectgarbage returns, so no process is left.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'spawn_helpers'
local ipc = require 'libipc'

-- Starts a program in a function of its own, so that no live register keeps the handle, and
-- returns its pid. With `ready`, waits for the program's first line to be that.
local function start(file, args, ready)
   local p = ipc.spawn({ file = file, args = args })
   if ready then H.eq(p:stdout('*l'), ready, 'first line') end
   return p:pid()
end

local function collect()
   collectgarbage()
   collectgarbage()
end

local function reaped(pid)
   return io.open('/proc/' .. pid .. '/stat') == nil
end

H.run {
   runningChild = function()
      local pid = start('sleep', { 100 })
      H.check(H.alive(pid), 'sleep did not start')
      collect()
      H.check(reaped(pid), 'sleep %d is still there after collection', pid)
   end,

   childIgnoringTerm = function()
      -- The shell says so once SIGTERM is ignored; exec keeps that for sleep.
      local pid = start('sh', { '-c', "trap '' TERM; echo ignoring; exec sleep 100" }, 'ignoring')
      collect()
      H.check(reaped(pid), 'a child ignoring SIGTERM is still there after collection')
   end,

   childWithUnreadOutput = function()
      local pid = start('yes')
      collect()
      H.check(reaped(pid), 'yes is still there after collection')
   end,

   childWaitingOnStdin = function()
      local pid = start('cat')
      collect()
      H.check(reaped(pid), 'cat is still there after collection')
   end,

   manyChildren = function()
      local pids = {}
      for i = 1, 20 do pids[i] = start('sleep', { 100 }) end
      collect()
      for _, pid in ipairs(pids) do H.check(reaped(pid), 'sleep %d is still there', pid) end
   end,

   waitedHandle = function()
      local p = ipc.spawn({ file = 'echo', args = { 'good' } })
      H.eq(p:wait(), 0, 'exit code')
      p = nil
      collect()
   end,

   -- torch-ipc's testErrors: an error between spawn and wait.
   errorBeforeWait = function()
      local pid
      local ok = pcall(function()
         local p = ipc.spawn({ file = 'sleep', args = { 100 } })
         pid = p:pid()
         error('die before waiting')
         p:wait()
      end)
      H.eq(ok, false, 'pcall')
      collect()
      H.check(reaped(pid), 'sleep is still there after the error and collection')
   end,
}
