-- cudnn.convert(net, cudnn | nn[, exclude]): swaps every module of `net` that has a counterpart
-- in the other package for it, in place (as cudnn.torch did, by class: the fields, weights
-- included, stay the same tensors). `exclude(module)` returning true leaves a module as it is.
-- Returns the network (a converted root module is a new object: use the result).

local cudnn = require 'cudnn'

-- The classes with a counterpart in both packages.
local layers = {
   'SpatialConvolution', 'SpatialDilatedConvolution', 'SpatialFullConvolution', 'VolumetricConvolution',
   'VolumetricDilatedConvolution', 'VolumetricFullConvolution', 'SpatialMaxPooling', 'SpatialAveragePooling',
   'VolumetricMaxPooling', 'VolumetricAveragePooling', 'ReLU', 'Tanh', 'Sigmoid', 'SoftMax', 'LogSoftMax',
   'SpatialSoftMax', 'SpatialLogSoftMax', 'BatchNormalization', 'SpatialBatchNormalization',
   'VolumetricBatchNormalization',
}
local isLayer = {}
for _, name in ipairs(layers) do isLayer[name] = true end

-- Why module `m` of class `name` cannot become the nn one (nil when it can).
local function blocksNn(m, name)
   if (m.groups or 1) > 1 then return 'groups' end
   if name == 'VolumetricAveragePooling' and ((m.padT or 0) ~= 0 or (m.padW or 0) ~= 0 or (m.padH or 0) ~= 0) then
      return 'padding'
   end
   if (name == 'Tanh' or name == 'Sigmoid') and m.inplace then return 'in place' end
end

function cudnn.convert(net, dst, exclude)
   local who = 'cudnn.convert'
   if not (type(net) == 'table' and torch.isTypeOf(net, 'nn.Module')) then
      error(who .. ': bad argument #1 (an nn module expected, got ' .. torch.type(net) .. ')', 2)
   end
   if dst ~= cudnn and dst ~= nn then
      error(who .. ': bad argument #2 (cudnn or nn expected, got ' .. torch.type(dst) .. ')', 2)
   end
   if exclude ~= nil and type(exclude) ~= 'function' then
      error(who .. ': bad argument #3 (a function expected, got ' .. type(exclude) .. ')', 2)
   end
   local toCudnn = dst == cudnn
   local srcPrefix, dstPrefix = toCudnn and 'nn.' or 'cudnn.', toCudnn and 'cudnn.' or 'nn.'
   return net:replace(function(m)
      if exclude and exclude(m) then return m end
      local t = torch.type(m)
      local name
      if toCudnn and t == 'nn.SpatialConvolutionMM' then
         name = 'SpatialConvolution'
      elseif t:sub(1, #srcPrefix) == srcPrefix and isLayer[t:sub(#srcPrefix + 1)] then
         name = t:sub(#srcPrefix + 1)
      end
      if not name or (not toCudnn and blocksNn(m, name)) then return m end
      local y = {}
      for k, v in pairs(m) do y[k] = v end
      torch.setmetatable(y, dstPrefix .. name)
      if name == 'SpatialConvolution' and y.weight and y.weight:dim() == 2 then
         -- nn.SpatialConvolutionMM keeps its weight as nOutputPlane x (nInputPlane*kH*kW).
         y.weight = y.weight:view(y.nOutputPlane, y.nInputPlane, y.kH, y.kW)
         if y.gradWeight then y.gradWeight = y.gradWeight:view(y.nOutputPlane, y.nInputPlane, y.kH, y.kW) end
      end
      if not toCudnn then y.groups = nil end
      return y
   end)
end

return cudnn
