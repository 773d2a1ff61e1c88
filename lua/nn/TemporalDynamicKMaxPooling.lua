-- nn.TemporalDynamicKMaxPooling(minK[, factor]): the k largest values of each feature over a
-- sequence (nInputFrame x frameSize, or a batch), kept in their order in the sequence, with
-- k = max(minK, ceil(factor * nInputFrame)) (Kalchbrenner et al., "A Convolutional Neural
-- Network for Modelling Sentences").

local TemporalDynamicKMaxPooling, parent = torch.class('nn.TemporalDynamicKMaxPooling', 'nn.Module')

function TemporalDynamicKMaxPooling:__init(minK, factor)
   parent.__init(self)
   self.minK = minK
   self.factor = factor or 0
end

function TemporalDynamicKMaxPooling:updateOutput(input)
   local d = input:dim()
   if d ~= 2 and d ~= 3 then
      error('nn.TemporalDynamicKMaxPooling: input must be 2D (frames x features) or 3D (batch x frames x features)')
   end
   local seqDim = d - 1
   local n = input:size(seqDim)
   local k = math.max(self.minK, math.ceil(self.factor * n))
   if n < k then
      error(string.format('nn.TemporalDynamicKMaxPooling: input sequence (%d frames) too short for k = %d', n, k))
   end
   -- The frames of the k largest values, then back in sequence order.
   local _, order = input:sort(seqDim, true)
   self.indices = order:narrow(seqDim, 1, k):sort(seqDim)
   self.output = input:gather(seqDim, self.indices)
   return self.output
end

function TemporalDynamicKMaxPooling:updateGradInput(input, gradOutput)
   if not self.gradInput then return end
   local seqDim = input:dim() - 1
   self.gradInput:resizeAs(input):zero():scatterAdd(seqDim, self.indices, gradOutput)
   return self.gradInput
end

function TemporalDynamicKMaxPooling:clearState()
   nn.utils.clear(self, 'indices')
   return parent.clearState(self)
end

return TemporalDynamicKMaxPooling
