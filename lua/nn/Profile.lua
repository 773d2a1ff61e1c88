-- nn.Profile(module[, print_interval, name]): runs the module and prints, every print_interval
-- (default 100) forward and backward passes, the time they took.

require 'nn.Decorator'
local Profile, parent = torch.class('nn.Profile', 'nn.Decorator')

function Profile:__init(module, print_interval, name)
   parent.__init(self, module)
   self.print_interval = print_interval or 100
   self.name = name or torch.type(module)
   self.module = module
   self.numFwds = 0
   self.numBwds = 0
   self.summedFwdTime = 0
   self.summedBwdTime = 0
   self.timer = torch.Timer()
end

-- Runs f(), adds its time to the `kind` counters and prints them every print_interval calls.
local function timed(self, kind, f)
   self.timer = self.timer or torch.Timer()
   self.timer:reset()
   local result = f()
   local sumField, numField = 'summed' .. kind .. 'Time', 'num' .. kind .. 's'
   self[sumField] = self[sumField] + self.timer:time().real
   self[numField] = self[numField] + 1
   if self[numField] % self.print_interval == 0 then
      print(string.format('%s took %.3f seconds for %d %s passes', self.name, self[sumField], self.print_interval,
         kind == 'Fwd' and 'forward' or 'backward'))
      self[numField] = 0
      self[sumField] = 0
   end
   return result
end

function Profile:updateOutput(input)
   self.output = timed(self, 'Fwd', function() return self.modules[1]:updateOutput(input) end)
   return self.output
end

function Profile:updateGradInput(input, gradOutput)
   self.gradInput = timed(self, 'Bwd', function() return self.modules[1]:updateGradInput(input, gradOutput) end)
   return self.gradInput
end

-- The timer is not saved (a fresh one is made when needed).
function Profile:write(file)
   local object = {}
   for k, v in pairs(self) do
      if k ~= 'timer' then object[k] = v end
   end
   file:writeObject(object)
end

return Profile
