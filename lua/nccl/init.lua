-- nccl: NVIDIA's collective communication library on CUDA tensors.
--
-- nccl.torch's single-process API, on a list of tensors with one tensor per device (sums, as in
-- nccl.torch; `root` is an index into the list, 1 by default):
--    nccl.allReduce(inputs[, outputs][, async])
--    nccl.reduce(inputs[, outputs][, async][, root])
--    nccl.bcast(inputs[, async][, root])
--    nccl.allGather(inputs, outputs[, async])         each output: #inputs x the input's elements
--    nccl.reduceScatter(inputs, outputs[, async])     each input: #inputs x the output's elements
-- Without `outputs` the inputs are overwritten. Without `async` the call returns once every device
-- has finished. One communicator per device is made for each list of devices (ncclCommInitAll)
-- and kept for later calls on the same devices.
--
-- The multi-process API, one rank per process (ranks count from 0, as in NCCL):
--    local id = nccl.uniqueId()              an nccl.UniqueId; send it to every rank (parallel,
--                                            ipc, torch.save: it is a torch class holding 128 bytes,
--                                            so the receiver must have required 'nccl')
--    local comm = nccl.communicator(nranks, id, rank[, device])   device: cutorch's current one
--    local comm = nccl.localCommunicator(nranks, id, rank[, device])  ranks of this machine, any
--                                            number per GPU (summed through CUDA IPC per GPU;
--                                            the same methods, no abort)
--    comm:allReduce(send[, recv][, op])      op: 'sum' (default), 'prod', 'max', 'min', 'avg'
--    comm:reduce(send[, recv][, op][, root]) root: a rank, 0 by default
--    comm:bcast(send[, recv][, root])
--    comm:allGather(send, recv)              in place: send is recv's slice for this rank
--    comm:reduceScatter(send, recv[, op])    in place: recv is send's slice for this rank
--    comm:rank(), comm:size(), comm:device(), comm:destroy(), comm:abort()
-- Without `recv` a collective works in place. Collectives are queued on the device's current
-- stream, in order with other work on it, and return without waiting for the GPU.
--
-- nccl.timeout (seconds, default 300) bounds every wait for the other ranks: making a
-- communicator, and queueing a collective or destroying while NCCL still connects or drains. When
-- it runs out, the communicator is aborted and the call raises. It is read when a communicator is
-- made. A peer that dies in the middle of a collective leaves the GPU work waiting; NCCL reports
-- the broken connection, and the next call on the communicator raises.
--
-- destroy() waits (at most nccl.timeout) for the communicator's queued work, then frees it;
-- destroying again does nothing, and any other use raises. A communicator that is garbage
-- collected is destroyed the same way. abort() frees it at once, dropping queued work.
--
-- The library is looked for on first use: $LUATORCH_NCCL (a file; nothing else is tried when it is
-- set), libnccl.so.2 and libnccl.so on the loader's path, the pip wheel's
-- <site-packages>/nvidia/nccl/lib/libnccl.so.2, and python3's nvidia.nccl package.
-- nccl.available() says whether it was found (true, what was loaded / false, what was tried).

local lib = require 'libnccl'
local torch = require 'torch'

local nccl = {}

nccl.timeout = 300

function nccl.available()
   return lib.available()
end

-- The version code (2.28.9 is 22809) and the version as a string.
function nccl.version()
   return lib.version()
end

---------------------------------------------------------------------------------------------------
-- Unique ids: 128 bytes made by one rank and given to all.

local UniqueId = torch.class('nccl.UniqueId', nccl)

function UniqueId:__init(bytes)
   if type(bytes) ~= 'string' or #bytes ~= 128 then
      local got = type(bytes) == 'string' and ('a string of ' .. #bytes .. ' bytes') or type(bytes)
      error('nccl.UniqueId: expected the 128 bytes of a unique id (from nccl.uniqueId()), got ' .. got, 3)
   end
   self.internal = bytes
end

-- The 128 bytes, as a string.
function UniqueId:bytes()
   return self.internal
end

function UniqueId:__tostring__()
   local hex = (self.internal or ''):sub(1, 8):gsub('.', function(c) return string.format('%02x', c:byte()) end)
   return 'nccl.UniqueId ' .. hex .. '...'
end

function UniqueId.__eq__(a, b)
   return torch.type(a) == 'nccl.UniqueId' and torch.type(b) == 'nccl.UniqueId' and a.internal == b.internal
end

function nccl.uniqueId()
   return nccl.UniqueId(lib.uniqueId())
end

-- An id for nccl.localCommunicator: nccl.uniqueId()'s where the NCCL library is; without it one
-- that serves ranks which all share one GPU (they need no NCCL).
function nccl.localUniqueId()
   return nccl.UniqueId(lib.localUniqueId())
end

---------------------------------------------------------------------------------------------------
-- Multi-process communicators.

-- cutorch's current device when there is one, else the first device (without a device the
-- communicator's own checks then say what is wrong, naming nccl.communicator).
local function current_device()
   local ok, cutorch = pcall(require, 'cutorch')
   if ok and type(cutorch) == 'table' and type(cutorch.getDevice) == 'function' then
      local has, device = pcall(cutorch.getDevice)
      if has then return device end
   end
   return 1
end

function nccl.communicator(nranks, id, rank, device)
   if torch.type(id) == 'nccl.UniqueId' then id = id.internal end
   if device == nil then device = current_device() end
   return lib.communicator(nranks, id, rank, device, nccl.timeout)
end

-- The same for ranks that all run on this machine, any number of them per GPU (NCCL 2.5 to
-- 2.29 refuse two ranks on one GPU): the ranks of a GPU are summed through CUDA IPC, and NCCL
-- runs among one rank per GPU. The id must come from nccl.uniqueId() or nccl.localUniqueId() (it
-- carries where the ranks meet). Without NCCL it still works when every rank is on one GPU.
function nccl.localCommunicator(nranks, id, rank, device)
   if torch.type(id) == 'nccl.UniqueId' then id = id.internal end
   if device == nil then device = current_device() end
   return lib.localCommunicator(nranks, id, rank, device, nccl.timeout)
end

---------------------------------------------------------------------------------------------------
-- nccl.torch's single-process API.

-- Communicators by device list ("1,2,3").
local cliques = {}

local function clique(fname, inputs)
   local devices = lib.devices(fname, inputs)
   local key = table.concat(devices, ',')
   local comms = cliques[key]
   if comms == nil then
      comms = lib.initAll(fname, devices, nccl.timeout)
      cliques[key] = comms
   end
   return comms
end

-- The optional arguments after `inputs`, told apart by type: a table (outputs, first only, where
-- the call takes them), a boolean (async), a number (root, where the call takes one).
local function options(fname, takes_outputs, takes_root, ...)
   local outputs, async, root
   for i = 1, select('#', ...) do
      local v = select(i, ...)
      local t = type(v)
      if v == nil then
         -- skipped
      elseif t == 'table' and takes_outputs and i == 1 then
         outputs = v
      elseif t == 'boolean' and async == nil then
         async = v
      elseif t == 'number' and takes_root and root == nil then
         root = v
      else
         local expected = {}
         if takes_outputs and i == 1 then expected[#expected + 1] = 'outputs' end
         expected[#expected + 1] = 'async'
         if takes_root then expected[#expected + 1] = 'root' end
         error(string.format('%s: bad argument #%d (%s expected, got %s)', fname, i + 1,
            table.concat(expected, ' or '), torch.type(v)), 4)
      end
   end
   return outputs, async, root
end

local function run(fname, kind, takes_outputs, takes_root, inputs, ...)
   local outputs, async, root = options(fname, takes_outputs, takes_root, ...)
   local comms = clique(fname, inputs)
   lib.group(fname, kind, comms, inputs, outputs, 'sum', root, not async)
end

-- name = { takes outputs, takes a root }. bcast works in place, from inputs[root] to the others.
local calls = {
   allReduce = { true, false },
   reduce = { true, true },
   bcast = { false, true },
   allGather = { true, false },
   reduceScatter = { true, false },
}
for name, shape in pairs(calls) do
   local fname = 'nccl.' .. name
   nccl[name] = function(inputs, ...)
      run(fname, name, shape[1], shape[2], inputs, ...)
   end
end

return nccl
