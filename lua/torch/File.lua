-- torch.File and its subclasses (DiskFile, MemoryFile, PipeFile), torch.save/load, serialize/deserialize.
-- The classes are torch classes whose instances hold a native handle; the methods and the .t7
-- format are native (src/torch/file.rs, src/torch/t7/).

local torch = torch
local F = require('libtorch').file

local File = torch.newmetatable('torch.File', nil, function()
   error('torch.File is abstract: use torch.DiskFile, torch.MemoryFile or torch.PipeFile', 2)
end)
for k, f in pairs(F.methods) do File[k] = f end

local DiskFile, MemoryFile, PipeFile

-- torch.DiskFile(name [, 'r'|'w'|'rw'] [, quiet])
DiskFile = torch.newmetatable('torch.DiskFile', 'torch.File', function(...)
   return F.newDiskFile(DiskFile, ...)
end)
for k, f in pairs(F.diskMethods) do DiskFile[k] = f end

-- torch.MemoryFile([charStorage] [, 'r'|'w'|'rw'])
MemoryFile = torch.newmetatable('torch.MemoryFile', 'torch.File', function(...)
   return F.newMemoryFile(MemoryFile, ...)
end)
for k, f in pairs(F.memoryMethods) do MemoryFile[k] = f end

-- torch.PipeFile(command [, 'r'|'w'] [, quiet]): a DiskFile over a pipe, as in Torch.
PipeFile = torch.newmetatable('torch.PipeFile', 'torch.DiskFile', function(...)
   return F.newPipeFile(PipeFile, ...)
end)

local function check_referenced(fname, referenced)
   if referenced ~= nil and referenced ~= true and referenced ~= false then
      error(fname .. ': true or false (or nil) expected for referenced, got ' .. tostring(referenced), 3)
   end
   if referenced == nil then return true end
   return referenced
end

function torch.save(filename, object, mode, referenced)
   if mode ~= nil and mode ~= 'binary' and mode ~= 'ascii' then
      error('torch.save: "binary" or "ascii" (or nil) expected for mode, got ' .. tostring(mode), 2)
   end
   referenced = check_referenced('torch.save', referenced)
   local file = torch.DiskFile(filename, 'w')
   file[mode or 'binary'](file)
   file:referenced(referenced)
   local ok, err = pcall(file.writeObject, file, object)
   file:close()
   if not ok then error(err, 0) end
end

function torch.load(filename, mode, referenced)
   if mode ~= nil and mode ~= 'binary' and mode ~= 'ascii' and mode ~= 'b32' and mode ~= 'b64' then
      error('torch.load: "binary", "b32", "b64" or "ascii" (or nil) expected for mode, got ' .. tostring(mode), 2)
   end
   referenced = check_referenced('torch.load', referenced)
   local file = torch.DiskFile(filename, 'r')
   if mode == 'b32' or mode == 'b64' then
      file:binary()
      file:longSize(mode == 'b32' and 4 or 8)
   else
      file[mode or 'binary'](file)
   end
   file:referenced(referenced)
   local ok, object = pcall(file.readObject, file)
   file:close()
   if not ok then error(object, 0) end
   return object
end

local function check_mode(fname, mode)
   if mode ~= nil and mode ~= 'binary' and mode ~= 'ascii' then
      error(fname .. ': "binary" or "ascii" (or nil) expected for mode, got ' .. tostring(mode), 3)
   end
   return mode or 'binary'
end

-- The bytes of one writeObject in a CharStorage (without MemoryFile's trailing NUL).
function torch.serializeToStorage(object, mode)
   mode = check_mode('torch.serializeToStorage', mode)
   local f = torch.MemoryFile()
   f[mode](f)
   f:writeObject(object)
   local storage = f:storage()
   storage:resize(storage:size() - 1)
   f:close()
   return storage
end

function torch.serialize(object, mode)
   mode = check_mode('torch.serialize', mode)
   return torch.serializeToStorage(object, mode):string()
end

-- One object read from serialized bytes (a MemoryFile needs its trailing NUL), the file closed
-- whatever happens.
local function read_serialized(bytes, mode)
   local f = torch.MemoryFile(torch.CharStorage():string(bytes .. '\0'))
   f[mode](f)
   local ok, object = pcall(f.readObject, f)
   f:close()
   if not ok then error(object, 0) end
   return object
end

function torch.deserializeFromStorage(storage, mode)
   mode = check_mode('torch.deserializeFromStorage', mode)
   local kind = torch.typename(storage)
   if kind == 'torch.CharStorage' then
      return read_serialized(storage:string(), mode)
   end
   -- The original reads its argument through torch.CharTensor(...), so a 1-D CharTensor of the
   -- bytes serves as well (torchnet's IndexedDataset keeps its objects so).
   if kind == 'torch.CharTensor' and storage:dim() == 1 then
      local bytes = storage:contiguous()
      local from = bytes:storageOffset()
      return read_serialized(bytes:storage():string():sub(from, from + bytes:nElement() - 1), mode)
   end
   error('torch.deserializeFromStorage: torch.CharStorage or 1-D torch.CharTensor expected, got '
      .. torch.type(storage) .. (kind == 'torch.CharTensor' and (' of ' .. storage:dim() .. ' dimensions') or ''), 2)
end

function torch.deserialize(str, mode)
   mode = check_mode('torch.deserialize', mode)
   if type(str) ~= 'string' then
      error('torch.deserialize: string expected, got ' .. type(str), 2)
   end
   return read_serialized(str, mode)
end

torch.saveobj = torch.save
torch.loadobj = torch.load

return File
