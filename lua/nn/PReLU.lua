-- nn.PReLU([nOutputPlane]): y = x for x > 0, w x otherwise, with a learnt slope w: one for all
-- elements (nOutputPlane 0 or absent), or one per plane. The plane is the first dimension of a
-- 1-D input and the second of any larger one (the first being the batch), as in the original.

local PReLU, parent = torch.class('nn.PReLU', 'nn.Module')

function PReLU:__init(nOutputPlane)
   parent.__init(self)
   self.nOutputPlane = nOutputPlane or 0
   self.weight = torch.Tensor(nOutputPlane or 1):fill(0.25)
   self.gradWeight = torch.Tensor(nOutputPlane or 1)
end

-- The weight shaped to broadcast over `input` (nil when it is one shared slope), and the plane
-- dimension.
local function planeView(self, input)
   if self.nOutputPlane == 0 then return nil end
   local planeDim = input:dim() > 1 and 2 or 1
   if input:size(planeDim) ~= self.nOutputPlane then
      error(string.format('nn.PReLU: wrong number of input planes: expected %d but got %d', self.nOutputPlane,
         input:size(planeDim)))
   end
   local sizes = {}
   for d = 1, input:dim() do sizes[d] = d == planeDim and self.nOutputPlane or 1 end
   return self.weight:view(torch.LongStorage(sizes)):expandAs(input), planeDim
end

-- min(x, 0) as a new tensor.
local function negativePart(x)
   return x.new():resizeAs(x):copy(x):clamp(-math.huge, 0)
end

function PReLU:updateOutput(input)
   local w = planeView(self, input)
   local neg = negativePart(input)
   self.output:resizeAs(input):copy(input):clamp(0, math.huge)
   if w then
      self.output:addcmul(1, w, neg)
   else
      self.output:add(self.weight[1], neg)
   end
   return self.output
end

-- gradInput = gradOutput * (1 where x > 0, the slope elsewhere).
function PReLU:updateGradInput(input, gradOutput)
   local w = planeView(self, input)
   local factor = input.new():resizeAs(input)
   if w then factor:copy(w) else factor:fill(self.weight[1]) end
   factor:maskedFill(input:gt(0), 1)
   self.gradInput:resizeAs(gradOutput):cmul(gradOutput, factor)
   return self.gradInput
end

-- dL/dw = sum of gradOutput * min(x, 0) over the elements that use w.
function PReLU:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local prod = negativePart(input):cmul(gradOutput)
   if self.nOutputPlane == 0 then
      self.gradWeight[1] = self.gradWeight[1] + scale * prod:sum()
   else
      local _, planeDim = planeView(self, input)
      local batch = planeDim == 2 and input:size(1) or 1
      local perPlane = prod:view(batch, self.nOutputPlane, -1):sum(3):sum(1):view(self.nOutputPlane)
      self.gradWeight:add(scale, perPlane)
   end
   return self.gradWeight
end

function PReLU:clearState()
   nn.utils.clear(self, 'gradWeightBuf', 'gradWeightBuf2')
   return parent.clearState(self)
end

return PReLU
