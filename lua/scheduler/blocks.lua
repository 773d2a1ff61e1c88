-- A chunk of task data (or results) as one block between processes: one tensor travels instead
-- of a .t7 entry per number or a .t7 object per tensor, and the other side cuts it back.
-- Numbers, the common case of short tasks, are copied through an FFI pointer in a loop the JIT
-- compiles (a few ns per number, where each call of the Lua C API costs more than that);
-- tensors of one type and size go through libthreads' _stack and _unstack.
local torch = require 'torch'
local lib_threads = require 'libthreads'
local new_table = require 'table.new'

local type = type
local blocks = {}

-- list[from .. from+n-1] as a DoubleTensor of n when they are all numbers (Lua's numbers are
-- doubles: nothing is lost); nil otherwise.
function blocks.stack_numbers(list, from, n)
   if n < 1 or type(list[from]) ~= 'number' then return nil end
   local block = torch.DoubleTensor(n)
   local p = block:data()
   for i = 0, n - 1 do
      local v = list[from + i]
      if type(v) ~= 'number' then return nil end
      p[i] = v
   end
   return block
end

-- list[from .. from+n-1] as one tensor: numbers as stack_numbers stacks them, host tensors of one
-- type and size as one tensor of n x (their size); nil otherwise (the chunk travels as it is).
function blocks.stack(list, from, n)
   if n < 1 then return nil end
   if type(list[from]) == 'number' then
      return blocks.stack_numbers(list, from, n)
   end
   return lib_threads._stack(list, from, n)
end

-- A block back as a list: its numbers (1-D), or one tensor of its own per row.
function blocks.unstack(block)
   if block:dim() == 1 and torch.type(block) == 'torch.DoubleTensor' and block:isContiguous() then
      local n = block:size(1)
      local p = block:data()
      local list = new_table(n, 0)
      for i = 1, n do list[i] = p[i - 1] end
      return list
   end
   return lib_threads._unstack(block)
end

return blocks
