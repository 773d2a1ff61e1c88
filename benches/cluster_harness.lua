-- The lifecycle shared by examples/bench_cluster.lua and benches/cluster_memory.lua: a cluster of
-- their own started with thcluster under a fresh profile, a client on it, and both taken down at
-- the end, also when the body fails. Loaded with dofile; returns a table of helpers.
local sys = require 'sys'

local harness = {}
local START_TIMEOUT = 120

local function quote(s)
   return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

local function exists(path)
   local f = io.open(path)
   if f then f:close() end
   return f ~= nil
end

-- thcluster sits next to th. Under th, arg[0] is th's own path (arg[-1] where the interpreter
-- follows lua.c's layout); a bare name means th was found on PATH, and so is thcluster.
-- $THCLUSTER names another one.
function harness.thcluster_path()
   local env = os.getenv('THCLUSTER')
   if env and env ~= '' then return env end
   for _, i in ipairs({ -1, 0 }) do
      local a = arg and arg[i]
      if type(a) == 'string' and a:find('/') and not a:match('%.lua$') then
         local candidate = a:match('^(.*)/[^/]*$') .. '/thcluster'
         if exists(candidate) then return candidate end
      end
   end
   return 'thcluster'
end

local function pid()
   local f = io.open('/proc/self/stat')
   local n = f and f:read('*n')
   if f then f:close() end
   return n or 0
end

-- os.execute returns the status (Lua 5.1) or true/nil (5.2 compatibility); both are handled.
local function shell(cmd)
   local r = os.execute(cmd)
   return r == 0 or r == true
end

function harness.emit(test, value)
   print(('peer=luatorch test=%s value=%.6g'):format(test, value))
   io.stdout:flush()
end

function harness.loadavg()
   local f = io.open('/proc/loadavg')
   local s = f and f:read('*l') or '?'
   if f then f:close() end
   return ((s:match('^(%S+ %S+ %S+)') or s):gsub(' ', ','))
end

-- Resident memory of a local process in KiB, from /proc (nil when it cannot be read).
function harness.rss_kb(process_id)
   if not process_id then return nil end
   local f = io.open('/proc/' .. tostring(process_id) .. '/status')
   if not f then return nil end
   local text = f:read('*a')
   f:close()
   return tonumber(text:match('VmRSS:%s*(%d+)'))
end

-- Starts a cluster of `engines` engines, connects, waits for them and calls body(client,
-- start_seconds) (thcluster start until every engine answers). The client is closed and the
-- cluster stopped whatever the body does; a failure is raised again afterwards, with its
-- traceback.
function harness.run(engines, body)
   math.randomseed(os.time())
   local profile = ('bench%d_%d_%d'):format(pid(), os.time(), math.random(1, 1e6))
   local thcluster = harness.thcluster_path()
   print(('# engines=%d profile=%s thcluster=%s load=%s'):format(engines, profile, thcluster, harness.loadavg()))
   -- Flushed now: cluster_compare.sh reads the profile from here to stop a cluster left by a timeout.
   io.stdout:flush()
   local t_start = sys.clock()
   local started = shell(('%s start -n %d --profile %s --daemonize'):format(quote(thcluster), engines, quote(profile)))
   local ok, err
   if not started then
      ok, err = false, '`thcluster start` failed (is thcluster built next to th or on PATH?)'
   else
      -- The body's failure carries its traceback already; require and client failures say enough.
      ok, err = pcall(function()
         local cluster = require 'cluster'
         local c = cluster.client(profile)
         local body_ok, body_err = xpcall(function()
            c:wait_for_engines(engines, START_TIMEOUT)
            body(c, sys.clock() - t_start)
         end, debug.traceback)
         pcall(c.close, c)
         if not body_ok then error(body_err, 0) end
      end)
   end
   -- Also after a failed start: a half-started cluster is stopped all the same.
   local stopped = shell(('%s stop --profile %s'):format(quote(thcluster), quote(profile)))
   if not ok then error(tostring(err), 0) end
   if not stopped then error('`thcluster stop --profile ' .. profile .. '` failed', 0) end
end

return harness
