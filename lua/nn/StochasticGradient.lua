-- nn.StochasticGradient(module, criterion): a plain SGD trainer. train(dataset) passes over the
-- examples (dataset[i] = {input, target}, dataset:size() of them), in a random order unless
-- shuffleIndices is false, updating the module's parameters after each example straight from its
-- gradient (accUpdateGradParameters). It stops after maxIteration passes (never when 0 or less).
-- Fields: learningRate (0.01), learningRateDecay (0: the rate of pass i is
-- learningRate / (1 + i * learningRateDecay)), maxIteration (25), shuffleIndices (true), verbose
-- (true: prints the mean error of each pass), and the optional callbacks
-- hookExample(trainer, example) after each example and hookIteration(trainer, iteration, error)
-- after each pass.

local StochasticGradient = torch.class('nn.StochasticGradient')

function StochasticGradient:__init(module, criterion)
   self.learningRate = 0.01
   self.learningRateDecay = 0
   self.maxIteration = 25
   self.shuffleIndices = true
   self.module = module
   self.criterion = criterion
   self.verbose = true
end

-- One SGD step on one example; returns its error.
local function step(module, criterion, input, target, learningRate)
   local err = criterion:forward(module:forward(input), target)
   local gradOutput = criterion:updateGradInput(module.output, target)
   module:updateGradInput(input, gradOutput)
   module:accUpdateGradParameters(input, gradOutput, learningRate)
   return err
end

function StochasticGradient:train(dataset)
   assert(dataset and dataset.size, 'nn.StochasticGradient.train: the dataset must have a size() method')
   local module, criterion = self.module, self.criterion
   local n = dataset:size()
   assert(n > 0, 'nn.StochasticGradient.train: the dataset is empty')
   local order
   if self.shuffleIndices then
      order = torch.randperm(n, 'torch.LongTensor')
   else
      order = torch.range(1, n):long()
   end
   local iteration = 1
   local learningRate = self.learningRate

   print('# StochasticGradient: training')
   while true do
      local total = 0
      for t = 1, n do
         local example = dataset[order[t]]
         total = total + step(module, criterion, example[1], example[2], learningRate)
         if self.hookExample then
            self.hookExample(self, example)
         end
      end
      local meanError = total / n

      if self.hookIteration then
         self.hookIteration(self, iteration, meanError)
      end
      if self.verbose then
         print('# current error = ' .. meanError)
      end

      iteration = iteration + 1
      learningRate = self.learningRate / (1 + iteration * self.learningRateDecay)
      if self.maxIteration > 0 and iteration > self.maxIteration then
         print('# StochasticGradient: you have reached the maximum number of iterations')
         print('# training error = ' .. meanError)
         break
      end
   end
end

return StochasticGradient
