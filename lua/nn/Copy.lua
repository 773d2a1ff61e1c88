-- nn.Copy([intype, outtype, forceCopy, dontCast]): converts the input from tensor type intype to
-- outtype, and the gradient back (types default to torch.Tensor's). When no conversion is needed
-- and forceCopy is not set it passes views instead of copies. With dontCast, :type() leaves the
-- module's tensors as they are.

local Copy, parent = torch.class('nn.Copy', 'nn.Module')

function Copy:__init(intype, outtype, forceCopy, dontCast)
   intype = intype or torch.Tensor.__typename
   outtype = outtype or torch.Tensor.__typename
   self.dontCast = dontCast
   self.forceCopy = forceCopy
   parent.__init(self)
   self.gradInput = torch.getmetatable(intype).new()
   self.output = torch.getmetatable(outtype).new()
end

-- `dst` holding `src`: a view when they are of one type (and no copy is forced), else a copy.
local function convert(self, dst, src)
   if not self.forceCopy and torch.type(dst) == torch.type(src) then
      dst:set(src)
   else
      dst:resize(src:size()):copy(src)
   end
   return dst
end

function Copy:updateOutput(input)
   return convert(self, self.output, input)
end

function Copy:updateGradInput(input, gradOutput)
   return convert(self, self.gradInput, gradOutput)
end

function Copy:type(type, tensorCache)
   if type and self.dontCast then
      return self
   end
   return parent.type(self, type, tensorCache)
end

return Copy
