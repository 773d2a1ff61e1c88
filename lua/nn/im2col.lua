-- The columns of a 2-D convolution (im2col) and their way back (col2im): a convolution is then
-- one matrix product. Shared by the Spatial convolutions and pooling. Built from views
-- (narrow, unfold) and one copy each way.

local im2col = {}
nn.im2col = im2col

-- `input` (C x H x W) padded with `value` (default 0) by padH rows and padW columns on each side.
function im2col.pad(input, padH, padW, value)
   if padH == 0 and padW == 0 then return input end
   local C, H, W = input:size(1), input:size(2), input:size(3)
   local padded = input.new(C, H + 2 * padH, W + 2 * padW):fill(value or 0)
   padded:narrow(2, padH + 1, H):narrow(3, padW + 1, W):copy(input)
   return padded
end

-- The output size of a window of k moved by d over n (+ pad on both sides); ceil rounds up
-- (the last window may then start in the padding only if it starts inside the input).
function im2col.outSize(n, k, d, pad, ceil)
   local span = n + 2 * pad - k
   local out
   if ceil then
      out = math.ceil(span / d) + 1
      if (out - 1) * d >= n + pad then out = out - 1 end
   else
      out = math.floor(span / d) + 1
   end
   return out
end

-- The windows of `padded` (C x Hp x Wp) as a C x oH x oW x kH x kW view (no copy).
function im2col.windows(padded, kH, kW, dH, dW, oH, oW)
   local needH = (oH - 1) * dH + kH
   local needW = (oW - 1) * dW + kW
   assert(needH <= padded:size(2) and needW <= padded:size(3), 'nn.im2col.windows: windows reach past the input')
   local region = padded:narrow(2, 1, needH):narrow(3, 1, needW)
   return region:unfold(2, kH, dH):unfold(3, kW, dW)
end

-- The columns of `input` (C x H x W): a (C*kH*kW) x (oH*oW) matrix, written into `cols`.
function im2col.columns(cols, input, kH, kW, dH, dW, padH, padW, oH, oW)
   local C = input:size(1)
   local padded = im2col.pad(input, padH, padW, 0)
   local win = im2col.windows(padded, kH, kW, dH, dW, oH, oW) -- C x oH x oW x kH x kW
   cols:resize(C, kH, kW, oH, oW):copy(win:permute(1, 4, 5, 2, 3))
   return cols:view(C * kH * kW, oH * oW)
end

-- Adds the columns' values back onto the input positions they were taken from: `gradCols`
-- ((C*kH*kW) x (oH*oW)) into `gradInput` (C x H x W, not cleared here).
function im2col.addColumns(gradInput, gradCols, kH, kW, dH, dW, padH, padW, oH, oW)
   local C, H, W = gradInput:size(1), gradInput:size(2), gradInput:size(3)
   local padded = gradInput
   if padH > 0 or padW > 0 then
      padded = gradInput.new(C, H + 2 * padH, W + 2 * padW):zero()
   end
   local g = gradCols:view(C, kH, kW, oH, oW)
   for kh = 1, kH do
      for kw = 1, kW do
         -- Input positions (kh + (i-1) dH, kw + (j-1) dW) for every output position (i, j).
         local target = padded:narrow(2, kh, (oH - 1) * dH + 1):narrow(3, kw, (oW - 1) * dW + 1)
         target = target:unfold(2, 1, dH):unfold(3, 1, dW):select(5, 1):select(4, 1)
         target:add(g:select(2, kh):select(2, kw))
      end
   end
   if padded ~= gradInput then
      gradInput:add(padded:narrow(2, padH + 1, H):narrow(3, padW + 1, W))
   end
   return gradInput
end

return im2col
