-- Runs under an address-space limit (tests/out_of_memory.rs); arg[1] picks what runs out. Each
-- case must end in a Lua error that says what ran out, after which the script frees what it
-- holds and goes on.
local case = arg[1]
local held, ok, err = {}, nil, nil
-- What a case held goes before anything else allocates (a message, a print).
local function let_go()
   local n = #held
   held = nil
   collectgarbage()
   collectgarbage()
   return n
end
if case == 'serialize' then
   -- A 2.8 GB storage fits; its serialized copy does not.
   local s = torch.ByteStorage(2.8e9)
   ok, err = pcall(torch.serialize, s)
   assert(not ok and err:find('out of memory') and err:find('2800000044 bytes'), tostring(err))
   s = nil
elseif case == 'storage' then
   ok, err = pcall(torch.FloatStorage, 2e9)
   assert(not ok and err:find('out of memory allocating 8000000000 bytes'), tostring(err))
elseif case == 'tensors' then
   ok, err = pcall(function()
      for i = 1, 1e8 do
         held[i] = torch.FloatTensor(2)
      end
   end)
   let_go()
   -- With Lua's heap full even the message could not be made a string: it comes as the error
   -- value, which prints once memory is back.
   err = tostring(err)
   -- Lua's heap or Rust's (then the reserve lets the call finish and names it) runs out first.
   assert(not ok and err:find('not enough memory'), tostring(err))
elseif case == 'tables' then
   ok, err = pcall(function()
      for i = 1, 1e9 do
         held[i] = { i }
      end
   end)
   let_go()
   assert(not ok and err:find('not enough memory'), tostring(err))
elseif case == 'strings' then
   ok, err = pcall(function()
      for i = 1, 1e9 do
         held[i] = string.rep('x', 1000) .. i
      end
   end)
   let_go()
   assert(not ok and err:find('not enough memory'), tostring(err))
else
   error('unknown case ' .. tostring(case))
end
if held then
   let_go()
end
-- The script goes on: it can allocate again.
local t = torch.FloatTensor(1e6):fill(1)
assert(t:sum() == 1e6)
local list = {}
for i = 1, 1e5 do
   list[i] = { i }
end
print('ok')
