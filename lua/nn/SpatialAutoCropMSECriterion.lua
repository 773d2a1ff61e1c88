-- nn.SpatialAutoCropMSECriterion([sizeAverage]): the nn.MSECriterion between C x H x W inputs
-- (or batches) and targets at least as tall and wide, the target first cropped to the input's
-- height and width about its centre (rows from 1 + floor((tH - H) / 2), columns likewise).

require 'nn.MSECriterion'
local SpatialAutoCropMSECriterion, parent = torch.class('nn.SpatialAutoCropMSECriterion', 'nn.MSECriterion')

function SpatialAutoCropMSECriterion:__init(sizeAverage)
   parent.__init(self, sizeAverage)
end

-- The target cropped to the input's size, after checking the two agree in everything else.
local function cropped(input, target)
   local name = 'nn.SpatialAutoCropMSECriterion'
   local d = input:dim()
   if d ~= 3 and d ~= 4 then error(name .. ': input and target must have 3 or 4 dimensions', 3) end
   if target:dim() ~= d then error(name .. ': input and target must have the same number of dimensions', 3) end
   if d == 4 and input:size(1) ~= target:size(1) then
      error(name .. ': input and target must have the same batch size', 3)
   end
   if input:size(d - 2) ~= target:size(d - 2) then
      error(name .. ': input and target must have the same number of channels', 3)
   end
   local H, W, tH, tW = input:size(d - 1), input:size(d), target:size(d - 1), target:size(d)
   if H > tH or W > tW then
      error(string.format('%s: the input (%dx%d) must not be larger than the target (%dx%d)', name, H, W, tH, tW), 3)
   end
   local top = math.floor((tH - H) / 2)
   local left = math.floor((tW - W) / 2)
   return target:narrow(d - 1, top + 1, H):narrow(d, left + 1, W):contiguous()
end

function SpatialAutoCropMSECriterion:updateOutput(input, target)
   return parent.updateOutput(self, input, cropped(input, target))
end

-- The target may be given cropped already (the original expected that here) or whole.
function SpatialAutoCropMSECriterion:updateGradInput(input, target)
   return parent.updateGradInput(self, input, cropped(input, target))
end

return SpatialAutoCropMSECriterion
