-- require 'nccl' with and without the NCCL library; what a missing library's errors say.
--    th nccl/load.lua absent PATH    LUATORCH_NCCL=PATH names a file that does not exist
--    th nccl/load.lua notnccl NAME   LUATORCH_NCCL=NAME is a library that is not NCCL
--    th nccl/load.lua default        LUATORCH_NCCL unset: the errors list what was searched
--                                    (skipped, saying so, when the search finds a library)
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local mode, path = arg[1], arg[2]

local nccl = require 'nccl'

H.case('the module loads whatever the library', function()
   H.eq(type(nccl), 'table', 'require returns the module')
   H.eq(require 'nccl', nccl, 'a second require')
   for _, f in ipairs({ 'available', 'version', 'uniqueId', 'localUniqueId', 'communicator', 'localCommunicator',
      'allReduce', 'reduce', 'bcast', 'allGather', 'reduceScatter' }) do
      H.eq(type(nccl[f]), 'function', 'nccl.' .. f)
   end
   H.eq(nccl.timeout, 300, 'the default nccl.timeout')
   H.eq(type(nccl.UniqueId), 'table', 'the nccl.UniqueId class')
end)

-- The calls that need the library all raise `msg`-like errors naming themselves.
local function library_errors(...)
   local ok, why = nccl.available()
   H.eq(ok, false, 'nccl.available()')
   H.eq(type(why), 'string', 'the reason')
   for _, s in ipairs({ ... }) do
      H.check(why:find(s, 1, true), 'the reason should mention %q, got: %s', s, why)
   end
   H.fails('uniqueId', 'nccl.uniqueId: ', nccl.uniqueId, ...)
   H.fails('version', 'nccl.version: ', nccl.version, ...)
   -- Ranks that all share one GPU need no NCCL: their id needs no library either.
   local id = nccl.localUniqueId()
   H.eq(torch.type(id), 'nccl.UniqueId', 'a local id without the library')
   H.eq(#id:bytes(), 128, 'its size')
   H.check(nccl.localUniqueId():bytes() ~= id:bytes(), 'a new local id each call')
   -- A unique id made elsewhere is all a communicator needs from us before the device.
   H.check(not pcall(nccl.communicator, 1, string.rep('x', 128), 0), 'communicator without NCCL or GPU')
end

if mode == 'absent' then
   H.case('LUATORCH_NCCL names a missing file', library_errors, 'LUATORCH_NCCL=' .. path, 'No such file')
elseif mode == 'notnccl' then
   H.case('LUATORCH_NCCL names a library that is not NCCL', library_errors, 'LUATORCH_NCCL=' .. path,
      'no ncclGetVersion')
elseif mode == 'default' then
   local ok, where = nccl.available()
   if ok then
      print('SKIP the search list: the default search found ' .. where)
   else
      H.case('the error lists what was searched', library_errors, 'LUATORCH_NCCL (not set)', 'libnccl.so.2 (',
         'libnccl.so (', 'nvidia/nccl/lib/libnccl.so.2', 'python3', 'set LUATORCH_NCCL')
   end
else
   error('usage: th nccl/load.lua absent PATH | notnccl NAME | default')
end

H.finish()
