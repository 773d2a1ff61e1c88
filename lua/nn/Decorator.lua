-- nn.Decorator(module): a container of one module that passes every call to it; subclasses
-- (Bottle, WeightNorm, Profile, NaN, DontCast...) change some of the calls.

local Decorator, parent = torch.class('nn.Decorator', 'nn.Container')

function Decorator:__init(module)
   parent.__init(self)
   -- held in modules[1] so that the container methods (parameters, type, apply...) reach it
   self.modules[1] = module
end

function Decorator:updateOutput(input)
   self.output = self.modules[1]:updateOutput(input)
   return self.output
end

function Decorator:updateGradInput(input, gradOutput)
   self.gradInput = self.modules[1]:updateGradInput(input, gradOutput)
   return self.gradInput
end

function Decorator:accGradParameters(input, gradOutput, scale)
   self.modules[1]:accGradParameters(input, gradOutput, scale)
end

function Decorator:accUpdateGradParameters(input, gradOutput, lr)
   self.modules[1]:accUpdateGradParameters(input, gradOutput, lr)
end

function Decorator:sharedAccUpdateGradParameters(input, gradOutput, lr)
   self.modules[1]:sharedAccUpdateGradParameters(input, gradOutput, lr)
end

function Decorator:__tostring__()
   local inner = self.modules[1].__tostring__ and self.modules[1]:__tostring__() or torch.type(self.modules[1])
   return torch.type(self) .. ' @ ' .. inner
end

-- Gives `class` the decorator's pass-through methods (for a class that cannot inherit them).
function Decorator.decorate(class)
   for _, name in ipairs { 'updateOutput', 'updateGradInput', 'accGradParameters', 'accUpdateGradParameters',
      'sharedAccUpdateGradParameters', '__tostring__' } do
      class[name] = Decorator[name]
   end
end

return Decorator
