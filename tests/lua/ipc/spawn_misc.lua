-- ipc.getpid, getppid, gettid, isOSX, isDevel, fork and waitpid. tests/ipc_spawn.rs runs it with
-- CKOIA_DEVEL_MODE unset, '1...' and '0' and checks the fork output markers.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'spawn_helpers'
local ipc = require 'libipc'
local ffi = require 'ffi'
ffi.cdef [[
int kill(int pid, int sig);
int pause(void);
typedef unsigned long spawn_test_pthread_t;
int pthread_create(spawn_test_pthread_t *thread, const void *attr, void *(*start)(void *), void *arg);
]]

local function stat_field(n)
   local f = assert(io.open('/proc/self/stat'))
   local line = f:read('*l')
   f:close()
   -- pid (comm) state ppid ...: fields after the parenthesised name.
   local rest = line:match('.*%) (.*)')
   local fields = {}
   for w in rest:gmatch('%S+') do fields[#fields + 1] = w end
   return tonumber(fields[n - 2])
end

H.run {
   ids = function()
      H.eq(ipc.getpid(), H.pid(), 'getpid')
      H.eq(ipc.getppid(), stat_field(4), 'getppid')
      local tid = ipc.gettid()
      H.eq(type(tid), 'number', 'gettid')
      H.check(tid ~= 0, 'gettid is 0')
      H.eq(ipc.gettid(), tid, 'gettid is stable on one thread')
   end,

   platform = function()
      H.eq(ipc.isOSX(), false, 'isOSX')
      local mode = os.getenv('CKOIA_DEVEL_MODE') or ''
      H.eq(ipc.isDevel(), mode:sub(1, 1) == '1', 'isDevel with CKOIA_DEVEL_MODE=' .. mode)
   end,

   forkAndWaitpid = function()
      local parent = ipc.getpid()
      -- Buffered output is flushed before the fork, so it is not written twice.
      io.write('fork-marker-before ')
      local pid = ipc.fork()
      if pid == 0 then
         -- The child runs on with a copy of the Lua state.
         local ok = ipc.getppid() == parent and ipc.getpid() ~= parent
         local t = torch.Tensor(10):fill(2)
         os.exit(ok and t:sum() or 1)
      end
      H.check(pid > 0, 'fork returned %s', tostring(pid))
      H.eq(ipc.waitpid(pid), 20, 'exit code of the child')
      io.write('\n')
      -- A child ended by a signal: waitpid returns nothing.
      pid = ipc.fork()
      if pid == 0 then
         ffi.C.kill(ipc.getpid(), 9)
         os.exit(0)
      end
      H.eq(select('#', ipc.waitpid(pid)), 0, 'values for a killed child')
      -- Waiting for a child that is not ours, or twice, raises.
      H.raises('waitpid(1)', function() ipc.waitpid(1) end, 'ipc.waitpid', 'No child processes')
      H.raises('waitpid twice', function() ipc.waitpid(pid) end, 'No child processes')
      H.raises('waitpid(string)', function() ipc.waitpid('x') end, 'expected a process id', 'string')
      H.raises('waitpid(1.5)', function() ipc.waitpid(1.5) end, 'expected a process id')
   end,

   forkKeepsParentChildren = function()
      -- A forked process collecting its copy of a spawn handle leaves the parent's child alone.
      local p = ipc.spawn({ file = 'cat' })
      local pid = ipc.fork()
      if pid == 0 then
         p = nil
         collectgarbage()
         collectgarbage()
         os.exit(0)
      end
      H.eq(ipc.waitpid(pid), 0, 'fork child exit code')
      H.eq(p:running(), true, 'cat still running')
      p:stdin('still here\n')
      p:stdin()
      H.eq(p:stdout('*l'), 'still here', 'cat answers')
      H.eq(p:wait(), 0, 'exit code')
   end,

   -- Last: it leaves a thread behind.
   zforkRefusedWithThreads = function()
      local thread = ffi.new('spawn_test_pthread_t[1]')
      local start = ffi.cast('void *(*)(void *)', ffi.C.pause)
      H.eq(ffi.C.pthread_create(thread, nil, start, nil), 0, 'pthread_create')
      H.raises('fork with 2 threads', function() ipc.fork() end,
         'ipc.fork: not supported in a process running 2 threads', 'deadlock', 'ipc.spawn')
   end,
}
