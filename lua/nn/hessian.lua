-- nn.hessian: estimates of the diagonal of the Hessian (for per-parameter learning rates, as in
-- LeCun et al., "Efficient BackProp"), off until nn.hessian.enable() adds the methods:
--   module:updateDiagHessianInput(input, diagHessianOutput) -> module.diagHessianInput
--   module:accDiagHessianParameters(input, diagHessianOutput) -> diagHessianWeight/diagHessianBias
--   module:initDiagHessianParameters()
-- and makes parameters() and getParameters() also return the Hessian tensors (a third value).
--
-- The diagonal is propagated in the Gauss-Newton way: through a module linear in its input with
-- weights w, d2/dx_i^2 = sum_k w_ki^2 d2/dy_k^2, i.e. the backward pass run with w squared; for the
-- weights, d2/dw_ki^2 = x_i^2 d2/dy_k^2, the gradient pass run with the input squared; through a
-- pointwise function f, d2/dx^2 = f'(x)^2 d2/dy^2.

local hessian = {}
nn.hessian = hessian

-- Runs module's updateGradInput on diagHessianOutput with each weight named in `w` replaced by its
-- square (kept in the field named in `wsq`); the result lands in module.diagHessianInput.
function hessian.updateDiagHessianInput(module, input, diagHessianOutput, w, wsq)
   assert(#w == #wsq, 'nn.hessian: as many squared-weight fields as weights are expected')
   module.diagHessianInput = module.diagHessianInput or input.new()
   module.diagHessianInput:resizeAs(input):zero()
   local gradInput = module.gradInput
   module.gradInput = module.diagHessianInput
   local weights = {}
   for i, name in ipairs(w) do
      weights[i] = module[name]
      local sq = module[wsq[i]] or weights[i].new()
      sq:resizeAs(weights[i]):cmul(weights[i], weights[i])
      module[wsq[i]] = sq
      module[name] = sq
   end
   local ok, result = pcall(module.updateGradInput, module, input, diagHessianOutput)
   for i, name in ipairs(w) do module[name] = weights[i] end
   module.gradInput = gradInput
   if not ok then error(result, 0) end
   -- a module may have replaced its gradInput tensor instead of filling it
   if result ~= module.diagHessianInput then
      module.diagHessianInput:resizeAs(result):copy(result)
   end
   return module.diagHessianInput
end

-- Runs module's accGradParameters on the squared input with each gradient field named in `gw`
-- pointed at the Hessian field named in `hw` (made when missing). The forward pass on the squared
-- input refreshes whatever the module keeps from it for accGradParameters (an unfolded input);
-- the module's output is kept.
function hessian.accDiagHessianParameters(module, input, diagHessianOutput, gw, hw)
   assert(#gw == #hw, 'nn.hessian: as many Hessian fields as gradient fields are expected')
   module.inputSq = module.inputSq or input.new()
   module.inputSq:resizeAs(input):cmul(input, input)
   local grads = {}
   for i, name in ipairs(gw) do
      grads[i] = module[name]
      if grads[i] then
         module[hw[i]] = module[hw[i]] or grads[i].new():resizeAs(grads[i]):zero()
         module[name] = module[hw[i]]
      end
   end
   local output = module.output
   module.output = output.new():resizeAs(output)
   local ok, err = pcall(function()
      module:forward(module.inputSq)
      module:accGradParameters(module.inputSq, diagHessianOutput, 1)
   end)
   module.output = output
   for i, name in ipairs(gw) do module[name] = grads[i] end
   if not ok then error(err, 0) end
end

-- For a pointwise module: f'(x) from a backward pass of ones, then f'(x)^2 * diagHessianOutput.
function hessian.updateDiagHessianInputPointWise(module, input, diagHessianOutput)
   local ones = diagHessianOutput.new():resizeAs(diagHessianOutput):fill(1)
   hessian.updateDiagHessianInput(module, input, ones, {}, {})
   module.diagHessianInput:cmul(module.diagHessianInput):cmul(diagHessianOutput)
   return module.diagHessianInput
end

-- Makes module.diagHessianInput and the Hessian fields `hw` of the gradients `gw`.
function hessian.initDiagHessianParameters(module, gw, hw)
   module.diagHessianInput = module.diagHessianInput or module.gradInput.new()
   for i = 1, #gw do
      if module[gw[i]] then
         module[hw[i]] = module[hw[i]] or module[gw[i]].new():resizeAs(module[gw[i]]):zero()
      end
   end
end

-- Gives `class` (when it exists) the methods of a module linear in its input whose weight
-- fields `w` act on it.
local function linearModule(class, w)
   if not class then return end
   local wsq = {}
   for i, name in ipairs(w) do wsq[i] = name .. 'Sq' end
   local gw, hw = { 'gradWeight', 'gradBias' }, { 'diagHessianWeight', 'diagHessianBias' }
   function class:updateDiagHessianInput(input, diagHessianOutput)
      return hessian.updateDiagHessianInput(self, input, diagHessianOutput, w, wsq)
   end
   function class:accDiagHessianParameters(input, diagHessianOutput)
      hessian.accDiagHessianParameters(self, input, diagHessianOutput, gw, hw)
   end
   function class:initDiagHessianParameters()
      hessian.initDiagHessianParameters(self, gw, hw)
   end
end

local function pointwiseModule(class)
   if not class then return end
   function class:updateDiagHessianInput(input, diagHessianOutput)
      return hessian.updateDiagHessianInputPointWise(self, input, diagHessianOutput)
   end
end

local enabled = false

function hessian.enable()
   if enabled then return end
   enabled = true

   function nn.Module:updateDiagHessianInput(input, diagHessianOutput)
      error(torch.typename(self) .. ':updateDiagHessianInput() is undefined')
   end
   function nn.Module:accDiagHessianParameters(input, diagHessianOutput) end
   function nn.Module:initDiagHessianParameters() end

   -- Sequential: through the modules backwards, as backward does.
   function nn.Sequential:initDiagHessianParameters()
      for _, m in ipairs(self.modules) do m:initDiagHessianParameters() end
   end
   function nn.Sequential:updateDiagHessianInput(input, diagHessianOutput)
      local current = diagHessianOutput
      for i = #self.modules, 2, -1 do
         current = self.modules[i]:updateDiagHessianInput(self.modules[i - 1].output, current)
      end
      current = self.modules[1]:updateDiagHessianInput(input, current)
      self.diagHessianInput = current
      return current
   end
   function nn.Sequential:accDiagHessianParameters(input, diagHessianOutput)
      local current = diagHessianOutput
      for i = #self.modules, 2, -1 do
         local m = self.modules[i]
         m:accDiagHessianParameters(self.modules[i - 1].output, current)
         current = m.diagHessianInput
      end
      self.modules[1]:accDiagHessianParameters(input, current)
   end

   function nn.Criterion:updateDiagHessianInput(input, diagHessianOutput)
      error(torch.typename(self) .. ':updateDiagHessianInput() is undefined')
   end

   -- MSE: d2/dx^2 of sum (x - t)^2 is 2 (over the number of elements with sizeAverage).
   local function mseDiagHessian(self, input, target)
      self.diagHessianInput = self.diagHessianInput or input.new()
      local val = 2
      if self.sizeAverage then val = val / input:nElement() end
      self.diagHessianInput:resizeAs(input):fill(val)
      return self.diagHessianInput
   end
   if nn.MSECriterion then nn.MSECriterion.updateDiagHessianInput = mseDiagHessian end
   if nn.WeightedMSECriterion then nn.WeightedMSECriterion.updateDiagHessianInput = mseDiagHessian end

   if nn.L1Cost then
      function nn.L1Cost:updateDiagHessianInput(input)
         self.diagHessianInput = self.diagHessianInput or input.new()
         self.diagHessianInput:resizeAs(input):fill(1)
         self.diagHessianInput:maskedFill(input:eq(0), 0)
         return self.diagHessianInput
      end
   end

   linearModule(nn.Linear, { 'weight' })
   linearModule(nn.SpatialConvolution, { 'weight' })
   linearModule(nn.SpatialConvolutionLocal, { 'weight' })
   linearModule(nn.SpatialFullConvolution, { 'weight' })
   linearModule(nn.SpatialConvolutionMap, { 'weight', 'bias' })
   linearModule(nn.SpatialFullConvolutionMap, { 'weight' })

   pointwiseModule(nn.Tanh)
   pointwiseModule(nn.Sigmoid)
   pointwiseModule(nn.Square)
   pointwiseModule(nn.Sqrt)

   -- TanhShrink: x - tanh(x); its inner Tanh gives the tanh part.
   if nn.TanhShrink then
      function nn.TanhShrink:updateDiagHessianInput(input, diagHessianOutput)
         hessian.updateDiagHessianInputPointWise(self.tanh, input, diagHessianOutput)
         self.diagHessianInput = self.diagHessianInput or input.new()
         self.diagHessianInput:resizeAs(input):add(self.tanh.diagHessianInput, diagHessianOutput)
         return self.diagHessianInput
      end
   end

   -- Reshape: the diagonal reshaped back.
   function nn.Reshape:updateDiagHessianInput(input, diagHessianOutput)
      self.diagHessianInput = self.diagHessianInput or input.new()
      self.diagHessianInput:resizeAs(input):copy(diagHessianOutput:contiguous():viewAs(input))
      return self.diagHessianInput
   end

   -- parameters() and getParameters() give the Hessian tensors too.
   local moduleParameters = nn.Module.parameters
   function nn.Module:parameters()
      local w, gw = moduleParameters(self)
      if not w then return end
      local h = {}
      if self.weight then h[#h + 1] = self.diagHessianWeight end
      if self.bias then h[#h + 1] = self.diagHessianBias end
      return w, gw, h
   end

   local containerParameters = nn.Container.parameters
   function nn.Container:parameters()
      local w, gw = containerParameters(self)
      local h = {}
      for _, m in ipairs(self.modules) do
         local _, _, mh = m:parameters()
         for _, t in ipairs(mh or {}) do h[#h + 1] = t end
      end
      return w, gw, h
   end

   function nn.Module:getParameters()
      local parameters, gradParameters, hessianParameters = self:parameters()
      local flatParameters = nn.Module.flatten(parameters)
      local flatGradParameters = nn.Module.flatten(gradParameters)
      assert(flatParameters:nElement() == flatGradParameters:nElement(),
         'nn.Module.getParameters: the parameters and their gradients are not laid out alike')
      local flatHessianParameters
      if hessianParameters and hessianParameters[1] then
         flatHessianParameters = nn.Module.flatten(hessianParameters)
      end
      return flatParameters, flatGradParameters, flatHessianParameters
   end
end

return hessian
