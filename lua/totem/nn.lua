-- totem.nn: checks of nn modules, each recording its assertions on a totem.Tester.
--
--   totem.nn.checkGradients(tester, module, input [, precision])
--   totem.nn.checkMinibatch(tester, module, batchInput [, precision])
--   totem.nn.checkTypePreservesSharing(tester, module [, toType])
--   totem.nn.checkTypeCastable(tester, module, input [, toType] [, precision])
--   totem.nn.checkSerializable(tester, module, input [, precision])
--
-- Inputs and outputs may be tensors or (nested) tables of tensors.

require 'torch'
require 'nn'
local totem = rawget(_G, 'totem') or require 'totem'

local tnn = {}
totem.nn = tnn

local unpack = unpack or table.unpack

---------------------------------------------------------------------------------------------------
-- nested tensors

local function clone_nested(x)
   if torch.isTensor(x) then return x:clone() end
   local copy = {}
   for k, v in pairs(x) do copy[k] = clone_nested(v) end
   return copy
end

local function fill_nested(x, value)
   if torch.isTensor(x) then
      x:fill(value)
   else
      for _, v in pairs(x) do fill_nested(v, value) end
   end
end

-- reshapes `out` like `like`, adding the entries it lacks and dropping those `like` lacks
local function resize_nested_as(out, like)
   if torch.isTensor(out) then
      out:resizeAs(like)
      return
   end
   for k, v in pairs(like) do
      if not out[k] then
         out[k] = clone_nested(v)
      else
         resize_nested_as(out[k], v)
      end
   end
   for k in pairs(out) do
      if not like[k] then out[k] = nil end
   end
end

local function add_nested_to(out, x)
   if torch.isTensor(out) then
      out:add(x)
      return
   end
   for k, v in pairs(x) do
      assert(out[k] ~= nil, 'missing key')
      add_nested_to(out[k], v)
   end
end

-- the tensor type of an input (of its first leaf, for a table)
local function input_type(x)
   if type(x) == 'table' then return input_type(x[1]) end
   return x:type()
end

---------------------------------------------------------------------------------------------------
-- random number state

-- Returns a function putting the random generators back in their current state.
local function rng_checkpoint()
   local state = torch.getRNGState()
   local cutorch = rawget(_G, 'cutorch')
   local custate = cutorch and cutorch.getRNGState() or nil
   return function()
      torch.setRNGState(state)
      if custate then cutorch.setRNGState(custate) end
   end
end

---------------------------------------------------------------------------------------------------
-- gradients

-- a random gradient shaped like an output (tensors, numbers, or tables of them)
local function random_grad_output(output)
   if torch.isTensor(output) then
      return torch.randn(output:size()):typeAs(output)
   elseif type(output) == 'number' then
      return torch.normal()
   end
   local grad = {}
   for k, v in pairs(output) do grad[k] = random_grad_output(v) end
   return grad
end

-- the loss whose gradient w.r.t. the output is gradOutput: sum of output .* gradOutput
local function loss_of(output, gradOutput)
   if torch.isTensor(output) then
      return output:dot(gradOutput)
   elseif type(output) == 'number' then
      return output * gradOutput
   end
   local total = 0
   for k, v in pairs(output) do total = total + loss_of(v, gradOutput[k]) end
   return total
end

-- {tensor, gradient, name} for each input tensor (walking tables by index)
local function add_input_pairs(list, input, gradInput, name)
   if input == nil then return end
   if gradInput == nil or gradInput == false then
      print('\nWARNING: ignored gradInput: ' .. name)
      return
   end
   if torch.isTensor(input) then
      list[#list + 1] = { input, gradInput, name }
      return
   end
   for i = 1, #input do
      add_input_pairs(list, input[i], gradInput[i], string.format('%s[%s]', name, i))
   end
end

-- what to check: the flattened parameters (if any), then every input tensor
local function gradient_targets(module, input)
   local list = {}
   local params = module:parameters()
   if params ~= nil and #params > 0 then
      local flat, flatGrad = module:getParameters()
      list[#list + 1] = { flat, flatGrad, 'params' }
   end
   add_input_pairs(list, input, module.gradInput, 'input')
   return list
end

-- one forward/backward, so that gradInput exists
local function prime(module, input)
   local output = module:forward(input)
   assert(module.output == output, 'module.output should be returned')
   local gradInput = module:backward(input, random_grad_output(output))
   assert(module.gradInput == gradInput, 'module.gradInput should be returned')
end

-- central differences of feval's loss w.r.t. each element of `params`
local function numeric_gradient(feval, params)
   local flat = params.new(params:storage())
   assert(flat:nElement() == params:nElement(), 'shared storage of params is not supported')
   local grad = params.new(params:nElement())
   local h = params:type() == 'torch.DoubleTensor' and 1e-6 or 1e-3
   for i = 1, flat:nElement() do
      local orig = flat[i]
      flat[i] = orig - h
      local below = feval(flat)
      flat[i] = orig + h
      local above = feval(flat)
      flat[i] = orig
      grad[i] = (above - below) / (2 * h)
   end
   return params.new(grad:storage(), params:storageOffset(), params:size(), params:stride())
end

local function check_gradient(tester, feval, params, name, precision)
   name = name or 'params'
   local _, analytic = feval(params)
   local numeric = numeric_gradient(feval, params)
   precision = precision or (params:type() == 'torch.DoubleTensor' and 1e-4 or 1e-2)
   tester:eq(analytic, numeric, 'wrong grad w.r.t. ' .. name, precision)
end

local function check_sizes(tester, input, gradInput)
   if torch.isTensor(input) then
      tester:eq(input:size(), gradInput:size(), 'wrong gradInput size')
      return
   end
   for k, child in pairs(input) do
      assert(gradInput[k] ~= nil, 'missing gradInput element')
      check_sizes(tester, child, gradInput[k])
   end
end

-- A pass-through module: put in front of the module under test, it gives it inputs of its own
-- and checks the gradient it gets back has the input's shape.
local CopyModule, CopyParent = torch.class('totem._nn_CopyModule', 'nn.Module')

function CopyModule:__init(tester)
   CopyParent.__init(self)
   self.output = nil
   self.gradInput = nil
   self.tester = tester
end

function CopyModule:updateOutput(input)
   self.output = self.output or clone_nested(input)
   resize_nested_as(self.output, input)
   fill_nested(self.output, 0)
   add_nested_to(self.output, input)
   return self.output
end

function CopyModule:updateGradInput(input, gradOutput)
   check_sizes(self.tester, input, gradOutput)
   self.gradInput = self.gradInput or clone_nested(input)
   resize_nested_as(self.gradInput, input)
   fill_nested(self.gradInput, 0)
   add_nested_to(self.gradInput, gradOutput)
   return self.gradInput
end

-- Compares the gradients w.r.t. the parameters and w.r.t. the input with numeric estimates.
-- The random generator is reset before each evaluation, so stochastic modules are fine.
function tnn.checkGradients(tester, module, input, precision)
   module = nn.Sequential():add(totem._nn_CopyModule(tester)):add(module)
   local rewind = rng_checkpoint()
   prime(module, input)
   local gradOutput = random_grad_output(module.output)

   for _, target in ipairs(gradient_targets(module, input)) do
      local params, gradParams, name = unpack(target)
      -- parameter gradients accumulate: start them from something non-zero
      local start = gradParams:clone():uniform()
      if name ~= 'params' then start:zero() end
      local function feval()
         rewind()
         if name ~= 'params' then module:zeroGradParameters() end
         gradParams:copy(start)
         module:forward(input)
         local loss = loss_of(module.output, gradOutput)
         module:backward(input, gradOutput)
         gradParams:add(-1, start)
         return loss, gradParams
      end
      check_gradient(tester, feval, params, name, precision)
   end
end

---------------------------------------------------------------------------------------------------
-- minibatches

local function split_rows(batch)
   local rows = {}
   for i = 1, batch:size(1) do rows[i] = batch[i]:clone() end
   return rows
end

-- a batch (tensor, or table of batched arguments) as a list of single examples
local function debatch(batch)
   if torch.isTensor(batch) then return split_rows(batch) end
   local perArg = {}
   for i, item in ipairs(batch) do perArg[i] = debatch(item) end
   local examples = {}
   for row = 1, #perArg[1] do
      examples[row] = {}
      for i, rows in ipairs(perArg) do examples[row][i] = rows[row] end
   end
   return examples
end

-- The module must give each example of a batch what it gives that example alone.
function tnn.checkMinibatch(tester, module, batchInput, precision)
   precision = precision or 1e-14
   local inputs = debatch(batchInput)
   local batchOutput = module:forward(batchInput)
   local outputs = debatch(batchOutput)
   local batchGradOutput = random_grad_output(batchOutput)
   local gradOutputs = debatch(batchGradOutput)
   local gradInputs = debatch(module:updateGradInput(batchInput, batchGradOutput))
   for i = 1, #inputs do
      local output = module:forward(inputs[i])
      tester:eq(outputs[i], output, 'wrong minibatch output', precision)
      local gradInput = module:updateGradInput(inputs[i], gradOutputs[i])
      tester:eq(gradInputs[i], gradInput, 'wrong minibatch gradInput', precision)
   end
end

---------------------------------------------------------------------------------------------------
-- type casts

local function sharing_report(kind, i, a, b)
   local lines = { 'Sharing is broken for ' .. kind .. ' #' .. i .. '\n' .. tostring(a) .. ' vs\n'
      .. tostring(b) .. '\nReason: ' }
   if a:storage() ~= b:storage() then lines[#lines + 1] = '\n+ different storage pointer' end
   if a:storageOffset() ~= b:storageOffset() then lines[#lines + 1] = '\n+ different storage offset' end
   if not a:isSameSizeAs(b) then
      lines[#lines + 1] = '\n+ different tensor sizes'
   elseif not torch.LongTensor(a:stride()):eq(torch.LongTensor(b:stride())):all() then
      lines[#lines + 1] = '\n+ different tensor strides'
   end
   return table.concat(lines)
end

local function type_keeps_sharing(module, toType)
   if not module.parameters then return true end
   toType = toType or 'torch.FloatTensor'
   local twin = module:clone()
   local params, grads = module:parameters()
   local twinParams, twinGrads = twin:parameters()
   if not params then return true end
   for i = 1, #params do
      twinParams[i]:set(params[i])
      twinGrads[i]:set(grads[i])
   end
   nn.Sequential():add(module):add(twin):type(toType)
   params, grads = module:parameters()
   twinParams, twinGrads = twin:parameters()
   for i = 1, #params do
      if not twinParams[i]:isSetTo(params[i]) then
         return false, sharing_report('parameter', i, params[i], twinParams[i])
      elseif not twinGrads[i]:isSetTo(grads[i]) then
         return false, sharing_report('gradParameter', i, grads[i], twinGrads[i])
      end
   end
   return true
end

-- A clone sharing the module's parameters must still share them once both are cast (through a
-- container) to `toType`.
function tnn.checkTypePreservesSharing(tester, module, toType)
   local ok, message = type_keeps_sharing(module, toType)
   tester:assert(ok, message)
end

-- the paths ('self.a.b') of the tensors of type `wanted` reachable from obj, cycles avoided
local function tensor_paths(obj, wanted, path, found, visited)
   if type(obj) == 'table' then
      visited[obj] = true
      for k, v in pairs(obj) do
         local kk = type(k)
         if (kk == 'number' or kk == 'string') and not (type(v) == 'table' and visited[v]) then
            tensor_paths(v, wanted, path .. '.' .. k, found, visited)
         end
      end
   elseif torch.isTensor(obj) and torch.typename(obj) == wanted then
      found[#found + 1] = path
   end
   return found
end

local function list_text(list)
   local quoted = {}
   for i, s in ipairs(list) do quoted[i] = string.format('%q', s) end
   return '{' .. table.concat(quoted, ',') .. '}'
end

-- After a cast to `toType` (default torch.FloatTensor) the module must hold no tensor of the
-- original type, compute what it computed before, and do so again once cast back.
function tnn.checkTypeCastable(tester, module, input, toType, precision)
   precision = precision or 1e-6
   local origType = input_type(input)
   toType = toType or 'torch.FloatTensor'

   local function cast(obj, typename)
      if type(obj) == 'table' then
         for k, v in pairs(obj) do obj[k] = cast(v, typename) end
         return obj
      elseif torch.typename(obj) then
         return obj:type(typename)
      end
      tester:assert(false, 'the input contains something which is not a tensor')
   end

   local rewind = rng_checkpoint()
   local preOutput = module:updateOutput(input)
   local gradOutput = random_grad_output(preOutput)
   local preGradInput = module:updateGradInput(input, gradOutput)

   tester:assertNoError(function() module:type(toType) end, 'module cannot be cast to ' .. toType)

   local leftovers = tensor_paths(module, origType, 'self', {}, {})
   local converted = tensor_paths(module, toType, 'self', {}, {})
   assert(#leftovers == 0 or origType == toType,
      'after casting, module still contains objects of original type: ' .. list_text(leftovers))
   assert(#converted > 0, 'after casting, module still contains no objects of new type: ' .. list_text(converted))

   rewind()
   local castInput = cast(input, toType)
   local castOutput = module:forward(castInput)
   local castGradOutput = cast(gradOutput, toType)
   local castGradInput = module:updateGradInput(castInput, castGradOutput)
   tester:eq(cast(preOutput, toType), castOutput, 'cast module output differs from before casting', precision)
   tester:eq(cast(preGradInput, toType), castGradInput, 'cast module grad input differs from before casting', precision)

   tester:assertNoError(function() module:type(origType) end, 'module cannot be base back to ' .. origType)
   rewind()
   cast(input, origType)
   cast(gradOutput, origType)
   local postOutput = module:updateOutput(input)
   local postGradInput = module:updateGradInput(input, gradOutput)
   tester:eq(cast(preOutput, origType), postOutput, 'module output differs before and after typecast', precision)
   tester:eq(cast(preGradInput, origType), postGradInput, 'module gradInput differs before and after typecast', precision)
end

---------------------------------------------------------------------------------------------------
-- serialization

-- torch.save then torch.load must give a module computing the same outputs and gradients.
function tnn.checkSerializable(tester, module, input, precision)
   precision = precision or 1e-6
   local rewind = rng_checkpoint()
   local preOutput = module:updateOutput(input)
   local gradOutput = random_grad_output(preOutput)
   local preGradInput = module:updateGradInput(input, gradOutput)
   local paths = require 'paths'
   local filename = paths.tmpname()
   tester:assertNoError(function() torch.save(filename, module) end, 'module cannot be serialized')
   local loaded = torch.load(filename)
   os.remove(filename)
   rewind()
   local postOutput = loaded:updateOutput(input)
   local postGradInput = loaded:updateGradInput(input, gradOutput)
   tester:eq(preOutput, postOutput, 'module output differs before and after serialization', precision)
   tester:eq(preGradInput, postGradInput, 'module gradInput differs before and after serialization', precision)
end

return tnn
