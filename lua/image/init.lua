-- image: torch/image's API (load/save, geometry, colour, filtering, drawing), built into th.
--
--   local image = require 'image'
--   local img = image.load('photo.jpg', 3, 'float')   -- 3 x H x W, values in [0, 1]
--   image.save('small.png', image.scale(img, '^224'))
--
-- The pixel work and the codecs are in Rust (libimage, src/image/); this file and its parts
-- hold the argument forms, defaults and result layouts of torch/image.

require 'torch'
require 'xlua'
require 'dok'

local lib = require 'libimage'

local image = rawget(_G, 'image') or {}
rawset(_G, 'image', image)

-- The native functions under the names torch/image's C module had, for scripts that reach them
-- as `img.image.scaleBilinear(src, dst)` or through `image.float`, `image.double`, `image.byte`.
image.float, image.double, image.byte = lib, lib, lib
for _, name in ipairs{'torch.FloatTensor', 'torch.DoubleTensor', 'torch.ByteTensor'} do
   local mt = torch.getmetatable(name)
   if mt and rawget(mt, 'image') == nil then rawset(mt, 'image', lib) end
end

local util = require 'image.util'
require('image.io')(image, lib, util)
require('image.geometry')(image, lib, util)
require('image.colour')(image, lib, util)
require('image.filter')(image, lib, util)
require('image.display')(image, lib, util)

return image
