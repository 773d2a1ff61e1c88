-- nn.SpatialMaxUnpooling(poolingModule): the partial inverse of an nn.SpatialMaxPooling whose
-- windows do not overlap (kernel = stride): each value goes back to where the pooling module's
-- last forward found its maximum, everything else is zero; the output has the pooled input's
-- size.

local pooling = require 'nn.engine.pooling'

local SpatialMaxUnpooling, parent = torch.class('nn.SpatialMaxUnpooling', 'nn.Module')

function SpatialMaxUnpooling:__init(poolingModule)
   parent.__init(self)
   assert(torch.isTypeOf(poolingModule, 'nn.SpatialMaxPooling'),
      'nn.SpatialMaxUnpooling: the argument must be a nn.SpatialMaxPooling module')
   assert(poolingModule.kH == poolingModule.dH and poolingModule.kW == poolingModule.dW,
      "nn.SpatialMaxUnpooling: the pooling module's kernel size must equal its stride")
   self.pooling = poolingModule
end

function SpatialMaxUnpooling:setParams()
   self.indices = self.pooling.indices
   self.oheight = self.pooling.iheight
   self.owidth = self.pooling.iwidth
end

function SpatialMaxUnpooling:updateOutput(input)
   self:setParams()
   return pooling.unpoolForward(self, input, { self.oheight, self.owidth })
end

function SpatialMaxUnpooling:updateGradInput(input, gradOutput)
   self:setParams()
   return pooling.unpoolGradInput(self, input, gradOutput, { self.oheight, self.owidth })
end

function SpatialMaxUnpooling:empty()
   self:clearState()
end

function SpatialMaxUnpooling:__tostring__()
   return 'nn.SpatialMaxUnpooling associated to ' .. tostring(self.pooling)
end

return SpatialMaxUnpooling
