-- Whether CUDA in this process goes through NVIDIA MPS (Multi-Process Service), as `cutorch.mps()`.
--
-- At its first CUDA call a process asks the MPS control daemon of its pipe directory
-- (CUDA_MPS_PIPE_DIRECTORY, else /tmp/nvidia-mps) for a server; where no daemon answers there, CUDA
-- runs without MPS. So MPS is in use when a live control daemon owns that directory. The daemon
-- makes there its `control` socket (a FIFO in old drivers) and `nvidia-cuda-mps-control.pid`; the pid
-- file goes when the daemon stops, the socket may stay. This looks at those files and /proc only:
-- it does not talk to the daemon (a connection would show in its log), needs no GPU and no CUDA
-- (so it answers before `require 'cutorch'` and where that fails), and never raises.
--
-- require('cutorch.mps').probe() returns nil when no MPS pipe directory is in play (the variable is
-- unset and /tmp/nvidia-mps does not exist), else a table:
--   pipeDirectory  the directory CUDA looks in
--   logDirectory   CUDA_MPS_LOG_DIRECTORY, else the default /var/log/nvidia-mps
--   fromEnv        true when CUDA_MPS_PIPE_DIRECTORY set it
--   control        'socket', 'fifo', 'other', 'missing', or 'unknown' (the type could not be read)
--   pid            the pid in the daemon's pid file, when there is one
--   active         true when that pid is a live control daemon and `control` is there
--   reason         why not active (absent when active)

local M = {}

local DEFAULT_PIPE = '/tmp/nvidia-mps'
local DEFAULT_LOG = '/var/log/nvidia-mps'
local PID_FILE = 'nvidia-cuda-mps-control.pid'

local ffi_ok, ffi = pcall(require, 'ffi')
local bit = require 'bit'

-- File types through statx(2): its struct has the same layout on every Linux architecture, unlike
-- struct stat, and glibc has exported it since 2.28. Each declaration on its own, as another module
-- may have declared the same function already.
local statx
if ffi_ok and ffi.os == 'Linux' then
   pcall(ffi.cdef, [[
      struct luatorch_mps_statx {
         uint32_t mask, blksize; uint64_t attributes;
         uint32_t nlink, uid, gid; uint16_t mode, spare0;
         uint64_t rest[28];
      };]])
   if pcall(ffi.cdef, 'int statx(int dirfd, const char *path, int flags, unsigned int mask, struct luatorch_mps_statx *buf);') then
      local ok, fn = pcall(function() return ffi.C.statx end)
      if ok and fn then
         local buf = ffi.new('struct luatorch_mps_statx')
         local AT_FDCWD, AT_SYMLINK_NOFOLLOW, STATX_TYPE = -100, 0x100, 1
         statx = function(path)
            if fn(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_TYPE, buf) ~= 0 then return nil end
            return bit.band(buf.mode, 0xF000)
         end
      end
   end
end
local S_IFIFO, S_IFDIR, S_IFSOCK = 0x1000, 0x4000, 0xC000

-- 'socket', 'fifo', 'dir', 'other', 'missing' or 'unknown' for path.
local function fileType(path)
   if statx then
      local t = statx(path)
      if t == nil then return 'missing' end
      if t == S_IFSOCK then return 'socket' end
      if t == S_IFIFO then return 'fifo' end
      if t == S_IFDIR then return 'dir' end
      return 'other'
   end
   -- Without statx: a directory opens (and reads as nothing); anything else is left unknown, since
   -- opening a FIFO to look would block.
   local f = io.open(path .. '/.', 'rb')
   if f then f:close() return 'dir' end
   return 'unknown'
end

local function readSmall(path)
   local f = io.open(path, 'rb')
   if not f then return nil end
   local s = f:read(4096)
   f:close()
   return s
end

-- true, false, or nil (cannot tell) for "pid is a live control daemon".
local function daemonAlive(pid)
   local stat = readSmall('/proc/' .. pid .. '/stat')
   if stat then
      -- "pid (comm) state ...": comm is at most 15 bytes, "nvidia-cuda-mps" for the control daemon.
      local comm, state = stat:match('^%d+ %((.*)%) (%a)')
      if state == 'Z' or state == 'X' then return false, 'pid ' .. pid .. ' has exited' end
      if comm and comm:sub(1, 15) ~= ('nvidia-cuda-mps-control'):sub(1, 15) then
         return false, 'pid ' .. pid .. ' is ' .. comm .. ', not the control daemon (stale pid file)'
      end
      return true
   end
   if ffi_ok then
      -- /proc hidden (hidepid) or not Linux: kill(pid, 0) tells existence; EPERM is someone else's.
      pcall(ffi.cdef, 'int kill(int pid, int sig);')
      local ok, r = pcall(function() return ffi.C.kill(pid, 0) end)
      if ok then
         if r == 0 or ffi.errno() == 1 then return true end
         return false, 'pid ' .. pid .. ' is not running'
      end
   end
   return false, 'pid ' .. pid .. ' is not running'
end

function M.probe()
   local ok, result = pcall(function()
      local env = os.getenv('CUDA_MPS_PIPE_DIRECTORY')
      local fromEnv = env ~= nil and env ~= ''
      local dir = fromEnv and env or DEFAULT_PIPE
      local dirType = fileType(dir)
      if not fromEnv and dirType == 'missing' then return nil end
      local log = os.getenv('CUDA_MPS_LOG_DIRECTORY')
      local info = {
         pipeDirectory = dir,
         logDirectory = (log ~= nil and log ~= '') and log or DEFAULT_LOG,
         fromEnv = fromEnv,
         active = false,
      }
      if dirType == 'missing' then
         info.control = 'missing'
         info.reason = 'no such directory'
         return info
      elseif dirType ~= 'dir' and dirType ~= 'unknown' then
         info.control = 'missing'
         info.reason = 'not a directory'
         return info
      end
      local ctype = fileType(dir .. '/control')
      info.control = (ctype == 'dir') and 'other' or ctype
      local pidText = readSmall(dir .. '/' .. PID_FILE)
      local pid = pidText and tonumber(pidText:match('^%s*(%d+)%s*$'))
      info.pid = pid
      if not pid then
         info.reason = pidText and ('unreadable ' .. PID_FILE) or ('no ' .. PID_FILE .. ' (no daemon)')
         return info
      end
      local alive, why = daemonAlive(pid)
      if not alive then
         info.reason = why
      elseif info.control == 'missing' or info.control == 'other' then
         info.reason = 'no control socket'
      else
         info.active = true
      end
      return info
   end)
   if ok then return result end
   return nil
end

-- One line for people: what probe() found.
function M.describe(info)
   if info == nil then
      return 'MPS not in use (CUDA_MPS_PIPE_DIRECTORY unset and no ' .. DEFAULT_PIPE .. ')'
   end
   if info.active then
      return string.format('MPS in use: control daemon pid %d at %s (logs in %s)', info.pid,
         info.pipeDirectory, info.logDirectory)
   end
   return string.format('MPS not in use: no control daemon at %s (%s)', info.pipeDirectory,
      info.reason or 'unknown')
end

return M
