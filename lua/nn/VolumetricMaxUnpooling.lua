-- nn.VolumetricMaxUnpooling(poolingModule): the partial inverse of an nn.VolumetricMaxPooling
-- whose windows do not overlap (kernel = stride): each value goes back to where the pooling
-- module's last forward found its maximum, everything else is zero.

local pooling = require 'nn.engine.pooling'

local VolumetricMaxUnpooling, parent = torch.class('nn.VolumetricMaxUnpooling', 'nn.Module')

function VolumetricMaxUnpooling:__init(poolingModule)
   parent.__init(self)
   assert(torch.isTypeOf(poolingModule, 'nn.VolumetricMaxPooling'),
      'nn.VolumetricMaxUnpooling: the argument must be a nn.VolumetricMaxPooling module')
   assert(poolingModule.kT == poolingModule.dT and poolingModule.kH == poolingModule.dH
      and poolingModule.kW == poolingModule.dW,
      "nn.VolumetricMaxUnpooling: the pooling module's kernel size must equal its stride")
   self.pooling = poolingModule
end

function VolumetricMaxUnpooling:setParams()
   self.indices = self.pooling.indices
   self.otime = self.pooling.itime
   self.oheight = self.pooling.iheight
   self.owidth = self.pooling.iwidth
   self.dT, self.dH, self.dW = self.pooling.dT, self.pooling.dH, self.pooling.dW
   self.padT, self.padH, self.padW = self.pooling.padT, self.pooling.padH, self.pooling.padW
end

function VolumetricMaxUnpooling:updateOutput(input)
   self:setParams()
   return pooling.unpoolForward(self, input, { self.otime, self.oheight, self.owidth })
end

function VolumetricMaxUnpooling:updateGradInput(input, gradOutput)
   self:setParams()
   return pooling.unpoolGradInput(self, input, gradOutput, { self.otime, self.oheight, self.owidth })
end

function VolumetricMaxUnpooling:empty()
   self:clearState()
end

function VolumetricMaxUnpooling:__tostring__()
   return 'nn.VolumetricMaxUnpooling associated to ' .. tostring(self.pooling)
end

return VolumetricMaxUnpooling
