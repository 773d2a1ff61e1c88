-- threads.sharedserialize: as threads.serialize, but tensors and storages are shared between the
-- threads of this process instead of copied (an ipc.marshal of the value, closures' upvalues
-- included).
local ipc = require 'libipc'

local sharedserialize = {}

function sharedserialize.save(value)
   return ipc.marshal(value, true)
end

function sharedserialize.load(marshalled)
   return marshalled:read()
end

return sharedserialize
