-- Shared by the net_*.lua scripts, which tests/ipc_net.rs runs from tests/lua as
--    th ipc/net_X.lua server [args]          (prints "port N" once listening)
--    th ipc/net_X.lua client PORT [args]
-- Load it with
--    package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
--    local H = require 'net_helpers'
require 'torch'
local ipc = require 'libipc'

local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '../process_test_helpers.lua')
H.ipc = ipc

-- Deep equality of plain Lua values.
function H.same(a, b)
   if type(a) ~= type(b) then return false end
   if type(a) ~= 'table' then return a == b end
   for k, v in pairs(a) do
      if not H.same(v, b[k]) then return false end
   end
   for k in pairs(b) do
      if a[k] == nil then return false end
   end
   return getmetatable(a) == getmetatable(b)
end

-- Same type, sizes and elements.
function H.tensorEq(a, b)
   return torch.type(a) == torch.type(b) and a:nDimension() == b:nDimension()
      and (a:nDimension() == 0 or a:isSameSizeAs(b)) and (a:nElement() == 0 or torch.equal(a, b))
end

-- The role ("server" or "client") and, for a client, the server's port.
function H.role()
   local role = arg[1]
   H.check(role == 'server' or role == 'client', 'first argument: server or client, got %s', tostring(role))
   if role == 'client' then
      return role, assert(tonumber(arg[2]), 'second argument: the port')
   end
   return role
end

-- A server on loopback, any port; tells the test which port.
function H.serve()
   local server, port = ipc.server()
   print('port ' .. port)
   io.stdout:flush()
   return server, port
end

function H.say(line)
   print(line)
   io.stdout:flush()
end

-- Calls fn() until it returns a value other than nil, at most `seconds`; returns the value and how
-- many calls returned nil.
function H.poll(fn, seconds, what)
   local deadline = sys.clock() + seconds
   local empty = 0
   while true do
      local v = fn()
      if v ~= nil then return v, empty end
      empty = empty + 1
      if sys.clock() > deadline then error(what .. ': nothing within ' .. seconds .. ' s', 2) end
      sys.sleep(0.001)
   end
end

return H
