-- An ipc.client made in a map thread is returned to the main thread and keeps its connection
-- (torch-ipc's test_cliser testSerialize: clients travel between threads by reference).
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'threads_helpers'
local test = require 'regress'
local ipc = require 'libipc'

test {
   clientFromAThread = function()
      local server, port = ipc.server('127.0.0.1')
      local m = ipc.map(1, function(port)
         local ipc = require 'libipc'
         local client = ipc.client('127.0.0.1', port)
         client:send('hello from the thread')
         return client
      end, port)
      local got = {}
      server:clients(1, function(c) got[#got + 1] = c:recv() end)
      local client = m:join()
      client:send('hello from the main thread')
      server:clients(function(c) got[#got + 1] = c:recv() end)
      H.eq(got[1], 'hello from the thread', 'sent in the thread')
      H.eq(got[2], 'hello from the main thread', 'sent from the main thread on the same connection')
      client:close()
      server:close()
   end,
}
print('ok')
