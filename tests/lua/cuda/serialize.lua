-- torch.save/torch.load of device tensors and storages, in cutorch's format: the host classes'
-- payload under the CUDA class names (run by run_all.lua on a GPU machine).
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local cases = {}

-- The bytes of a length-prefixed string as a .t7 file of `mode` writes it.
local function t7string(s, mode)
   local m = torch.MemoryFile()
   m[mode or 'binary'](m)
   m:writeInt(#s)
   m:writeChar(torch.CharStorage():string(s))
   local out = m:storage():string():sub(1, -2)
   m:close()
   return out
end

-- `bytes` with every class name `from` (as written, with its length) replaced by `to` (plain
-- search: binary lengths hold zero bytes, which patterns cannot).
local function renamed(bytes, from, to, mode)
   local a, b = t7string(from, mode), t7string(to, mode)
   local parts, pos = {}, 1
   while true do
      local i, j = bytes:find(a, pos, true)
      if not i then break end
      parts[#parts + 1] = bytes:sub(pos, i - 1) .. b
      pos = j + 1
   end
   parts[#parts + 1] = bytes:sub(pos)
   return table.concat(parts)
end

function cases.sameBytesAsCutorch()
   for host, names in pairs {
      FloatTensor = { 'torch.FloatTensor', 'torch.CudaTensor', 'torch.FloatStorage', 'torch.CudaStorage' },
      DoubleTensor = { 'torch.DoubleTensor', 'torch.CudaDoubleTensor', 'torch.DoubleStorage',
         'torch.CudaDoubleStorage' },
      LongTensor = { 'torch.LongTensor', 'torch.CudaLongTensor', 'torch.LongStorage', 'torch.CudaLongStorage' },
   } do
      local hx = torch[host](3, 4):random(1, 100)
      local dx = H.cuda(hx)
      -- A view of each (the whole storage is written, with the view's geometry).
      local want = renamed(renamed(torch.serialize(hx:narrow(2, 2, 2)), names[1], names[2]), names[3], names[4])
      H.eq(torch.serialize(dx:narrow(2, 2, 2)), want, host .. ' bytes')
      local ws = renamed(torch.serialize(hx:storage()), names[3], names[4])
      H.eq(torch.serialize(dx:storage()), ws, host .. ' storage bytes')
      local ascii = renamed(torch.serialize(hx, 'ascii'), names[1], names[2], 'ascii')
      H.eq(torch.serialize(dx, 'ascii'), renamed(ascii, names[3], names[4], 'ascii'), host .. ' ascii')
   end
end

function cases.roundTrip()
   local path = os.tmpname()
   local x = torch.FloatTensor(5, 6):uniform()
   local c = x:cuda()
   local obj = {
      t = c,
      view = c:narrow(1, 2, 3), -- shares c's storage
      d = x:cudaDouble():t(),
      l = x:cudaLong(),
      s = torch.CudaStorage({ 1, 2, 3 }),
      host = x,
   }
   torch.save(path, obj)
   local back = torch.load(path)
   H.close(back.t, x, 0, 'CudaTensor')
   H.close(back.d, x:double():t(), 0, 'CudaDoubleTensor view')
   H.close(back.l, x:long(), 0, 'CudaLongTensor')
   H.eq(torch.type(back.s), 'torch.CudaStorage', 'storage type')
   H.eq(back.s[3], 3, 'storage')
   H.close(back.host:cuda(), x, 0, 'host tensor')
   back.view:fill(-1)
   H.eq(back.t[2][1], -1, 'the storage is shared after loading')
   H.eq(back.t[1][1], x[1][1], 'outside the view unchanged')
   -- ascii too.
   torch.save(path, c, 'ascii')
   H.close(torch.load(path, 'ascii'), x, 1e-6, 'ascii')
   os.remove(path)
   -- Files written by a host Torch with device tensors (the class names alone) load on the device.
   local hostBytes = renamed(renamed(torch.serialize(x), 'torch.FloatTensor', 'torch.CudaTensor'),
      'torch.FloatStorage', 'torch.CudaStorage')
   local loaded = torch.deserialize(hostBytes)
   H.eq(torch.type(loaded), 'torch.CudaTensor', 'loaded type')
   H.close(loaded, x, 0, 'loaded values')
end

return cases
