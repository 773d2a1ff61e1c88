-- nn.VolumetricReplicationPadding(pleft[, pright, ptop, pbottom, pfront, pback]): pads each
-- plane of C x T x H x W volumes (or a batch) by repeating its edge elements: pleft and pright
-- columns, ptop and pbottom rows, pfront and pback frames (pleft on every side not given). A
-- negative padding crops.

local resampling = require 'nn.engine.resampling'

local VolumetricReplicationPadding, parent = torch.class('nn.VolumetricReplicationPadding', 'nn.Module')

function VolumetricReplicationPadding:__init(pleft, pright, ptop, pbottom, pfront, pback)
   parent.__init(self)
   self.pleft = pleft
   self.pright = pright or self.pleft
   self.ptop = ptop or self.pleft
   self.pbottom = pbottom or self.pleft
   self.pfront = pfront or self.pleft
   self.pback = pback or self.pleft
end

local function rules(self, input)
   local d = input:dim()
   if d ~= 4 and d ~= 5 then error('nn.VolumetricReplicationPadding: input must be 4 or 5-dimensional', 3) end
   local T, H, W = input:size(d - 2), input:size(d - 1), input:size(d)
   if T + self.pfront + self.pback < 1 or H + self.ptop + self.pbottom < 1 or W + self.pleft + self.pright < 1 then
      error('nn.VolumetricReplicationPadding: the output would be empty', 3)
   end
   return { d - 2, d - 1, d }, {
      resampling.pad(T, self.pfront, self.pback, 'replicate'),
      resampling.pad(H, self.ptop, self.pbottom, 'replicate'),
      resampling.pad(W, self.pleft, self.pright, 'replicate'),
   }
end

function VolumetricReplicationPadding:updateOutput(input)
   local dims, r = rules(self, input)
   local y = resampling.forward(input, dims, r)
   self.output:resizeAs(y):copy(y)
   return self.output
end

function VolumetricReplicationPadding:updateGradInput(input, gradOutput)
   local dims, r = rules(self, input)
   for j, dim in ipairs(dims) do
      if gradOutput:dim() ~= input:dim() or gradOutput:size(dim) ~= r[j].a:size(1) then
         error('nn.VolumetricReplicationPadding: input and gradOutput must be compatible in size')
      end
   end
   self.gradInput:resizeAs(input):copy(resampling.backward(gradOutput, input:size(), dims, r))
   return self.gradInput
end

function VolumetricReplicationPadding:__tostring__()
   return torch.type(self) .. string.format('(left=%d, right=%d, top=%d, bottom=%d, front=%d, back=%d)', self.pleft,
      self.pright, self.ptop, self.pbottom, self.pfront, self.pback)
end

return VolumetricReplicationPadding
