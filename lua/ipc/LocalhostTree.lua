-- ipc.LocalhostTree: an ipc.Tree among processes of one machine that find each other through a
-- file (torch-ipc's README, the Tree family).
--
--    require 'ipc.LocalhostTree'(nodeIndex, numNodes [, ppid [, base]])
--
-- The root (nodeIndex 1) listens on a free loopback port and writes "127.0.0.1:<port>" and its
-- pid to /tmp/<ppid>.localhost; the others read it and connect. `ppid` (any number or string)
-- defaults to the parent's pid, which processes started by one parent share. Fixes over torch-ipc:
-- the file is written whole (renamed into place), removed once every node has connected, a file
-- whose writer has exited is ignored, and the others wait between reads and give up after
-- ipc.connecttimeout seconds with an error.
local ipc = require 'libipc'
local DiscoveredTree = require 'ipc.DiscoveredTree'

local function fail(msg)
   error('ipc.LocalhostTree: ' .. msg, 0)
end

local function mypid()
   if type(ipc.getpid) == 'function' then return ipc.getpid() end
   local f = assert(io.open('/proc/self/stat'))
   local pid = tonumber(f:read('*l'):match('^(%d+)'))
   f:close()
   return pid
end

local function alive(pid)
   local f = io.open('/proc/' .. tostring(pid) .. '/stat')
   if not f then return false end
   local line = f:read('*l') or ''
   f:close()
   local state = line:match('.*%) (%S)')
   return state ~= nil and state ~= 'Z' and state ~= 'X'
end

-- host, port, pid from a discovery file; nil while it is missing, partial or stale.
local function readAddress(file)
   local f = io.open(file, 'r')
   if not f then return nil end
   local text = f:read('*a') or ''
   f:close()
   local host, port, pid = text:match('^([^:\n]+):(%d+)\n(%d+)\n')
   if not host then
      host, port = text:match('^([^:\n]+):(%d+)%s*$')
   end
   if not host then return nil end
   if pid and not alive(tonumber(pid)) then return nil end
   return host, tonumber(port), tonumber(pid)
end

return function(nodeIndex, numNodes, ppid, base)
   if ppid == nil then
      if type(ipc.getppid) ~= 'function' then fail('pass ppid: ipc.getppid is not available') end
      ppid = ipc.getppid()
   end
   if type(ppid) ~= 'number' and type(ppid) ~= 'string' then
      fail('ppid must be a number or a string, got ' .. type(ppid))
   end
   local key = tostring(ppid)
   if type(ppid) == 'number' and ppid == math.floor(ppid) then key = string.format('%d', ppid) end
   if key:find('[/%z]') or key == '' then fail('ppid cannot name a file: ' .. string.format('%q', key)) end
   local file = '/tmp/' .. key .. '.localhost'
   local pid = mypid()

   local function publish(host, port)
      os.remove(file)
      local tmp = string.format('%s.%d.tmp', file, pid)
      local f, err = io.open(tmp, 'w')
      if not f then fail('cannot write ' .. tmp .. ': ' .. tostring(err)) end
      f:write(string.format('%s:%d\n%d\n', host, port, pid))
      f:close()
      local ok, rerr = os.rename(tmp, file)
      if not ok then
         os.remove(tmp)
         fail('cannot write ' .. file .. ': ' .. tostring(rerr))
      end
   end
   local function unpublish()
      local _, _, owner = readAddress(file)
      if owner == pid then os.remove(file) end
   end
   local function query()
      local host, port = readAddress(file)
      return host, port
   end
   return DiscoveredTree(nodeIndex, numNodes, '127.0.0.1', 0, publish, query, base, unpublish)
end
