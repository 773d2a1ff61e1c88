-- NCCL 1.x's C interface as FFI scripts of the Torch7 era use it: the 1.x header declared through
-- LuaJIT's FFI, `ffi.load('libnccl.so.1')` by its bare name, ranks forked with `parallel` (the
-- parent is rank 0), the unique id sent as an IntTensor of its 128 signed bytes, and each
-- collective queued on ffi.C.THCState_getCurrentStream(cutorch.getState()) with `CudaTensor:data()`.
-- Every rank runs on device 1 (ranks sharing a GPU). Prints PASS/FAIL lines and `ok`.
--    th v1_ffi.lua [nranks]          (4 by default)
require 'torch'
require 'cutorch'
require 'parallel'
local ffi = require 'ffi'

local NRANKS = tonumber(arg and arg[1]) or 4

-- The body every rank runs (the parent as rank 0, each child as its parallel.id).
local function body(nranks)
   require 'cutorch' -- first: it declares cudaStream_t
   local ffi = require 'ffi'
   -- NCCL 1.x's declarations (its public header: int counts, 1.x type and result codes).
   ffi.cdef [[
typedef struct ncclComm* ncclComm_t;
typedef struct { char internal[128]; } ncclUniqueId;
typedef enum { ncclSuccess = 0, ncclInvalidDevicePointer = 4, ncclInvalidRank = 5,
               ncclInvalidArgument = 12, ncclInvalidType = 13, ncclInvalidOperation = 14 } ncclResult_t;
typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3 } ncclRedOp_t;
typedef enum { ncclChar = 0, ncclInt = 1, ncclHalf = 2, ncclFloat = 3, ncclDouble = 4 } ncclDataType_t;
ncclResult_t ncclGetUniqueId(ncclUniqueId* uniqueId);
ncclResult_t ncclCommInitRank(ncclComm_t* comm, int ndev, ncclUniqueId commId, int rank);
void ncclCommDestroy(ncclComm_t comm);
const char* ncclGetErrorString(ncclResult_t result);
ncclResult_t ncclCommCount(const ncclComm_t comm, int* count);
ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device);
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank);
ncclResult_t ncclReduce(const void* sendbuff, void* recvbuf, int count, ncclDataType_t datatype,
    ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, int count, ncclDataType_t datatype,
    ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, int recvcount,
    ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclBcast(void* buff, int count, ncclDataType_t datatype, int root, ncclComm_t comm,
    cudaStream_t stream);
ncclResult_t ncclAllGather(const void* sendbuff, int count, ncclDataType_t datatype, void* recvbuff,
    ncclComm_t comm, cudaStream_t stream);
]]

   local C = ffi.load('libnccl.so.1')
   local rank = parallel.id
   local fails = 0
   local function say(ok, what)
      if not ok then fails = fails + 1 end
      if rank == 0 or not ok then
         print(string.format('%s rank %d: %s', ok and 'PASS' or 'FAIL', rank, what))
      end
   end
   local function stream() return ffi.C.THCState_getCurrentStream(cutorch.getState()) end
   -- Every rank waits for the others between collectives, as parallel scripts do.
   local function sync()
      if rank == 0 then parallel.children:join() else parallel.yield() end
   end

   local id = ffi.new('ncclUniqueId')
   if rank == 0 then
      say(C.ncclGetUniqueId(id) == 0, 'ncclGetUniqueId')
      local x = torch.IntTensor(128)
      for i = 0, 127 do x[i + 1] = id.internal[i] end
      parallel.children:join()
      parallel.children:send(x)
   else
      parallel.yield()
      local x = parallel.parent:receive()
      for i = 0, 127 do id.internal[i] = x[i + 1] end
   end
   cutorch.setDevice(1)
   local comm = ffi.new('ncclComm_t[1]')
   local r = C.ncclCommInitRank(comm, nranks, id, rank)
   say(r == 0, 'ncclCommInitRank: ' .. ffi.string(C.ncclGetErrorString(r)))
   local out = ffi.new('int[1]')
   say(C.ncclCommCount(comm[0], out) == 0 and out[0] == nranks, 'ncclCommCount')
   say(C.ncclCommUserRank(comm[0], out) == 0 and out[0] == rank, 'ncclCommUserRank')
   say(C.ncclCommCuDevice(comm[0], out) == 0 and out[0] == 0, 'ncclCommCuDevice')

   local n = 1000
   local all = nranks * (nranks - 1) / 2 -- the sum of the ranks
   local send = torch.CudaTensor(n):fill(rank + 1)
   local recv = torch.CudaTensor(n):fill(-1)
   local function check(t, want, what)
      local got = t:double()
      local diff = (got - want):abs():max()
      say(diff == 0, string.format('%s (off by %g)', what, diff))
   end

   collectgarbage('stop')
   sync()
   r = C.ncclReduce(send:data(), rank == 0 and recv:data() or nil, n, C.ncclFloat, C.ncclSum, 0, comm[0], stream())
   sync()
   say(r == 0, 'ncclReduce out of place, NULL output on other ranks')
   if rank == 0 then check(recv, torch.DoubleTensor(n):fill(all + nranks), 'reduce: the root has the sum') end

   send:fill(rank + 1)
   sync()
   r = C.ncclAllReduce(send:data(), recv:data(), n, C.ncclFloat, C.ncclSum, comm[0], stream())
   sync()
   say(r == 0, 'ncclAllReduce out of place')
   check(recv, torch.DoubleTensor(n):fill(all + nranks), 'allReduce sum out of place')
   check(send, torch.DoubleTensor(n):fill(rank + 1), 'allReduce leaves the input alone')

   sync()
   r = C.ncclAllReduce(send:data(), send:data(), n, C.ncclFloat, C.ncclMax, comm[0], stream())
   sync()
   check(send, torch.DoubleTensor(n):fill(nranks), 'allReduce max in place')

   local d = torch.CudaDoubleTensor(n):fill(rank + 1)
   sync()
   r = C.ncclAllReduce(d:data(), d:data(), n, C.ncclDouble, C.ncclProd, comm[0], stream())
   sync()
   local fact = 1
   for i = 1, nranks do fact = fact * i end
   check(d, torch.DoubleTensor(n):fill(fact), 'allReduce prod of doubles')

   local b = torch.CudaTensor(n):fill(rank == 2 % nranks and 42 or rank)
   sync()
   r = C.ncclBcast(b:data(), n, C.ncclFloat, 2 % nranks, comm[0], stream())
   sync()
   check(b, torch.DoubleTensor(n):fill(42), 'bcast from rank ' .. 2 % nranks)

   local piece = torch.CudaTensor(3):fill(rank)
   local gathered = torch.CudaTensor(3 * nranks):fill(-1)
   sync()
   r = C.ncclAllGather(piece:data(), 3, C.ncclFloat, gathered:data(), comm[0], stream())
   sync()
   local want = torch.DoubleTensor(3 * nranks)
   for i = 0, nranks - 1 do want:narrow(1, 3 * i + 1, 3):fill(i) end
   check(gathered, want, 'allGather (1.x argument order)')

   local whole = torch.CudaTensor(2 * nranks)
   for i = 1, 2 * nranks do whole[i] = i * (rank + 1) end
   local mine = torch.CudaTensor(2):fill(-1)
   sync()
   r = C.ncclReduceScatter(whole:data(), mine:data(), 2, C.ncclFloat, C.ncclMin, comm[0], stream())
   sync()
   check(mine, torch.DoubleTensor { 2 * rank + 1, 2 * rank + 2 }, 'reduceScatter min')

   -- Bad arguments answer with 1.x's codes, before any rank waits for the others.
   say(C.ncclAllReduce(send:data(), recv:data(), n, 9, C.ncclSum, comm[0], stream()) == C.ncclInvalidType,
      'an unknown type is ncclInvalidType')
   say(C.ncclAllReduce(send:data(), recv:data(), n, C.ncclFloat, 7, comm[0], stream()) == C.ncclInvalidOperation,
      'an unknown reduction is ncclInvalidOperation')
   say(C.ncclBcast(b:data(), n, C.ncclFloat, nranks, comm[0], stream()) == C.ncclInvalidRank,
      'a root out of range is ncclInvalidRank')
   say(C.ncclAllReduce(send:data(), recv:data(), -1, C.ncclFloat, C.ncclSum, comm[0], stream()) == C.ncclInvalidArgument,
      'a negative count is ncclInvalidArgument')
   say(ffi.string(C.ncclGetErrorString(C.ncclInvalidType)) == 'invalid data type', '1.x error strings')
   collectgarbage('restart')
   sync()
   C.ncclCommDestroy(comm[0])
   return fails
end

local ok, err = pcall(function()
   parallel.nfork(NRANKS - 1)
   -- exec'd functions arrive without their upvalues: the body and the rank count are sent.
   parallel.children:exec(function()
      local n = parallel.parent:receive()
      local f = parallel.parent:receive()
      parallel.parent:send(f(n))
   end)
   parallel.children:send(NRANKS)
   parallel.children:send(body)
   local fails = body(NRANKS)
   local theirs = parallel.children:receive()
   for _, f in pairs(theirs) do fails = fails + f end
   print(fails == 0 and 'ok' or ('FAIL: ' .. fails .. ' failed checks'))
end)
if not ok then print('FAIL: ' .. tostring(err)) end
parallel.close()
