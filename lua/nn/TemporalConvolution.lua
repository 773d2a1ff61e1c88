-- nn.TemporalConvolution(inputFrameSize, outputFrameSize, kW[, dW]): a 1-D convolution over a
-- sequence of frames (nInputFrame x inputFrameSize, or a batch of such). The weight is
-- outputFrameSize x (kW * inputFrameSize): each row holds its kernel's kW frames one after the
-- other, as the original lays it out (saved models depend on it).

local TemporalConvolution, parent = torch.class('nn.TemporalConvolution', 'nn.Module')

function TemporalConvolution:__init(inputFrameSize, outputFrameSize, kW, dW)
   parent.__init(self)
   dW = dW or 1
   self.inputFrameSize = inputFrameSize
   self.outputFrameSize = outputFrameSize
   self.kW = kW
   self.dW = dW
   self.weight = torch.Tensor(outputFrameSize, inputFrameSize * kW)
   self.bias = torch.Tensor(outputFrameSize)
   self.gradWeight = torch.Tensor(outputFrameSize, inputFrameSize * kW)
   self.gradBias = torch.Tensor(outputFrameSize)
   self:reset()
end

function TemporalConvolution:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.kW * self.inputFrameSize)
   end
   self.weight:uniform(-stdv, stdv)
   self.bias:uniform(-stdv, stdv)
end

-- The frames each output frame sees, one row per output frame (nOutputFrame x kW*inputFrameSize).
local function windows(self, frames)
   local nInputFrame = frames:size(1)
   if nInputFrame < self.kW then
      error(string.format('nn.TemporalConvolution: input sequence of %d frames is shorter than the kernel (%d)',
         nInputFrame, self.kW))
   end
   local nOutputFrame = math.floor((nInputFrame - self.kW) / self.dW) + 1
   -- unfold gives nOutputFrame x inputFrameSize x kW; the weight wants the kW frames in order.
   local w = frames:unfold(1, self.kW, self.dW):transpose(2, 3)
   return w:contiguous():view(nOutputFrame, self.kW * self.inputFrameSize), nOutputFrame
end

local function check(self, input)
   local d = input:dim()
   if d ~= 2 and d ~= 3 then
      error('nn.TemporalConvolution: input must be 2D (frames x features) or 3D (batch x frames x features)')
   end
   if input:size(d) ~= self.inputFrameSize then
      error(string.format('nn.TemporalConvolution: input frames have %d features, expected %d', input:size(d),
         self.inputFrameSize))
   end
end

function TemporalConvolution:updateOutput(input)
   check(self, input)
   local function one(frames, out)
      local cols, n = windows(self, frames)
      out:resize(n, self.outputFrameSize)
      out:addmm(0, out, 1, cols, self.weight:t())
      out:add(self.bias:view(1, -1):expandAs(out))
   end
   if input:dim() == 2 then
      one(input, self.output)
   else
      local nOutputFrame = math.floor((input:size(2) - self.kW) / self.dW) + 1
      self.output:resize(input:size(1), nOutputFrame, self.outputFrameSize)
      for b = 1, input:size(1) do
         local out = self.output[b].new()
         one(input[b], out)
         self.output[b]:copy(out)
      end
   end
   return self.output
end

-- Adds the per-window gradients (nOutputFrame x kW*inputFrameSize) back onto the frames they came
-- from (windows overlap when dW < kW).
local function addWindows(self, gradFrames, gradCols, nOutputFrame)
   local g = gradCols:view(nOutputFrame, self.kW, self.inputFrameSize)
   for k = 1, self.kW do
      local span = (nOutputFrame - 1) * self.dW + 1
      local target = gradFrames:narrow(1, k, span):unfold(1, 1, self.dW):select(3, 1)
      target:add(g:select(2, k))
   end
end

function TemporalConvolution:updateGradInput(input, gradOutput)
   if not self.gradInput then return end
   self.gradInput:resizeAs(input):zero()
   local function one(frames, gradOut, gradFrames)
      local n = gradOut:size(1)
      local gradCols = torch.mm(gradOut, self.weight)
      addWindows(self, gradFrames, gradCols, n)
   end
   if input:dim() == 2 then
      one(input, gradOutput, self.gradInput)
   else
      for b = 1, input:size(1) do one(input[b], gradOutput[b], self.gradInput[b]) end
   end
   return self.gradInput
end

function TemporalConvolution:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local function one(frames, gradOut)
      local cols = windows(self, frames)
      self.gradWeight:addmm(scale, gradOut:t(), cols)
      self.gradBias:add(scale, gradOut:sum(1):view(-1))
   end
   if input:dim() == 2 then
      one(input, gradOutput)
   else
      for b = 1, input:size(1) do one(input[b], gradOutput[b]) end
   end
end

function TemporalConvolution:sharedAccUpdateGradParameters(input, gradOutput, lr)
   local gradWeight, gradBias = self.gradWeight, self.gradBias
   self.gradWeight, self.gradBias = self.weight, self.bias
   self:accGradParameters(input, gradOutput, -lr)
   self.gradWeight, self.gradBias = gradWeight, gradBias
end

return TemporalConvolution
