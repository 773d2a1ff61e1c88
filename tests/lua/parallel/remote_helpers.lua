-- Shared by the remote_*.lua scripts, which tests/parallel_remote.rs runs as
--    th parallel/remote_X.lua PROTOCOL TH [more]
-- with PROTOCOL = 'ssh -F <dir>/ssh_config' of a private sshd on 127.0.0.1 (host aliases testhost,
-- testhost2, testhost3) and TH = the th binary under test. Load it with require './remote_helpers'.
require 'torch'
require 'sys'

local H = {}

H.protocol = assert(arg[1], 'argument 1: the ssh protocol (ssh -F <dir>/ssh_config)')
H.th = assert(arg[2], 'argument 2: the path of th')
H.host = 'testhost'

-- A remote entry for nfork/addremote on host alias `ip` (default testhost).
function H.remote(t)
   t.ip = t.ip or H.host
   t.protocol = t.protocol or H.protocol
   t.lua = t.lua or H.th
   return t
end

function H.check(cond, fmt, ...)
   if not cond then error(string.format(fmt, ...), 2) end
end

function H.eq(got, want, what)
   if got ~= want then
      error(string.format('%s: expected %s, got %s', what, tostring(want), tostring(got)), 2)
   end
end

-- Calls fn, which must raise; checks that the message holds each of the plain strings given and returns it.
function H.raises(what, fn, ...)
   local ok, msg = pcall(fn)
   if ok then error(what .. ': expected an error, got none', 2) end
   msg = tostring(msg)
   for _, s in ipairs({...}) do
      if not msg:find(s, 1, true) then
         error(string.format('%s: the error should mention %q, got:\n%s', what, s, msg), 2)
      end
   end
   return msg
end

-- Whether process `pid` exists and is not a zombie (PID 1 in a container may reap late: a zombie counts
-- as gone). Field 3 of /proc/<pid>/stat, after the parenthesised command name.
function H.alive(pid)
   local f = io.open('/proc/' .. tostring(pid) .. '/stat')
   if not f then return false end
   local line = f:read('*l') or ''
   f:close()
   local state = line:match('.*%) (%S)')
   return state ~= nil and state ~= 'Z' and state ~= 'X'
end

-- Waits up to `secs` seconds for `pid` to be gone; whether it went.
function H.wait_gone(pid, secs)
   local t0 = sys.clock()
   while H.alive(pid) do
      if sys.clock() - t0 > secs then return false end
      sys.sleep(0.02)
   end
   return true
end

-- The child entries (tables under numeric keys) of `parallel.children`, counted.
function H.nchildren_listed()
   local n = 0
   for k, v in pairs(parallel.children) do
      if type(v) == 'table' and type(k) == 'number' then n = n + 1 end
   end
   return n
end

-- Calls fn until it stops raising an error that holds `busy` (a plain string), for up to `secs` seconds.
function H.retry_while(busy, secs, fn)
   local t0 = sys.clock()
   while true do
      local ok, msg = pcall(fn)
      if ok then return end
      if not tostring(msg):find(busy, 1, true) or sys.clock() - t0 > secs then error(msg, 2) end
      sys.sleep(0.05)
   end
end

return H
