-- nn.SpatialClassNLLCriterion([weights, sizeAverage]): nn.ClassNLLCriterion at every pixel:
-- the input holds log-probabilities N x C x H x W (or C x H x W), the target the class of each
-- pixel, N x H x W (or H x W). The loss is minus the sum of the target classes'
-- log-probabilities, each times its class's weight (default 1), divided by the total weight
-- when sizeAverage (the default).

local SpatialClassNLLCriterion, parent = torch.class('nn.SpatialClassNLLCriterion', 'nn.Criterion')

function SpatialClassNLLCriterion:__init(weights, sizeAverage)
   parent.__init(self)
   if sizeAverage ~= nil then
      self.sizeAverage = sizeAverage
   else
      self.sizeAverage = true
   end
   if weights then
      assert(weights:dim() == 1, 'nn.SpatialClassNLLCriterion: weights must be a vector')
      self.weights = weights
   end
   self.output_tensor = torch.zeros(1)
   self.total_weight_tensor = torch.ones(1)
   self.target = torch.zeros(1):long()
end

function SpatialClassNLLCriterion:__len()
   return self.weights and self.weights:nElement() or 0
end

-- The input as N x C x P (P pixels), the targets as N x 1 x P classes and their weights.
local function layout(self, input, target)
   local name = 'nn.SpatialClassNLLCriterion'
   local d = input:dim()
   if d ~= 3 and d ~= 4 then error(name .. ': input must be 3D (C x H x W) or 4D (N x C x H x W)', 3) end
   local x = d == 3 and nn.utils.addSingletonDimension(input, 1) or input
   local N, C, H, W = x:size(1), x:size(2), x:size(3), x:size(4)
   if type(target) == 'number' then target = torch.LongTensor { target } end
   if target:nElement() ~= N * H * W then
      error(string.format('%s: %d targets for %d pixels', name, target:nElement(), N * H * W), 3)
   end
   self.target = target:long()
   local t = self.target:contiguous():view(N, 1, H * W)
   if t:nElement() > 0 and (t:min() < 1 or t:max() > C) then
      error(string.format('%s: targets must be classes 1 to %d', name, C), 3)
   end
   if self.weights and self.weights:nElement() ~= C then
      error(string.format('%s: %d weights for %d classes', name, self.weights:nElement(), C), 3)
   end
   local w
   if self.weights then
      w = self.weights:typeAs(x):index(1, t:view(-1)):view(N, 1, H * W)
   else
      w = x.new(N, 1, H * W):fill(1)
   end
   return x:contiguous():view(N, C, H * W), t, w
end

function SpatialClassNLLCriterion:updateOutput(input, target)
   local x, t, w = layout(self, input, target)
   local totalWeight = w:sum()
   local total = -torch.cmul(x:gather(2, t), w):sum()
   if self.sizeAverage and totalWeight > 0 then total = total / totalWeight end
   self.output = total
   self.output_tensor[1] = total
   self.total_weight_tensor[1] = totalWeight
   return self.output, totalWeight
end

function SpatialClassNLLCriterion:updateGradInput(input, target)
   local x, t, w = layout(self, input, target)
   local totalWeight = w:sum()
   local g = w:clone():mul(-1)
   if self.sizeAverage and totalWeight > 0 then g:div(totalWeight) end
   self.gradInput:resizeAs(input):zero()
   self.gradInput:view(x:size()):scatter(2, t, g)
   return self.gradInput
end

return SpatialClassNLLCriterion
