-- Loading and saving images: files and ByteTensor buffers, PNG (8 and 16 bits), JPEG, PPM/PGM.
-- A loaded image is C x H x W; a byte one holds 0..255, a float or double one [0, 1] (a 16-bit
-- PNG divided by 65535). `depth` 1 makes an RGB(A) image grey (H x W, through rgb2y) and 3
-- makes a grey one RGB (its plane three times) or drops an alpha channel.

return function(image, lib, util)
   local fail = util.fail

   local typeNames = { byte = 'Byte', float = 'Float', double = 'Double' }

   -- The element type ('Byte', 'Float' or 'Double') for a tensortype argument.
   local function elementType(fn, tensortype)
      if tensortype == nil then
         return (torch.getdefaulttensortype():match('^torch%.(%a+)Tensor$'))
      end
      local name = typeNames[tensortype]
      if not name then
         fail(fn, "tensortype must be 'byte', 'float' or 'double', not " .. tostring(tensortype))
      end
      return name
   end

   -- Whether saving computes in single precision (torch/image scales in the default type).
   local function single()
      return torch.getdefaulttensortype() == 'torch.FloatTensor'
   end

   local function todepth(fn, img, depth)
      if depth == nil then return img end
      if depth ~= 1 and depth ~= 3 then
         fail(fn, 'depth must be 1 or 3, not ' .. tostring(depth))
      end
      local channels = img:dim() == 2 and 1 or img:size(1)
      if depth == 1 then
         if img:dim() == 2 or channels == 1 then return img end
         if channels == 3 or channels == 4 then return image.rgb2y(img:narrow(1, 1, 3))[1] end
         if channels == 2 then return img:narrow(1, 1, 1) end
      else
         if channels == 3 then return img end
         if channels == 4 then return img:narrow(1, 1, 3) end
         if channels == 1 then
            local plane = img:dim() == 2 and img or img[1]
            local rgb = img.new(3, plane:size(1), plane:size(2))
            for k = 1, 3 do rgb[k]:copy(plane) end
            return rgb
         end
      end
      fail(fn, 'the image has ' .. channels .. ' channels, which cannot be made depth ' .. depth)
   end

   local function loader(format, fn)
      return function(filename, depth, tensortype)
         if type(filename) ~= 'string' then fail(fn, 'a file name expected') end
         local img = lib.load(format, filename, elementType(fn, tensortype), fn)
         return todepth(fn, img, depth)
      end
   end

   local function decompressor(format, fn)
      return function(tensor, depth, tensortype)
         if torch.typename(tensor) ~= 'torch.ByteTensor' then
            fail(fn, 'the compressed image must be in a torch.ByteTensor, not a ' .. torch.type(tensor))
         end
         local img = lib.decompress(format, tensor, elementType(fn, tensortype), fn)
         return todepth(fn, img, depth)
      end
   end

   local function checkImage(fn, tensor)
      if not torch.isTensor(tensor) then
         fail(fn, 'an image tensor expected, got ' .. torch.type(tensor))
      end
   end

   local function saver(format, fn, check)
      return function(filename, tensor, quality)
         if type(filename) ~= 'string' then fail(fn, 'a file name expected') end
         checkImage(fn, tensor)
         if check then check(fn, tensor) end
         lib.save(format, filename, tensor, quality, single(), fn)
      end
   end

   local function sizer(format, fn)
      return function(filename)
         if type(filename) ~= 'string' then fail(fn, 'a file name expected') end
         return lib.size(format, filename, fn)
      end
   end

   image.loadPNG = loader('png', 'image.loadPNG')
   image.loadJPG = loader('jpg', 'image.loadJPG')
   image.loadPPM = loader('ppm', 'image.loadPPM')
   image.loadPGM = loader('ppm', 'image.loadPGM')
   image.decompressPNG = decompressor('png', 'image.decompressPNG')
   image.decompressJPG = decompressor('jpg', 'image.decompressJPG')

   image.savePNG = saver('png', 'image.savePNG')
   local saveJPG = saver('jpg', 'image.saveJPG')
   -- saveJPG(filename, tensor[, quality = 75])
   image.saveJPG = function(filename, tensor, quality) saveJPG(filename, tensor, quality or 75) end
   image.savePPM = saver('ppm', 'image.savePPM', function(fn, t)
      if t:dim() ~= 3 or t:size(1) ~= 3 then fail(fn, 'can only save 3xHxW images as PPM') end
   end)
   image.savePGM = saver('ppm', 'image.savePGM', function(fn, t)
      if t:dim() == 3 and t:size(1) ~= 1 then fail(fn, 'can only save 1xHxW or HxW images as PGM') end
   end)

   image.getPNGsize = sizer('png', 'image.getPNGsize')
   image.getJPGsize = sizer('jpg', 'image.getJPGsize')
   image.getPPMsize = sizer('ppm', 'image.getPPMsize')
   image.getPNGSize, image.getJPGSize, image.getPPMSize = image.getPNGsize, image.getJPGsize, image.getPPMsize

   function image.compressJPG(tensor, quality)
      checkImage('image.compressJPG', tensor)
      return lib.compress('jpg', tensor, quality or 75, single(), 'image.compressJPG')
   end

   function image.compressPNG(tensor)
      checkImage('image.compressPNG', tensor)
      return lib.compress('png', tensor, nil, single(), 'image.compressPNG')
   end

   function image.decompress(tensor, depth, tensortype)
      local fn = 'image.decompress'
      if torch.typename(tensor) ~= 'torch.ByteTensor' then
         fail(fn, 'the compressed image must be in a torch.ByteTensor, not a ' .. torch.type(tensor))
      end
      if tensor:nElement() >= 3 and tensor[1] == 0xff and tensor[2] == 0xd8 and tensor[3] == 0xff then
         return image.decompressJPG(tensor, depth, tensortype)
      end
      if tensor:nElement() >= 4 and tensor[1] == 0x89 and tensor[2] == 0x50 and tensor[3] == 0x4e
         and tensor[4] == 0x47 then
         return image.decompressPNG(tensor, depth, tensortype)
      end
      fail(fn, 'the buffer holds neither a JPEG nor a PNG image')
   end

   local filetypes = {
      jpg = { loader = image.loadJPG, saver = image.saveJPG, sizer = image.getJPGsize },
      png = { loader = image.loadPNG, saver = image.savePNG, sizer = image.getPNGsize },
      ppm = { loader = image.loadPPM, saver = image.savePPM, sizer = image.getPPMsize },
      -- PGM files load through the PPM reader, which reads both.
      pgm = { loader = image.loadPPM, saver = image.savePGM, sizer = image.getPPMsize },
   }
   filetypes.JPG, filetypes.JPEG, filetypes.jpeg = filetypes.jpg, filetypes.jpg, filetypes.jpg
   filetypes.PNG, filetypes.PPM, filetypes.PGM = filetypes.png, filetypes.ppm, filetypes.pgm
   image.supported_filetypes = filetypes

   function image.is_supported(suffix)
      return filetypes[suffix] ~= nil
   end

   -- The format of a file from its first bytes, else its extension.
   local function typeOf(fn, filename)
      if type(filename) ~= 'string' then fail(fn, 'a file name expected') end
      local f, err = io.open(filename, 'rb')
      if not f then fail(fn, "cannot read '" .. filename .. "': " .. tostring(err)) end
      local head = f:read(4) or ''
      f:close()
      if head:sub(1, 3) == '\255\216\255' then return 'jpg' end
      if head == '\137PNG' then return 'png' end
      if head:match('^P[25]') then return 'pgm' end
      if head:match('^P[36]') then return 'ppm' end
      local ext = filename:match('%.(%a+)$')
      if not ext then fail(fn, 'unable to determine image type for file: ' .. filename) end
      if not filetypes[ext] then fail(fn, 'unknown image type: ' .. ext) end
      return ext
   end

   -- load(filename[, depth][, tensortype])
   function image.load(filename, depth, tensortype)
      if filename == nil then
         util.usage('image.load', "image.load(filename[, depth 1|3][, tensortype 'byte'|'float'|'double'])")
      end
      local ext = typeOf('image.load', filename)
      local format = (ext == 'pgm' or ext == 'PGM' or ext == 'ppm' or ext == 'PPM') and 'ppm'
         or ((ext == 'png' or ext == 'PNG') and 'png' or 'jpg')
      local img = lib.load(format, filename, elementType('image.load', tensortype), 'image.load')
      return todepth('image.load', img, depth)
   end

   -- getSize(filename): a LongTensor {channels, height, width}.
   function image.getSize(filename)
      local ext = typeOf('image.getSize', filename)
      return torch.LongTensor({ filetypes[ext].sizer(filename) })
   end

   -- save(filename, tensor): the format from the file's extension.
   function image.save(filename, tensor)
      if type(filename) ~= 'string' or tensor == nil then
         util.usage('image.save', 'image.save(filename, tensor)')
      end
      local ext = filename:match('%.(%a+)$')
      if not ext then fail('image.save', "cannot tell the image type of '" .. filename .. "' (no extension)") end
      local t = filetypes[ext]
      if not t then fail('image.save', 'unknown image type: ' .. ext) end
      t.saver(filename, tensor)
   end
end
