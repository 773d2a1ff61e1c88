-- nn.SparseJacobian: nn.Jacobian's checks for modules whose input is sparse: a tensor of
-- (index, value) rows (nnz x 2), as nn.SparseLinear takes. Only the values (column 2) are
-- perturbed, and the module's gradInput is read the same way (its column 2).

local SparseJacobian = {}
nn.SparseJacobian = SparseJacobian

-- A 1-D view of the contiguous tensor `t`, wherever it starts in its storage.
local function flatView(t)
   assert(t:isContiguous(), 'nn.SparseJacobian: the perturbed tensor must be contiguous')
   return t.new():set(t:storage(), t:storageOffset(), torch.LongStorage { t:nElement() })
end

-- Fills the values (column 2) of a sparse input uniformly in [minval, maxval].
local function randomValues(input, minval, maxval)
   minval = minval or -2
   maxval = maxval or 2
   input:select(2, 2):copy(torch.rand(input:size(1)):mul(maxval - minval):add(minval))
   return minval, maxval
end

-- By backward passes, one per output element: with `param` nil, d(output)/d(values) (one row
-- per input row), else d(output)/d(param) read from `dparam`.
function SparseJacobian.backward(module, input, param, dparam)
   module:forward(input)
   local dout = module.output.new():resizeAs(module.output)
   local sdout = flatView(dout)
   local rows = param and param:nElement() or input:size(1)
   local jacobian = torch.Tensor(rows, dout:nElement()):zero()
   for i = 1, sdout:nElement() do
      dout:zero()
      sdout[i] = 1
      module:zeroGradParameters()
      local din = module:updateGradInput(input, dout)
      module:accGradParameters(input, dout)
      if param then
         jacobian:select(2, i):copy(dparam)
      else
         jacobian:select(2, i):copy(din:select(2, 2))
      end
   end
   return jacobian
end

-- How each parameter element moves under accUpdateGradParameters with a unit gradient of each
-- output element (every parameter put back between columns).
function SparseJacobian.backwardUpdate(module, input, param)
   module:forward(input)
   local dout = module.output.new():resizeAs(module.output)
   local sdout = flatView(dout)
   local jacobian = torch.Tensor(param:nElement(), dout:nElement()):zero()
   local params = module:parameters() or {}
   local originals = {}
   for j = 1, #params do originals[j] = params[j]:clone() end
   local function restore()
      for j = 1, #params do params[j]:copy(originals[j]) end
   end
   for i = 1, sdout:nElement() do
      restore()
      dout:zero()
      sdout[i] = 1
      module:zeroGradParameters()
      module:updateGradInput(input, dout)
      module:accUpdateGradParameters(input, dout, 1)
      jacobian:select(2, i):copy(param)
   end
   restore()
   return jacobian
end

-- By central differences: each value of the input (or element of `param`) moved by +-1e-6.
function SparseJacobian.forward(module, input, param)
   local small = 1e-6
   local sin = param and flatView(param) or input:select(2, 2)
   local out = module:forward(input)
   local jacobian = torch.Tensor(sin:nElement(), out:nElement())
   local outa = torch.Tensor(out:nElement())
   local outb = torch.Tensor(out:nElement())
   for i = 1, sin:nElement() do
      local orig = sin[i]
      sin[i] = orig - small
      outa:copy(module:forward(input))
      sin[i] = orig + small
      outb:copy(module:forward(input))
      sin[i] = orig
      jacobian:select(1, i):copy(outb:add(-1, outa):div(2 * small))
   end
   return jacobian
end

-- The reference for backwardUpdate: each row is param - d(output)/d(param) (learning rate 1).
function SparseJacobian.forwardUpdate(module, input, param)
   local jacobian = SparseJacobian.forward(module, input, param):mul(-1)
   local sin = flatView(param)
   for i = 1, sin:nElement() do
      jacobian:select(1, i):add(sin[i])
   end
   return jacobian
end

function SparseJacobian.testJacobian(module, input, minval, maxval)
   randomValues(input, minval, maxval)
   local jac_fprop = SparseJacobian.forward(module, input)
   local jac_bprop = SparseJacobian.backward(module, input)
   return (jac_fprop - jac_bprop):abs():max()
end

function SparseJacobian.testJacobianParameters(module, input, param, dparam, minval, maxval)
   minval, maxval = randomValues(input, minval, maxval)
   param:copy(torch.rand(param:nElement()):mul(maxval - minval):add(minval))
   local jac_bprop = SparseJacobian.backward(module, input, param, dparam)
   local jac_fprop = SparseJacobian.forward(module, input, param)
   return (jac_fprop - jac_bprop):abs():max()
end

function SparseJacobian.testJacobianUpdateParameters(module, input, param, minval, maxval)
   minval, maxval = randomValues(input, minval, maxval)
   param:copy(torch.rand(param:nElement()):mul(maxval - minval):add(minval))
   local params_bprop = SparseJacobian.backwardUpdate(module, input, param)
   local params_fprop = SparseJacobian.forwardUpdate(module, input, param)
   return (params_fprop - params_bprop):abs():max()
end

-- Saves and reloads the module and compares the copy's forward and backward passes.
function SparseJacobian.testIO(module, input, minval, maxval)
   minval = minval or -2
   maxval = maxval or 2
   module:forward(input)
   local go = module.output:clone():copy(torch.rand(module.output:nElement()):mul(maxval - minval):add(minval))
   module:zeroGradParameters()
   module:updateGradInput(input, go)
   module:accGradParameters(input, go)
   local fo = module.output:clone()
   local bo = module.gradInput:clone()

   local f = torch.MemoryFile('rw'):binary()
   f:writeObject(module)
   f:seek(1)
   local m = f:readObject()
   f:close()
   m:forward(input)
   m:zeroGradParameters()
   m:updateGradInput(input, go)
   m:accGradParameters(input, go)
   return (fo - m.output):abs():max(), (bo - m.gradInput):abs():max()
end

-- As nn.Jacobian.testAllUpdate.
function SparseJacobian.testAllUpdate(module, input, weight, gradWeight)
   return nn.Jacobian.testAllUpdate(module, input, weight, gradWeight)
end

return SparseJacobian
