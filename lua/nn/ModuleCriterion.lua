-- nn.ModuleCriterion(criterion[, inputModule, targetModule, castTarget]): `criterion` applied to
-- inputModule(input) and targetModule(target) (either module optional). The gradient flows back
-- through inputModule; neither module's parameters are trained. castTarget (default true) says
-- whether type conversion converts targetModule too.

local ModuleCriterion, parent = torch.class('nn.ModuleCriterion', 'nn.Criterion')

function ModuleCriterion:__init(criterion, inputModule, targetModule, castTarget)
   parent.__init(self)
   assert(criterion, 'nn.ModuleCriterion: a criterion is expected')
   self.criterion = criterion
   self.inputModule = inputModule
   self.targetModule = targetModule
   self.castTarget = (castTarget == nil) and true or castTarget
   if inputModule then
      local params = inputModule:parameters()
      if params and #params > 0 then
         print "Warning: nn.ModuleCriterion doesn't support parameter updates"
      end
   end
end

function ModuleCriterion:updateOutput(input, target)
   if self.inputModule then
      self.input = self.inputModule:forward(input)
   end
   if self.targetModule then
      self.target = self.targetModule:forward(target)
   end
   self.output = self.criterion:forward(self.input or input, self.target or target)
   return self.output
end

function ModuleCriterion:updateGradInput(input, target)
   self.gradInput = self.criterion:backward(self.input or input, self.target or target)
   if self.inputModule then
      self.gradInput = self.inputModule:backward(input, self.gradInput)
   end
   return self.gradInput
end

function ModuleCriterion:type(type, tensorCache)
   if self.inputModule then
      self.inputModule:type(type, tensorCache)
   end
   if self.castTarget and self.targetModule then
      self.targetModule:type(type, tensorCache)
   end
   self.criterion:type(type, tensorCache)
   -- The modules are converted: leave them out of the generic pass over the fields.
   local inputModule, targetModule, criterion = self.inputModule, self.targetModule, self.criterion
   self.inputModule, self.targetModule, self.criterion = nil, nil, nil
   parent.type(self, type, tensorCache)
   self.inputModule, self.targetModule, self.criterion = inputModule, targetModule, criterion
   return self
end

return ModuleCriterion
