-- ipc.map and ipc.map_extended: thread counts, argument and result order, errors at join and at
-- checkErrors, the workers' clean Lua states, closures refused, tensors shared.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'threads_helpers'
local test = require 'regress'
local ipc = require 'libipc'

test {
   thousandThreadsInOrder = function()
      local n = 1000
      local results = H.pack(ipc.map(n, function(id) return id end):join())
      H.eq(results.n, n, 'results')
      for i = 1, n do H.eq(results[i], i, 'result of thread ' .. i) end
   end,

   mapidIsTheLastArgument = function()
      local r = H.pack(ipc.map(3, function(a, b, c, id) return a, b, c, id end, 'x', nil, 7):join())
      H.same_list(r, H.pack('x', nil, 7, 1, 'x', nil, 7, 2, 'x', nil, 7, 3), 'args and mapid')
   end,

   resultsConcatenatedInThreadOrder = function()
      local r = H.pack(ipc.map(4, function(id)
         -- A different number of results per thread, the later threads finishing first.
         local out = {}
         for i = 1, id do out[i] = id * 10 + i end
         local deadline = os.clock() + (4 - id) * 0.01
         while os.clock() < deadline do end
         return unpack(out, 1, id)
      end):join())
      H.same_list(r, H.pack(11, 21, 22, 31, 32, 33, 41, 42, 43, 44), 'results')
   end,

   nilArgumentsAndResultsKeepTheirPlace = function()
      local r = H.pack(ipc.map(1, function(a, b, c) return a, b, c end, nil, 42, nil):join())
      H.same_list(r, H.pack(nil, 42, nil), 'results')
   end,

   valuesAreCopies = function()
      local t = { a = { b = 'c' }, 1, 2, 3 }
      local back = ipc.map(1, function(t) t.a.b = 'changed'; t.extra = true; return t end, t):join()
      H.eq(t.a.b, 'c', 'the caller table is untouched')
      H.eq(t.extra, nil, 'no field added to the caller table')
      H.eq(back.a.b, 'changed', 'the returned copy')
      H.eq(#back, 3, 'array part')
   end,

   tensorsAreSharedNotCopied = function()
      local t = torch.FloatTensor(5):zero()
      local back = ipc.map(2, function(t, id) t[id] = id; return t end, t):join()
      H.eq(t[1], 1, 'thread 1 wrote into the caller tensor')
      H.eq(t[2], 2, 'thread 2 wrote into the caller tensor')
      H.eq(torch.pointer(back:storage()), torch.pointer(t:storage()), 'the returned tensor shares the storage')
      back[5] = 99
      H.eq(t[5], 99, 'a write through the returned tensor is seen by the original')
      -- Storages too, and a tensor created in a thread comes back shared with nothing to copy.
      local s = torch.DoubleStorage(3):fill(0)
      ipc.map(1, function(s) s[2] = 5 end, s):join()
      H.eq(s[2], 5, 'storage written by a thread')
      local made = ipc.map(1, function() return torch.range(1, 4) end):join()
      H.eq(made:sum(), 10, 'tensor made in a thread')
   end,

   workerErrorRaisedAtJoinWithTraceback = function()
      local m = ipc.map(1, function()
         local function inner() error('boom at the bottom') end
         inner()
      end)
      local msg = H.raises('join', function() m:join() end, 'ipc.map:join', 'boom at the bottom', 'stack traceback', 'inner')
      H.eq(select('#', m:join()), 0, 'a second join returns nothing')
      assert(msg)
   end,

   joinWaitsForEveryThreadBeforeRaising = function()
      local done = torch.IntTensor(3):zero()
      local c = ipc.channel()
      local m = ipc.map(3, function(c, done, id)
         if id == 2 then error('thread two fails') end
         -- The others finish only once the main thread lets them: join must still wait for them.
         c:read()
         done[id] = 1
      end, c, done)
      c:write('go', 'go')
      H.raises('join', function() m:join() end, 'thread two fails')
      H.eq(done[1] + done[3], 2, 'threads 1 and 3 finished before join raised')
   end,

   lastFailedThreadIsReported = function()
      local m = ipc.map(3, function(id) if id ~= 2 then error('failure of ' .. id) end end)
      H.raises('join', function() m:join() end, 'failure of 3')
   end,

   nonStringErrors = function()
      H.raises('join', function() ipc.map(1, function() error({ code = 7 }) end):join() end, 'ipc.map:join', 'table')
      H.raises('join', function() ipc.map(1, function() error() end):join() end, 'ipc.map:join', 'nil')
   end,

   checkErrorsRaisesWithoutBlocking = function()
      local c = ipc.channel()
      local m = ipc.map(2, function(c, id)
         if id == 1 then error('early failure') end
         -- Thread 2 waits for the main thread, so it is still running while checkErrors runs.
         local _, v = c:read()
         return v
      end, c)
      local msg
      H.eventually('checkErrors raises', function()
         local ok, err = pcall(m.checkErrors, m)
         msg = err
         return not ok
      end)
      assert(tostring(msg):find('early failure', 1, true), msg)
      assert(tostring(msg):find('ipc.map:checkErrors', 1, true), msg)
      -- The failed thread's slot is freed: join returns thread 2's result alone and raises nothing.
      H.eq(select('#', m:checkErrors()), 0, 'checkErrors once the failure was reported')
      c:write(42)
      local r = H.pack(m:join())
      H.same_list(r, H.pack(42), 'join after checkErrors')
   end,

   checkErrorsWithoutFailures = function()
      local m = ipc.map(2, function(id) return id end)
      H.eq(select('#', m:checkErrors()), 0, 'nothing failed')
      H.same_list(H.pack(m:join()), H.pack(1, 2), 'results')
   end,

   cleanWorkerEnvironment = function()
      someGlobalOfTheCaller = 'visible?'
      local r = H.pack(ipc.map(1, function()
         return someGlobalOfTheCaller, type(torch), type(require('libipc').map), type(string.format)
      end):join())
      someGlobalOfTheCaller = nil
      H.same_list(r, H.pack(nil, 'table', 'function', 'function'), 'worker globals')
   end,

   nestedFunctionsAndGlobalsResolveInTheWorker = function()
      local r = ipc.map(1, function()
         local function add(a, b) return a + b end
         x_global_in_worker = 40
         return add(x_global_in_worker, 6)
      end):join()
      H.eq(r, 46, 'nested function')
   end,

   closuresAreRefused = function()
      local i, j = 1, 2
      local msg = H.raises('map with a closure', function()
         ipc.map(1, function() return i + j end)
      end, 'ipc.map', "Attempt to serialize closure '", "' with 2 upvalues; first is: '",
         'Consider using ipc.workqueue.writeup() instead.')
      assert(msg:find("first is: '[ij]'"), msg)
      -- Closures inside arguments are refused too.
      H.raises('closure in an argument', function()
         ipc.map(1, function(f) return f() end, function() return i end)
      end, 'Attempt to serialize closure')
      H.raises('closure in a table argument', function()
         ipc.map(1, function(t) return t end, { f = function() return j end })
      end, 'Attempt to serialize closure')
      -- A closure returned by a worker fails that worker.
      H.raises('closure returned', function()
         ipc.map(1, function() local u = 1; return function() return u end end):join()
      end, 'Attempt to serialize closure')
   end,

   functionArgumentsWithoutUpvalues = function()
      local r = ipc.map(2, function(f, id) return f(id) end, function(x) return x * 100 end):join()
      H.eq(r, 100, 'first result')
   end,

   bigArgumentsAndResults = function()
      local big = {}
      for i = 1, 10000 do big[i] = i end
      local sums = H.pack(ipc.map(3, function(t)
         local s = 0
         for _, v in ipairs(t) do s = s + v end
         local out = {}
         for i = 1, 10000 do out[i] = -i end
         return s, out
      end, big):join())
      H.eq(sums.n, 6, 'results')
      H.eq(sums[1], 50005000, 'sum')
      H.eq(#sums[6], 10000, 'big result')
      H.eq(sums[6][10000], -10000, 'big result content')
   end,

   handlesInArguments = function()
      local r = H.pack(ipc.map(1, function(opt, id)
         return torch.type(opt), type(opt.t.x), opt.n, opt.s, torch.type(opt.tensor), opt.b, id
      end, { t = { x = {} }, n = 1, s = 'str', m = ipc.mutex(), tensor = torch.Tensor(10), b = true }):join())
      H.same_list(r, H.pack('table', 'table', 1, 'str', 'torch.DoubleTensor', true, 1), 'argument table')
   end,

   threadCounts = function()
      H.eq(select('#', ipc.map('2', function() return 1 end):join()), 2, 'a numeric string')
      -- torch-ipc made no thread for these, silently; a count that makes no thread is a mistake.
      H.raises('zero threads', function() ipc.map(0, function() return 1 end) end, 'ipc.map', 'from 1 to 4096')
      H.raises('negative', function() ipc.map(-1, function() return 1 end) end, 'ipc.map', 'got -1')
      H.raises('not a number', function() ipc.map('x', function() return 1 end) end, 'ipc.map', 'got string')
      H.raises('nil', function() ipc.map(nil, function() return 1 end) end, 'ipc.map', 'got nil')
   end,

   badArguments = function()
      H.raises('not a function', function() ipc.map(1, 'print') end, 'ipc.map', 'map arg #2 expected a function')
      H.raises('no function', function() ipc.map(1) end, 'map arg #2 expected a function')
      H.raises('join on a non-map', function() local m = ipc.map(1, function() end); m.join(5) end, 'join')
   end,

   mapExtended = function()
      local r = H.pack(ipc.map_extended(2, function() initialised = 'by init' end,
         function(a, id) return initialised, a, id end, 'arg'):join())
      H.same_list(r, H.pack('by init', 'arg', 1, 'by init', 'arg', 2), 'function init')
      r = H.pack(ipc.map_extended(1, 'fromString = 5', function() return fromString end):join())
      H.same_list(r, H.pack(5), 'string init')
      r = H.pack(ipc.map_extended(1, nil, function(id) return id end):join())
      H.same_list(r, H.pack(1), 'no init')
      H.raises('init fails', function() ipc.map_extended(1, function() error('init broke') end, function() end):join() end,
         'init broke')
      H.raises('init does not compile', function() ipc.map_extended(1, 'this is not lua', function() end):join() end,
         'ipc.map:join')
      H.raises('bad init', function() ipc.map_extended(1, 5, function() end) end,
         'map_extended arg #2 expected a function, string or nil')
      H.raises('bad fn', function() ipc.map_extended(1, nil, 'x') end, 'map_extended arg #3 expected a function')
      local u = 1
      H.raises('closure init', function() ipc.map_extended(1, function() return u end, function() end) end,
         'Attempt to serialize closure')
   end,
}
print('ok')
