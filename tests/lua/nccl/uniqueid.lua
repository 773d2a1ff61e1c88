-- nccl.uniqueId with the NCCL library present (no GPU needed): a 128-byte id, a new one each call,
-- carried unchanged by parallel send/receive both ways, ipc client/server, ipc.map, and
-- torch.save/load.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
require 'parallel'
local ipc = require 'ipc'
local nccl = require 'nccl'

local id = nccl.uniqueId()

H.case('ids are 128 bytes, new each call', function()
   H.eq(torch.type(id), 'nccl.UniqueId', 'torch.type')
   H.eq(type(id:bytes()), 'string', 'the bytes')
   H.eq(#id:bytes(), 128, 'the length')
   local other = nccl.uniqueId()
   H.check(other ~= id and other:bytes() ~= id:bytes(), 'two calls give two ids')
   H.check(tostring(id):find('^nccl%.UniqueId %x+%.%.%.$'), 'tostring: %s', tostring(id))
   local code, text = nccl.version()
   H.check(type(code) == 'number' and code >= 21700, 'version code %s', tostring(code))
   H.check(text:match('^%d+%.%d+%.%d+$'), 'version string %s', tostring(text))
   local ok, where = nccl.available()
   H.check(ok == true and type(where) == 'string', 'available: %s %s', tostring(ok), tostring(where))
end)

H.case('parallel: to a child and back, and from a child', function()
   local ok, err = pcall(function()
      local c = parallel.fork()
      c:exec(function()
         local nccl = require 'nccl'
         local got = parallel.parent:receive()
         parallel.parent:send({ back = got, type = torch.type(got), len = #got:bytes(), own = nccl.uniqueId() })
      end)
      c:send(id)
      local r = c:receive()
      H.eq(r.type, 'nccl.UniqueId', 'the type in the child')
      H.eq(r.len, 128, 'the length in the child')
      H.eq(torch.type(r.back), 'nccl.UniqueId', 'the type back in the parent')
      H.check(r.back == id, 'the id came back unchanged')
      H.check(torch.type(r.own) == 'nccl.UniqueId' and r.own ~= id, 'a child\'s own id reaches the parent')
   end)
   parallel.close()
   if not ok then error(err, 0) end
end)

H.case('ipc client/server, both ways', function()
   local server, port = ipc.server('127.0.0.1')
   local m = ipc.map(1, function(port)
      local ipc = require 'ipc'
      local nccl = require 'nccl'
      local client = ipc.client('127.0.0.1', port)
      local got = client:recv()
      client:send(got)
      local ok = torch.type(got) == 'nccl.UniqueId' and #got:bytes() == 128
      client:close()
      return ok
   end, port)
   local back
   server:clients(1, function(c)
      c:send(id)
      back = c:recv()
   end)
   H.eq(m:join(), true, 'the client got an nccl.UniqueId')
   server:close()
   H.check(back == id, 'the id came back unchanged')
end)

H.case('ipc.map: the bytes as an argument, an id as a result', function()
   -- A map thread unpacks its arguments before it could require 'nccl', so a thread gets the id
   -- as its bytes (which nccl.communicator takes as they are); ids travel back as ids.
   local m = ipc.map(1, function(bytes)
      local nccl = require 'nccl'
      return nccl.UniqueId(bytes), #bytes
   end, id:bytes())
   local back, len = m:join()
   H.eq(len, 128, 'the length in the thread')
   H.check(back == id, 'the id came back unchanged')
end)

H.case('torch.save/load and serialize', function()
   local file = os.tmpname()
   torch.save(file, { id = id })
   local loaded = torch.load(file)
   os.remove(file)
   H.check(torch.type(loaded.id) == 'nccl.UniqueId' and loaded.id == id, 'through a file')
   H.check(torch.deserialize(torch.serialize(id)) == id, 'through torch.serialize')
end)

H.finish()
