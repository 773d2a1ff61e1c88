-- threads.serialize: a value to a storage of its torch serialization and back (torch/threads'
-- default serializer: tensors are copied).
require 'torch'

local serialize = {}

function serialize.save(value)
   local f = torch.MemoryFile()
   f:binary()
   f:writeObject(value)
   local storage = f:storage()
   f:close()
   return storage
end

function serialize.load(storage)
   local f = torch.MemoryFile(storage)
   f:binary()
   local value = f:readObject()
   f:close()
   return value
end

return serialize
