-- nn.SpatialZeroPadding(padLeft[, padRight, padTop, padBottom]): zeros around each plane of
-- C x H x W images (or a batch); a negative pad crops instead.

local SpatialZeroPadding, parent = torch.class('nn.SpatialZeroPadding', 'nn.Module')

function SpatialZeroPadding:__init(pad_l, pad_r, pad_t, pad_b)
   parent.__init(self)
   self.pad_l = pad_l
   self.pad_r = pad_r or self.pad_l
   self.pad_t = pad_t or self.pad_l
   self.pad_b = pad_b or self.pad_l
end

-- The rows and columns of the input and of the output that correspond (the region both share).
local function overlap(self, h, w)
   local inRow = math.max(1, 1 - self.pad_t)
   local outRow = math.max(1, 1 + self.pad_t)
   local inCol = math.max(1, 1 - self.pad_l)
   local outCol = math.max(1, 1 + self.pad_l)
   local rows = h - math.max(0, -self.pad_t) - math.max(0, -self.pad_b)
   local cols = w - math.max(0, -self.pad_l) - math.max(0, -self.pad_r)
   return inRow, outRow, rows, inCol, outCol, cols
end

local function planes(input)
   if input:dim() == 3 then return 2, 3 end
   if input:dim() == 4 then return 3, 4 end
   error('nn.SpatialZeroPadding: input must be 3 or 4-dimensional')
end

function SpatialZeroPadding:updateOutput(input)
   local hd, wd = planes(input)
   local h = input:size(hd) + self.pad_t + self.pad_b
   local w = input:size(wd) + self.pad_l + self.pad_r
   if w < 1 or h < 1 then error('nn.SpatialZeroPadding: input is too small') end
   local size = input:size()
   size[hd], size[wd] = h, w
   self.output:resize(size):zero()
   local inRow, outRow, rows, inCol, outCol, cols = overlap(self, input:size(hd), input:size(wd))
   if rows > 0 and cols > 0 then
      self.output:narrow(hd, outRow, rows):narrow(wd, outCol, cols)
         :copy(input:narrow(hd, inRow, rows):narrow(wd, inCol, cols))
   end
   return self.output
end

function SpatialZeroPadding:updateGradInput(input, gradOutput)
   local hd, wd = planes(input)
   self.gradInput:resizeAs(input):zero()
   local inRow, outRow, rows, inCol, outCol, cols = overlap(self, input:size(hd), input:size(wd))
   if rows > 0 and cols > 0 then
      self.gradInput:narrow(hd, inRow, rows):narrow(wd, inCol, cols)
         :copy(gradOutput:narrow(hd, outRow, rows):narrow(wd, outCol, cols))
   end
   return self.gradInput
end

function SpatialZeroPadding:__tostring__()
   return torch.type(self) .. string.format('(l=%d, r=%d, t=%d, b=%d)', self.pad_l, self.pad_r, self.pad_t,
      self.pad_b)
end

return SpatialZeroPadding
