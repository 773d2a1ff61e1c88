-- nn.Contiguous: the input unchanged, copied into contiguous memory when it is not (a view of it
-- otherwise); the same for the gradient.

local Contiguous = torch.class('nn.Contiguous', 'nn.Module')

-- `dst` made to hold `src` contiguously: a view when it already is, else a copy.
local function contiguousInto(dst, src)
   if src:isContiguous() then
      dst:set(src)
   else
      -- dst may be a view of an earlier src: detach it before resizing into new memory.
      if dst:storage() and src:storage() and torch.pointer(dst:storage()) == torch.pointer(src:storage()) then
         dst:set()
      end
      dst:resizeAs(src):copy(src)
   end
   return dst
end

function Contiguous:updateOutput(input)
   return contiguousInto(self.output, input)
end

function Contiguous:updateGradInput(input, gradOutput)
   return contiguousInto(self.gradInput, gradOutput)
end

return Contiguous
