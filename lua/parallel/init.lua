-- parallel: lua---parallel's API (fork, exec, join/yield, send/receive, sync, close, remotes).
--
-- The argument shapes and bookkeeping live here; processes, sockets and waits are libparallel's
-- (src/parallel). What differs from the original, on purpose: a child's error or death raises in
-- the parent instead of hanging it; children die with their parent; strings given to fork reach
-- the child; exec works again once the code finished; `remotes` is also `parallel.remotes`;
-- close() kills only this program's children.

local lib = require 'libparallel'
local torch = require 'torch'

-- A `parallel` global that exists before loading names this process (as in the original).
local previous = rawget(_G, 'parallel')
local parallel = {}
_G.parallel = parallel

local initial = {
   id = type(previous) == 'table' and previous.id or 0,
   ip = type(previous) == 'table' and previous.ip or '127.0.0.1',
   parent = type(previous) == 'table' and previous.parent or { id = -1 },
}

-- Seconds a child may take to start and connect back (ssh included).
parallel.connecttimeout = 30
parallel.currentport = 6000
parallel.zmq = nil

local unpack = unpack or table.unpack

local function fail(fname, msg)
   error('parallel.' .. fname .. ': ' .. msg, 3)
end

local function pack(...)
   return { n = select('#', ...), ... }
end

-- The children a call applies to: one child (a table with an id) or a list of them. Returns
-- the keys and children in key order.
local function targets(fname, process)
   if type(process) ~= 'table' then
      fail(fname, 'expected a child or a list of children, got ' .. type(process))
   end
   if process.id ~= nil then
      return { process }, { 1 }, true
   end
   local keys = {}
   for k, v in pairs(process) do
      if type(v) == 'table' and v.id ~= nil then
         keys[#keys + 1] = k
      end
   end
   table.sort(keys, function(a, b)
      if type(a) == type(b) and (type(a) == 'number' or type(a) == 'string') then
         return a < b
      end
      return type(a) < type(b)
   end)
   local list = {}
   for i, k in ipairs(keys) do
      list[i] = process[k]
   end
   return list, keys, false
end

local function ids_of(list)
   local ids = {}
   for i, c in ipairs(list) do
      ids[i] = c.id
   end
   return ids
end

local function is_storage(x)
   local tn = torch.typename(x)
   return tn ~= nil and tn:match('^torch%..*Storage$') ~= nil
end

-- Adds the group methods (a child handle gets the same ones).
function parallel._fill(t)
   t.join = parallel.join
   t.sync = parallel.sync
   t.send = parallel.send
   t.receive = parallel.receive
   t.exec = parallel.exec
   return t
end

-- Hosts the parent is reached from through loopback.
local function is_loopback(host)
   return host == 'localhost' or host:match('^127%.') ~= nil or host == '::1'
      or host == 'ip6-localhost'
end

local warned_loopback = false

-- Forks one child per entry ({ip=, protocol=, lua=, args=}) and waits until they all connected.
local function spawn(fname, entries)
   local made, ids = {}, {}
   local function abandon(msg)
      for _, c in ipairs(made) do
         lib.kill(c.id, 'failed to start')
      end
      -- No position: the message says what failed, and the place would be inside this file.
      error('parallel.' .. fname .. ': ' .. msg, 0)
   end
   for _, e in ipairs(entries) do
      local id = parallel.processid
      parallel.processid = id + 1
      local spec = { timeout = math.max(1, math.floor(parallel.connecttimeout / 3)) }
      if e.ip then
         spec.host = e.ip
         spec.protocol = e.protocol or 'ssh -Y'
         spec.program = e.lua or 'th'
         if is_loopback(e.ip) then
            spec.connect_ip = '127.0.0.1'
         else
            spec.connect_ip = parallel.ip
            if parallel.ip == '127.0.0.1' and not warned_loopback then
               warned_loopback = true
               print('<parallel.fork> WARNING: local ip is set to localhost, forked remote processes will not be able to reach me (set parallel.ip or call parallel.autoip())')
            end
         end
      else
         spec.program = e.lua
         -- A local child searches where this process does before it requires parallel: under a
         -- stock LuaJIT that is the only way it finds our modules.
         spec.path = package.path
         spec.cpath = package.cpath
      end
      local welcome = {
         id = id,
         parent_id = parallel.id,
         args = e.args or { n = 0 },
         path = package.path,
         cpath = package.cpath,
         ip = e.ip,
      }
      local ok, pid = pcall(lib.fork, id, spec, welcome)
      if not ok then
         abandon(tostring(pid):gsub('^parallel%.fork: ', ''))
      end
      local child = parallel._fill({ id = id, unixid = pid, ip = e.ip, speed = 1 })
      made[#made + 1] = child
      ids[#ids + 1] = id
   end
   local ok, err = pcall(lib.await, ids, parallel.connecttimeout)
   if not ok then
      abandon(tostring(err):gsub('^parallel%.fork: ', ''))
   end
   for _, c in ipairs(made) do
      parallel.children[c.id] = c
      parallel.nchildren = parallel.nchildren + 1
   end
   return made
end

local function optional_string(fname, pos, v, what)
   if v ~= nil and type(v) ~= 'string' then
      fail(fname, 'bad argument #' .. pos .. ' (' .. what .. ': string or nil expected, got ' .. type(v) .. ')')
   end
   return v
end

function parallel.fork(rip, protocol, rlua, ...)
   optional_string('fork', 1, rip, 'ip')
   optional_string('fork', 2, protocol, 'protocol')
   optional_string('fork', 3, rlua, 'lua')
   return spawn('fork', { { ip = rip, protocol = protocol, lua = rlua, args = pack(...) } })[1]
end

-- nfork(n [, ip, protocol, lua, ...]) | nfork({n, ip=, protocol=, lua=}, ...) | nfork({{...}, {...}})
local function fork_entries(fname, ...)
   local args = pack(...)
   local entries = {}
   if type(args[1]) == 'number' then
      local n = args[1]
      if n < 0 or n ~= math.floor(n) then
         fail(fname, 'bad argument #1 (a number of processes expected, got ' .. tostring(n) .. ')')
      end
      optional_string(fname, 2, args[2], 'ip')
      optional_string(fname, 3, args[3], 'protocol')
      optional_string(fname, 4, args[4], 'lua')
      for _ = 1, n do
         entries[#entries + 1] = { ip = args[2], protocol = args[3], lua = args[4], args = pack(select(5, ...)) }
      end
      return entries
   end
   local confs = args
   if args.n == 1 and type(args[1]) == 'table' and type(args[1][1]) == 'table' then
      confs = args[1]
      confs.n = #confs
   end
   if (confs.n or #confs) == 0 then
      fail(fname, 'expected a number of processes or tables {n, ip=, protocol=, lua=}')
   end
   for i = 1, confs.n or #confs do
      local c = confs[i]
      if type(c) ~= 'table' or type(c[1]) ~= 'number' then
         fail(fname, 'bad argument #' .. i .. ' (a table {n, ip=, protocol=, lua=} expected, got ' .. type(c) .. ')')
      end
      optional_string(fname, i, c.ip, 'ip')
      optional_string(fname, i, c.protocol, 'protocol')
      optional_string(fname, i, c.lua, 'lua')
      for _ = 1, c[1] do
         entries[#entries + 1] = { ip = c.ip, protocol = c.protocol, lua = c.lua }
      end
   end
   return entries
end

function parallel.nfork(...)
   return parallel._fill(spawn('nfork', fork_entries('nfork', ...)))
end

-- The remotes added by addremote: the global `remotes`, which is also parallel.remotes.
local function remotes_table()
   return rawget(_G, 'remotes')
end

function parallel.addremote(...)
   local args = pack(...)
   local confs = args
   if args.n == 1 and type(args[1]) == 'table' and type(args[1][1]) == 'table' then
      confs = args[1]
      confs.n = #confs
   end
   if (confs.n or #confs) == 0 then
      fail('addremote', 'expected tables {ip=, cores=, lua=, protocol=}')
   end
   local remotes = remotes_table() or { cores = 0 }
   for i = 1, confs.n or #confs do
      local c = confs[i]
      if type(c) ~= 'table' then
         fail('addremote', 'bad argument #' .. i .. ' (table expected, got ' .. type(c) .. ')')
      end
      if type(c.ip) ~= 'string' then
         fail('addremote', 'bad argument #' .. i .. ' (a remote needs ip = <host name or address>)')
      end
      local cores = c.cores or 1
      if type(cores) ~= 'number' or cores < 1 then
         fail('addremote', 'bad argument #' .. i .. ' (cores must be a positive number)')
      end
      optional_string('addremote', i, c.lua, 'lua')
      optional_string('addremote', i, c.protocol, 'protocol')
      remotes[#remotes + 1] = { ip = c.ip, cores = cores, lua = c.lua, protocol = c.protocol }
      remotes.cores = remotes.cores + cores
   end
   _G.remotes = remotes
end

function parallel.sfork(nb)
   if type(nb) ~= 'number' or nb < 0 or nb ~= math.floor(nb) then
      fail('sfork', 'bad argument #1 (a number of processes expected, got ' .. tostring(nb) .. ')')
   end
   local remotes = remotes_table()
   if not remotes or #remotes == 0 then
      return parallel.nfork(nb)
   end
   -- Round robin over the remotes with free cores; once every core is taken, over all of them.
   local plan = {}
   while nb > 0 do
      for _, remote in ipairs(remotes) do
         if nb == 0 then break end
         if remote.cores > 0 or remotes.cores <= 0 then
            plan[#plan + 1] = remote
            remote.cores = remote.cores - 1
            remotes.cores = remotes.cores - 1
            nb = nb - 1
            if remotes.cores < 0 then
               print('WARNING: forking more processes than cores available')
            end
         end
      end
   end
   local entries = {}
   for i, remote in ipairs(plan) do
      entries[i] = { ip = remote.ip, protocol = remote.protocol, lua = remote.lua }
   end
   local ok, forked = pcall(spawn, 'sfork', entries)
   if not ok then
      for _, remote in ipairs(plan) do
         remote.cores = remote.cores + 1
         remotes.cores = remotes.cores + 1
      end
      error(forked, 0)
   end
   for i, child in ipairs(forked) do
      child.remote = plan[i]
      child.speed = plan[i].speed or 1
   end
   return parallel._fill(forked)
end

local calibration = [[
   require 'torch'
   require 'sys'
   local s = torch.Tensor(10000):fill(1)
   local d = torch.Tensor(10000):fill(0)
   parallel.yield()
   sys.tic()
   for i = 1, 100000 do
      d:add(13, s)
   end
   parallel.parent:send(sys.toc())
]]

function parallel.calibrate()
   local remotes = remotes_table()
   if not remotes or #remotes == 0 then
      error('<parallel.calibrate> calibration can only be done after addremote() is called', 2)
   end
   print('calibrating remote machines')
   local forked = parallel.sfork(remotes.cores)
   local ok, err = pcall(function()
      forked:exec(calibration)
      forked:join()
      local times = forked:receive()
      local speeds, max = {}, 0
      for i, t in pairs(times) do
         speeds[i] = 1 / math.max(t, 1e-9)
         max = math.max(max, speeds[i])
      end
      for _, remote in ipairs(remotes) do
         for i, child in ipairs(forked) do
            if child.ip == remote.ip and speeds[i] then
               remote.speed = math.max(0.1, math.floor(speeds[i] / max * 10 + 0.5) / 10)
               break
            end
         end
      end
   end)
   local synced, serr = pcall(forked.sync, forked)
   if not ok then error(err, 0) end
   if not synced then error(serr, 0) end
end

function parallel.exec(process, code)
   local list = targets('exec', process)
   local payload, bytecode
   if type(code) == 'function' then
      local ok, dumped = pcall(string.dump, code)
      if not ok then
         fail('exec', 'cannot send this function (' .. tostring(dumped) .. ')')
      end
      payload, bytecode = dumped, true
   elseif type(code) == 'string' then
      payload, bytecode = code, false
   else
      fail('exec', 'bad argument #2 (a function or a string of Lua code expected, got ' .. type(code) .. ')')
   end
   for _, c in ipairs(list) do
      lib.exec(c.id, payload, bytecode)
   end
end

function parallel.join(process, msg)
   local ids
   if type(process) == 'table' and process.id ~= nil then
      ids = process.id
   else
      ids = ids_of((targets('join', process)))
   end
   if msg == nil then
      msg = ''
   elseif type(msg) == 'number' then
      msg = tostring(msg)
   elseif type(msg) ~= 'string' then
      fail('join', 'bad argument #2 (string expected, got ' .. type(msg) .. ')')
   end
   lib.join(ids, msg)
end

-- The parent as a process, inside a child: parallel.parent:send(x) / parallel.parent:receive().
local function parent_send(self, object)
   if self ~= parallel.parent then object = self end
   lib.parent_send(object)
end

local function copy_into_storage(fname, dest, value)
   if not is_storage(value) or torch.typename(value) ~= torch.typename(dest) then
      fail(fname, 'expected a ' .. torch.typename(dest) .. ' from the peer, got a ' .. (torch.typename(value) or type(value)))
   end
   dest:resize(value:size())
   dest:copy(value)
   return dest
end

-- What a single receive returns: the value (copied into `object` when that is a storage) and
-- true; with nothing there (noblock), `object, false` when one was given, else nothing.
local function received(fname, object, got, value)
   if not got then
      if object ~= nil then return object, false end
      return
   end
   if object ~= nil and is_storage(object) then
      return copy_into_storage(fname, object, value), true
   end
   return value, true
end

local function parent_receive(self, object, flags)
   if self ~= parallel.parent then self, object, flags = parallel.parent, self, object end
   if object == 'noblock' and flags == nil then object, flags = nil, 'noblock' end
   return received('parent:receive', object, lib.parent_receive(flags == 'noblock' or flags == 1))
end

function parallel.send(process, object)
   if process == parallel.parent and parallel.parent.id ~= -1 then
      return parent_send(process, object)
   end
   if type(process) == 'table' and process.id ~= nil then
      return lib.send(process.id, object)
   end
   lib.send(ids_of((targets('send', process))), object)
end

function parallel.receive(process, object, flags)
   if process == parallel.parent and parallel.parent.id ~= -1 then
      return parent_receive(process, object, flags)
   end
   if object == nil and flags == nil and type(process) == 'table' and process.id ~= nil then
      -- The common case, without the list machinery.
      local _, value = lib.receive(process.id, false)
      return value, true
   end
   local list, keys, single = targets('receive', process)
   if object == 'noblock' and flags == nil then object, flags = nil, 'noblock' end
   local noblock = flags == 'noblock' or flags == 1
   if single then
      return received('receive', object, lib.receive(list[1].id, noblock))
   end
   local results = {}
   for i, c in ipairs(list) do
      local got, value = lib.receive(c.id, noblock)
      if got then
         local dest = type(object) == 'table' and object[keys[i]] or nil
         if dest ~= nil and is_storage(dest) then
            value = copy_into_storage('receive', dest, value)
         end
         results[keys[i]] = value
      end
   end
   return results, true
end

-- Forgets a child: its remote core comes back.
local function forget(child)
   if parallel.children[child.id] == child then
      parallel.children[child.id] = nil
      parallel.nchildren = parallel.nchildren - 1
   end
   if child.remote and not child.core_returned then
      child.core_returned = true
      child.remote.cores = child.remote.cores + 1
      local remotes = remotes_table()
      if remotes then remotes.cores = remotes.cores + 1 end
   end
end

function parallel.sync(process)
   local list = targets('sync', process)
   local first_err
   for _, c in ipairs(list) do
      local ok, err = pcall(lib.sync, c.id)
      forget(c)
      if not ok and not first_err then first_err = err end
   end
   if first_err then error(first_err, 0) end
end

function parallel.print(...)
   print(string.format('<parallel#%03d>', parallel.id), ...)
end

function parallel.close()
   parallel.print('closing session')
   lib.kill_all('was closed')
   for _, c in pairs(parallel.children) do
      if type(c) == 'table' and c.id ~= nil then forget(c) end
   end
   parallel.nchildren = 0
end

function parallel.run(code, ...)
   local child = parallel.fork(nil, nil, nil, ...)
   child:exec(code)
   return child
end

-- Sets parallel.ip to this machine's address on the given interfaces (or its first address).
function parallel.autoip(interface)
   local names
   if type(interface) == 'string' then
      names = { interface }
   elseif type(interface) == 'table' then
      names = interface
   end
   local ip = lib.localip(names)
   if ip then parallel.ip = ip end
   return parallel.ip
end

function parallel.reset()
   -- Children this process would forget are ended, not left running unreachable.
   if parallel.children then
      lib.kill_all('was reset')
   end
   parallel.id = initial.id
   parallel.ip = initial.ip
   parallel.parent = initial.parent
   parallel.children = parallel._fill({})
   parallel.processid = 1
   parallel.nchildren = 0
   if parallel.parent.id ~= -1 then
      parallel.parent.send = parent_send
      parallel.parent.receive = parent_receive
   end
   parallel.autoip()
end

-- Child side: the rendezvous with the parent's join.
function parallel.yield()
   return lib.yield()
end

-- Entry point of a forked child (`th -e "require([[parallel]])._child()"`): connect, then run
-- what the parent execs until it syncs or closes us.
function parallel._child()
   io.stdout:setvbuf('line')
   local w = lib.child_start()
   if w.path and w.path ~= '' then package.path = w.path end
   if w.cpath and w.cpath ~= '' then package.cpath = w.cpath end
   initial.id = w.id
   initial.parent = { id = w.parent_id }
   if w.ip then initial.ip = w.ip end
   parallel.reset()
   local args = w.args or { n = 0 }
   local nargs = args.n or #args
   args.n = nil
   parallel.args = args
   local function report(e)
      -- The traceback down to the exec'd function; the frames of this loop are noise.
      local tb = debug.traceback(tostring(e), 2)
      return (tb:gsub('\n%s*%[C%]: in function \'xpcall\'.*$', ''))
   end
   while true do
      local code, bytecode = lib.next_exec()
      if code == nil then break end
      local f, err = loadstring(code, bytecode and '=parallel.exec' or '=(parallel.exec string)')
      local ok
      if f then
         if bytecode then
            -- The function's upvalues did not travel: bind them to this process's globals of the
            -- same name (`torch`, `parallel`...), nil otherwise.
            local i = 1
            while true do
               local name = debug.getupvalue(f, i)
               if name == nil then break end
               debug.setupvalue(f, i, _G[name])
               i = i + 1
            end
         end
         ok, err = xpcall(function() return f(unpack(args, 1, nargs)) end, report)
      else
         ok = false
      end
      -- As the original did after exec'd code: this child's own children end with it.
      lib.kill_all('was closed')
      for _, c in pairs(parallel.children) do
         if type(c) == 'table' and c.id ~= nil then forget(c) end
      end
      if ok then
         lib.done()
      else
         lib.failed(tostring(err))
         os.exit(1)
      end
   end
   lib.shutdown()
   os.exit(0)
end

-- parallel.remotes is the global `remotes` (the original's README and examples use both names).
setmetatable(parallel, {
   __index = function(_, k)
      if k == 'remotes' then return rawget(_G, 'remotes') end
   end,
   __newindex = function(t, k, v)
      if k == 'remotes' then _G.remotes = v else rawset(t, k, v) end
   end,
})

parallel.reset()
return parallel
