-- Shared by the remote_*.lua scripts, which tests/parallel_remote.rs runs as
--    th parallel/remote_X.lua PROTOCOL TH [more]
-- with PROTOCOL = 'ssh -F <dir>/ssh_config' of a private sshd on 127.0.0.1 (host aliases testhost,
-- testhost2, testhost3) and TH = the th binary under test. Load it with require './remote_helpers'.
require 'torch'
require 'sys'

local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '../process_test_helpers.lua')

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
