-- nn.Jacobian: checks a module's derivatives against finite differences, as nn's own tests do.
-- A Jacobian here is a matrix with one row per element of the input (or of a parameter) and one
-- column per element of the output.

local Jacobian = {}
nn.Jacobian = Jacobian

-- A 1-D view of the elements of `param` (contiguous), wherever it starts in its storage (a
-- parameter that getParameters moved into a flat storage starts inside it).
local function flatView(param)
   assert(param:isContiguous(), 'nn.Jacobian: the perturbed tensor must be contiguous')
   return param.new():set(param:storage(), param:storageOffset(), torch.LongStorage { param:nElement() })
end

-- The Jacobian computed by the module's backward pass: with `param` nil, of the output with
-- respect to the input; else with respect to `param`, whose gradient is `dparam`.
function Jacobian.backward(module, input, param, dparam)
   local doparam = param ~= nil
   param = param or input
   module:forward(input)
   local dout = module.output.new():resizeAs(module.output)
   local sdout = module.output.new():set(dout:storage(), 1, dout:nElement())
   local jacobian = torch.Tensor(param:nElement(), dout:nElement()):zero()
   for i = 1, sdout:nElement() do
      dout:zero()
      sdout[i] = 1
      module:zeroGradParameters()
      local din = module:updateGradInput(input, dout)
      module:accGradParameters(input, dout)
      if doparam then
         jacobian:select(2, i):copy(dparam)
      else
         jacobian:select(2, i):copy(din)
      end
   end
   return jacobian
end

-- The same through the direct update path: each column is how far accUpdateGradParameters moves
-- the parameter for a unit gradient (learning rate 1).
function Jacobian.backwardUpdate(module, input, param)
   -- Forward once so that the module's output has its size.
   local output = module:forward(input)
   local dout = output.new():resizeAs(output)
   local sdout = output.new():set(dout:storage(), 1, dout:nElement())
   local jacobian = torch.Tensor(param:nElement(), dout:nElement()):zero()
   -- Every parameter moves in an update, not only `param`: all are put back before each column,
   -- so that each column starts from the same module.
   local params = { param }
   for _, p in ipairs(module:parameters() or {}) do params[#params + 1] = p end
   local originals = {}
   for j = 1, #params do originals[j] = params[j]:clone() end
   local function restore()
      for j = 1, #params do params[j]:copy(originals[j]) end
   end
   for i = 1, sdout:nElement() do
      restore()
      dout:zero()
      sdout[i] = 1
      module:updateGradInput(input, dout)
      module:accUpdateGradParameters(input, dout, 1)
      jacobian:select(2, i):copy(param)
   end
   restore()
   return jacobian
end

-- The Jacobian by central differences: each element of `param` (the input when nil) moves by
-- +-perturbation and the change of the output is measured.
function Jacobian.forward(module, input, param, perturbation)
   param = param or input
   perturbation = perturbation or 1e-6
   local sin = flatView(param)
   local out = module:forward(input)
   local jacobian = torch.Tensor():resize(param:nElement(), out:nElement())
   local outa = torch.Tensor(jacobian:size(2))
   local outb = torch.Tensor(jacobian:size(2))
   for i = 1, sin:nElement() do
      local orig = sin[i]
      sin[i] = orig - perturbation
      outa:copy(module:forward(input))
      sin[i] = orig + perturbation
      outb:copy(module:forward(input))
      sin[i] = orig
      outb:add(-1, outa):div(2 * perturbation)
      jacobian:select(1, i):copy(outb)
   end
   return jacobian
end

-- The same as `forward` but measuring how the parameter itself moves (the reference for
-- backwardUpdate): the identity scaled by -1 through the output's dependence.
function Jacobian.forwardUpdate(module, input, param, perturbation)
   -- The update of param by a unit gradient is -d(output)/d(param) (learning rate 1), so its
   -- Jacobian is the transposed derivative of the output with respect to param, negated and
   -- shifted by the parameter's value.
   perturbation = perturbation or 1e-6
   local sin = flatView(param)
   local out = module:forward(input)
   local jacobian = torch.Tensor():resize(param:nElement(), out:nElement())
   local outa = torch.Tensor(jacobian:size(2))
   local outb = torch.Tensor(jacobian:size(2))
   for i = 1, sin:nElement() do
      local orig = sin[i]
      sin[i] = orig - perturbation
      outa:copy(module:forward(input))
      sin[i] = orig + perturbation
      outb:copy(module:forward(input))
      sin[i] = orig
      outb:add(-1, outa):div(2 * perturbation)
      jacobian:select(1, i):copy(outb)
      jacobian:select(1, i):mul(-1)
      jacobian:select(1, i):add(sin[i])
   end
   return jacobian
end

-- The input (filled uniformly in [minval, maxval]) on which to compare; returns the largest
-- absolute difference between the two Jacobians of the output with respect to the input.
function Jacobian.testJacobian(module, input, minval, maxval, perturbation)
   minval = minval or -2
   maxval = maxval or 2
   local inrange = maxval - minval
   input:copy(torch.rand(input:nElement()):mul(inrange):add(minval))
   local jac_fprop = Jacobian.forward(module, input, nil, perturbation)
   local jac_bprop = Jacobian.backward(module, input)
   local err = jac_fprop - jac_bprop
   return err:abs():max()
end

function Jacobian.testJacobianParameters(module, input, param, dparam, minval, maxval, perturbation)
   minval = minval or -2
   maxval = maxval or 2
   local inrange = maxval - minval
   input:copy(torch.rand(input:nElement()):mul(inrange):add(minval))
   param:copy(torch.rand(param:nElement()):mul(inrange):add(minval))
   local jac_bprop = Jacobian.backward(module, input, param, dparam)
   local jac_fprop = Jacobian.forward(module, input, param, perturbation)
   local err = jac_fprop - jac_bprop
   return err:abs():max()
end

function Jacobian.testJacobianUpdateParameters(module, input, param, minval, maxval, perturbation)
   minval = minval or -2
   maxval = maxval or 2
   local inrange = maxval - minval
   input:copy(torch.rand(input:nElement()):mul(inrange):add(minval))
   param:copy(torch.rand(param:nElement()):mul(inrange):add(minval))
   local params_bprop = Jacobian.backwardUpdate(module, input, param)
   local params_fprop = Jacobian.forwardUpdate(module, input, param, perturbation)
   local err = params_fprop - params_bprop
   return err:abs():max()
end

-- Saves and reloads the module, and compares the copy's forward and backward with the
-- original's; returns the two largest differences.
function Jacobian.testIO(module, input, minval, maxval)
   minval = minval or -2
   maxval = maxval or 2
   local inrange = maxval - minval
   local inputclone = input:clone()

   -- The module's results on random input and gradient.
   input:copy(torch.rand(input:nElement()):mul(inrange):add(minval))
   local go = module:forward(input):clone():copy(torch.rand(module.output:nElement()):mul(inrange):add(minval))
   local fo = module:forward(input):clone()
   local bo = module:updateGradInput(input, go):clone()

   local f = torch.MemoryFile('rw'):binary()
   f:writeObject(module)
   f:seek(1)
   local m = f:readObject()
   f:close()

   local fo2 = m:forward(inputclone:copy(input)):clone()
   local bo2 = m:updateGradInput(inputclone, go):clone()
   local errf = fo - fo2
   local errb = bo - bo2
   return errf:abs():max(), errb:nElement() > 0 and errb:abs():max() or 0
end

-- Every way of updating `weight` from `gradWeight`, compared with the plain one:
-- accGradParameters + updateParameters; accUpdateGradParameters; a shared clone's updates.
-- Returns a table of the largest differences by path name.
function Jacobian.testAllUpdate(module, input, weight, gradWeight)
   local gradOutput
   local lr = torch.uniform(0.1, 1)
   local errors = {}

   -- The reference: accGradParameters then updateParameters.
   local maccgp = module:clone()
   local weightc = maccgp[weight]:clone()
   maccgp:forward(input)
   gradOutput = torch.rand(maccgp.output:size())
   maccgp:zeroGradParameters()
   maccgp:updateGradInput(input, gradOutput)
   maccgp:accGradParameters(input, gradOutput)
   maccgp:updateParameters(lr)
   errors['accGradParameters'] = (weightc - maccgp[gradWeight] * lr - maccgp[weight]):norm()

   -- accUpdateGradParameters
   local maccugp = module:clone()
   maccugp:forward(input)
   maccugp:updateGradInput(input, gradOutput)
   maccugp:accUpdateGradParameters(input, gradOutput, lr)
   errors['accUpdateGradParameters'] = (maccugp[weight] - maccgp[weight]):norm()

   -- A clone sharing the weight, updated through accUpdateGradParameters.
   local modules = {}
   local mshare = module:clone()
   mshare:forward(input)
   mshare:updateGradInput(input, gradOutput)
   local mclone = mshare:clone(weight)
   mclone:forward(input)
   mclone:updateGradInput(input, gradOutput)
   mclone:accUpdateGradParameters(input, gradOutput, lr)
   modules[1] = mshare
   errors['accUpdateGradParameters [shared]'] = (mshare[weight] - maccgp[weight]):norm()

   -- A shared clone whose gradients are shared too, updated with updateParameters.
   local mshare2 = module:clone()
   mshare2:forward(input)
   mshare2:zeroGradParameters()
   mshare2:updateGradInput(input, gradOutput)
   local mclone2 = mshare2:clone(weight, gradWeight)
   mclone2:forward(input)
   mclone2:zeroGradParameters()
   mclone2:updateGradInput(input, gradOutput)
   mclone2:accGradParameters(input, gradOutput)
   mclone2:updateParameters(lr)
   errors['accGradParameters [shared]'] = (mshare2[weight] - maccgp[weight]):norm()

   return errors
end

-- Diagonal Hessians ------------------------------------------------------------------------------
-- Both ways below give the diagonal of the Hessian of F = sum_k y_k^2 / 2 (y the module's
-- output) with respect to the input or a parameter. For F, dF/dy_k = y_k and d2F/dy_k^2 = 1, so
-- d2F/dx_i^2 = sum_k (dy_k/dx_i)^2 + y_k d2y_k/dx_i^2, and the second term vanishes for a module
-- linear in x_i (Linear, the convolutions). nn.hessian's backward pass computes the first term.

-- By nn.hessian's methods (nn.hessian.enable() installs them): a diagHessianOutput of ones
-- passed back once. `name` is the field that receives the result (diagHessianInput,
-- diagHessianWeight or diagHessianBias).
function Jacobian.backwardDiagHessian(module, input, name)
   module:forward(input)
   local ones = module.output.new():resizeAs(module.output):fill(1)
   if module.diagHessianWeight then module.diagHessianWeight:zero() end
   if module.diagHessianBias then module.diagHessianBias:zero() end
   module:updateDiagHessianInput(input, ones)
   module:accDiagHessianParameters(input, ones)
   return module[name]
end

-- From first derivatives only: sum over the outputs of (dy_k/dx_i)^2, each dy_k/dx found by a
-- backward pass of the unit gradient of y_k (`gradName` names the gradient field to read).
function Jacobian.linearModuleDiagHessian(module, input, gradName)
   module:forward(input)
   local gradOutput = module.output.new():resizeAs(module.output)
   local flat = gradOutput:view(gradOutput:nElement())
   local diag
   for k = 1, gradOutput:nElement() do
      flat:zero()
      flat[k] = 1
      if module.gradWeight then module.gradWeight:zero() end
      if module.gradBias then module.gradBias:zero() end
      module:updateGradInput(input, gradOutput)
      module:accGradParameters(input, gradOutput)
      local g = module[gradName]
      diag = diag or g.new():resize(g:nElement()):zero()
      diag:addcmul(g:contiguous():view(-1), g:contiguous():view(-1))
   end
   return diag
end

-- The largest difference between the two, on an input filled uniformly in [minval, maxval].
function Jacobian.testDiagHessian(module, input, gradName, diagHessianName, minval, maxval)
   minval = minval or -2
   maxval = maxval or 2
   input:copy(torch.rand(input:nElement()):mul(maxval - minval):add(minval))
   module:initDiagHessianParameters()
   local byHessian = Jacobian.backwardDiagHessian(module, input, diagHessianName):clone()
   local byGradients = Jacobian.linearModuleDiagHessian(module, input, gradName)
   return (byHessian:contiguous():view(-1) - byGradients):abs():max()
end

function Jacobian.testDiagHessianInput(module, input, minval, maxval)
   return Jacobian.testDiagHessian(module, input, 'gradInput', 'diagHessianInput', minval, maxval)
end

function Jacobian.testDiagHessianWeight(module, input, minval, maxval)
   return Jacobian.testDiagHessian(module, input, 'gradWeight', 'diagHessianWeight', minval, maxval)
end

function Jacobian.testDiagHessianBias(module, input, minval, maxval)
   return Jacobian.testDiagHessian(module, input, 'gradBias', 'diagHessianBias', minval, maxval)
end

return Jacobian
