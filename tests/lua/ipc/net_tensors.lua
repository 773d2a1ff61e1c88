-- Raw tensors and storages between two processes, both ways: every element type, views that are
-- not contiguous (last stride 1 or not), no dimension, zero elements, 32 MiB; receivers of the
-- wrong type, size, number of dimensions, contiguity or kind raise and leave the frame for the
-- right receiver.
--    th ipc/net_tensors.lua server
--    th ipc/net_tensors.lua client PORT
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'net_helpers'
local ipc = H.ipc

local cases = {
   { 'double 5x6x7', function() return torch.DoubleTensor(5, 6, 7) end },
   { 'byte 3x4', function() return torch.ByteTensor(3, 4) end },
   { 'char 3x4', function() return torch.CharTensor(3, 4) end },
   { 'short 3x4', function() return torch.ShortTensor(3, 4) end },
   { 'int 3x4', function() return torch.IntTensor(3, 4) end },
   { 'long 3x4', function() return torch.LongTensor(3, 4) end },
   { 'float 3x4', function() return torch.FloatTensor(3, 4) end },
   { 'non-contiguous 2-D, last stride 1', function() return torch.FloatTensor(5, 6):sub(2, 4, 2, 5) end },
   { 'non-contiguous 3-D, last stride 1', function() return torch.DoubleTensor(5, 6, 7):sub(2, 4, 2, 5, 3, 6) end },
   { '4-D sub (contiguous)', function() return torch.DoubleTensor(5, 6, 7, 8):sub(2, 4) end },
   { 'transposed', function() return torch.IntTensor(3, 4):t() end },
   { 'a column', function() return torch.LongTensor(4, 5):select(2, 3) end },
   { 'no dimension', function() return torch.FloatTensor() end },
   { 'zero elements', function() return torch.DoubleTensor(0) end },
   { '32 MiB', function() return torch.FloatTensor(8 * 2 ^ 20) end },
   { 'large non-contiguous', function() return torch.FloatTensor(1024, 1100):narrow(2, 3, 1000) end },
}

-- The values a case carries: 1, 2, 3... in row-major order (wrapping in small types).
local function filled(t)
   if t:nElement() > 0 then t:copy(torch.range(1, t:nElement())) end
   return t
end

local function fresh(build)
   local t = build()
   if t:nElement() > 0 then t:zero() end
   return t
end

local storages = {
   { 'byte storage', function() return torch.ByteStorage():string('hello world') end,
      function() return torch.ByteStorage(11) end },
   { 'float storage', function() return torch.FloatStorage(5):fill(2.5) end,
      function() return torch.FloatStorage(5) end },
   { 'empty storage', function() return torch.ByteStorage() end, function() return torch.ByteStorage() end },
}

local function storage_eq(a, b)
   if torch.type(a) ~= torch.type(b) or a:size() ~= b:size() then return false end
   for i = 1, a:size() do
      if a[i] ~= b[i] then return false end
   end
   return true
end

-- Receives every case (checking the first against wrong receivers) and every storage.
local function receive_all(conn, side)
   -- Wrong receivers for the first case, a DoubleTensor 5x6x7: each raises, the frame stays.
   H.raises(side .. ': wrong type', function() conn:recv(torch.FloatTensor(5, 6, 7)) end,
      'torch.DoubleTensor of size 5x6x7', 'torch.FloatTensor of size 5x6x7')
   H.raises(side .. ': wrong size', function() conn:recv(torch.DoubleTensor(5, 6, 8)) end, 'size 5x6x8')
   H.raises(side .. ': wrong dimensions', function() conn:recv(torch.DoubleTensor(210)) end, 'size 210')
   H.raises(side .. ': wrong contiguity', function() conn:recv(torch.DoubleTensor(5, 6, 8):narrow(3, 1, 7)) end,
      'non-contiguous')
   H.raises(side .. ': a storage for a tensor', function() conn:recv(torch.DoubleStorage(210)) end,
      'the peer sent a tensor', 'where a storage was expected')
   H.raises(side .. ': a message for a tensor', function() conn:recv() end,
      'the peer sent a tensor', 'where a message was expected')
   for _, c in ipairs(cases) do
      local got = fresh(c[2])
      local same = conn:recv(got)
      H.check(same == got, '%s: recv returns its receiver', c[1])
      H.check(H.tensorEq(got, filled(c[2]())), '%s: %s arrived different', side, c[1])
   end
   H.raises(side .. ': storage size mismatch', function() conn:recv(torch.ByteStorage(10)) end,
      'torch.ByteStorage of 11 elements', 'torch.ByteStorage of 10 elements')
   H.raises(side .. ': a tensor for a storage', function() conn:recv(torch.ByteTensor(11)) end,
      'where a tensor was expected')
   for _, s in ipairs(storages) do
      local got = s[3]()
      conn:recv(got)
      H.check(storage_eq(got, s[2]()), '%s: %s arrived different', side, s[1])
   end
   -- A message where a tensor is expected raises; the message stays for recv().
   H.raises(side .. ': a tensor for a message', function() conn:recv(torch.FloatTensor(2)) end,
      'the peer sent a message where a tensor was expected')
   H.eq(conn:recv(), 'done', side .. ': the message after the tensors')
end

local function send_all(conn)
   for _, c in ipairs(cases) do conn:send(filled(c[2]())) end
   for _, s in ipairs(storages) do conn:send(s[2]()) end
   conn:send('done')
end

local role, port = H.role()
if role == 'server' then
   local server = H.serve()
   server:clients(1, function(c)
      receive_all(c, 'server')
      send_all(c)
      H.eq(c:recv(), 'thanks', 'last message')
   end)
   local stats = server:netStats()
   H.check(stats.rx.num_bytes > 32 * 2 ^ 20 and stats.tx.num_bytes > 32 * 2 ^ 20, 'bytes counted')
   server:close()
   H.say('ok')
else
   local client = ipc.client(port)
   send_all(client)
   receive_all(client, 'client')
   client:send('thanks')
   client:close()
   H.say('ok')
end
