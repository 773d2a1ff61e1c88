-- Helpers shared by image's parts: errors named after the function, argument checks.

local util = {}

-- Raises "<fn>: <message>" (the project's error form: the function first, no position).
function util.fail(fn, message)
   error(fn .. ': ' .. message, 0)
end

-- The usage line of an image function, for calls that match none of its forms.
function util.usage(fn, forms)
   util.fail(fn, 'incorrect arguments; expected ' .. forms)
end

function util.isTensor(x)
   return torch.isTensor(x)
end

-- Truncates towards zero, as torch/image's C took numbers for sizes and positions.
function util.trunc(v)
   if v >= 0 then return math.floor(v) else return math.ceil(v) end
end

-- (width, height) of a 2-D (HxW) or 3-D (CxHxW) image.
function util.dims(fn, img)
   if not torch.isTensor(img) then
      util.fail(fn, 'bad argument (tensor expected, got ' .. torch.type(img) .. ')')
   end
   local d = img:dim()
   if d == 3 then return img:size(3), img:size(2) end
   if d == 2 then return img:size(2), img:size(1) end
   util.fail(fn, 'expected a 2D (HxW) or 3D (CxHxW) image, got a ' .. d .. 'D tensor')
end

return util
