-- Lua side of the random numbers: the torch.Generator class over the native generator userdata,
-- and torch._gen, the userdata of the default generator. The draws themselves are native
-- (torch.uniform, x:uniform, ...).
local torch = torch
local Random = {}

local register = torch._registerGenerator
local newGenerator = torch._newGenerator
local defaultGenerator = torch._defaultGenerator
torch._registerGenerator, torch._newGenerator, torch._defaultGenerator = nil, nil, nil

-- Size in bytes of a generator's raw state (Torch's struct on x86_64).
local STATE_BYTES = 5048

-- torch.Generator() is a new generator seeded from /dev/urandom; the factory (used when a file
-- holds a generator) makes one that `read` then fills.
local Generator = torch.newmetatable('torch.Generator', nil,
   function() return newGenerator() end, nil,
   function() return newGenerator() end)

register {
   __typename = 'torch.Generator',
   __version = 1,
   __index = Generator,
   __tostring = Generator.__tostring,
}

-- Serialization as Torch does it: the raw state bytes.
function Generator.write(self, file)
   file:writeByte(torch.getRNGState(self):storage())
end

function Generator.read(self, file)
   local bytes = torch.ByteStorage(STATE_BYTES)
   file:readByte(bytes)
   torch.setRNGState(self, torch.ByteTensor(bytes))
end

torch._gen = defaultGenerator()

-- Walker's alias method over a state table {J, q} (the native multinomialAliasSetup_ and
-- multinomialAlias_ do the work): the setup refills a given state's tensors, or makes a new state.
function torch.multinomialAliasSetup(probs, state)
   if type(state) ~= 'table' then
      return { torch.multinomialAliasSetup_(probs) }
   end
   local J, q = torch.multinomialAliasSetup_(probs, state[1], state[2])
   state[1], state[2] = J, q
   return state
end

-- Fills output with output:nElement() draws and returns it.
function torch.multinomialAlias(output, state)
   if type(state) ~= 'table' then
      error('torch.multinomialAlias: bad argument #2 (state table from torch.multinomialAliasSetup expected, got '
         .. torch.type(state) .. ')', 2)
   end
   return torch.multinomialAlias_(output, state[1], state[2])
end

return Random
