-- nn.MixtureTable([dim]): a mixture of experts. The input is {gater, experts}: gater holds one
-- weight per expert (a vector of E, or a batch B x E); experts is a table of E tensors of one shape
-- (batched like the gater), or one tensor with the E experts along dimension `dim` (default 2 for
-- a batch, 1 otherwise). The output is sum_i gater[.., i] * expert_i, each weight applied to its
-- whole expert (per sample in a batch).

local MixtureTable, parent = torch.class('nn.MixtureTable', 'nn.Module')

function MixtureTable:__init(dim)
   parent.__init(self)
   self.dim = dim
   self.size = torch.LongStorage()
   self.batchSize = 0
   self.size2 = torch.LongStorage()
   self.backwardSetup = false
   self.gradInput = {}
end

-- The gater viewed with `n` dimensions, ready to be expanded over an expert: its batch size (if
-- any) first, E at dimension `at` when given, 1 elsewhere.
local function gaterView(gater, batched, n, at)
   local size = torch.LongStorage(n):fill(1)
   if batched then size[1] = gater:size(1) end
   if at then size[at] = gater:size(batched and 2 or 1) end
   return gater:contiguous():view(size)
end

-- Gater column i viewed over an expert of `n` dimensions (its batch first, when batched).
local function gateOf(gater, batched, i, n)
   if batched then
      return gaterView(gater:select(2, i), true, n)
   end
   return gaterView(gater:narrow(1, i, 1), false, n)
end

local function checkInput(self, input)
   if type(input) ~= 'table' or not torch.isTensor(input[1]) or input[2] == nil then
      error('nn.MixtureTable: the input must be {gater, experts}', 3)
   end
   local gater, experts = input[1], input[2]
   local batched = gater:dim() >= 2
   self.dimG = batched and 2 or 1
   self.dim = self.dim or (batched and 2 or 1)
   self.batchSize = batched and gater:size(1) or 1
   if self.table or (type(experts) == 'table' and not torch.isTensor(experts)) then
      self.table = true
      if gater:size(self.dimG) ~= #experts then
         error(string.format('nn.MixtureTable: %d gater outputs for %d experts', gater:size(self.dimG), #experts), 3)
      end
   elseif gater:size(self.dimG) ~= experts:size(self.dim) then
      error(string.format('nn.MixtureTable: %d gater outputs for %d experts (dimension %d of the experts)',
         gater:size(self.dimG), experts:size(self.dim), self.dim), 3)
   end
   return gater, experts, batched
end

function MixtureTable:updateOutput(input)
   local gater, experts, batched = checkInput(self, input)
   if self.table then
      self.output:resizeAs(experts[1]):zero()
      for i, expert in ipairs(experts) do
         self.output:addcmul(gateOf(gater, batched, i, expert:dim()):expandAs(expert), expert)
      end
   else
      local gates = gaterView(gater, batched, experts:dim(), self.dim):expandAs(experts)
      local mixed = torch.cmul(gates, experts):sum(self.dim)
      self.output:resizeAs(experts:select(self.dim, 1)):copy(mixed)
   end
   return self.output
end

function MixtureTable:updateGradInput(input, gradOutput)
   local gater, experts, batched = checkInput(self, input)
   if type(self.gradInput) ~= 'table' then self.gradInput = {} end
   local gaterGrad = self.gradInput[1]
   if not torch.isTensor(gaterGrad) or gaterGrad:type() ~= gater:type() then gaterGrad = gater.new() end
   gaterGrad:resizeAs(gater)
   self.gradInput[1] = gaterGrad
   if self.table then
      local expertGrads = self.gradInput[2]
      if type(expertGrads) ~= 'table' or torch.isTensor(expertGrads) then expertGrads = {} end
      for i, expert in ipairs(experts) do
         -- The gate's gradient: sum of gradOutput * expert over each sample.
         local prod = torch.cmul(gradOutput, expert)
         if batched then
            gaterGrad:select(2, i):copy(prod:view(gater:size(1), -1):sum(2))
         else
            gaterGrad[i] = prod:sum()
         end
         local g = expertGrads[i]
         if not torch.isTensor(g) or g:type() ~= expert:type() then g = expert.new() end
         expertGrads[i] = g:resizeAs(expert):cmul(gateOf(gater, batched, i, expert:dim()):expandAs(expert), gradOutput)
      end
      for i = #experts + 1, #expertGrads do expertGrads[i] = nil end
      self.gradInput[2] = expertGrads
   else
      -- gradOutput spread over the experts' dimension.
      local size = experts:size()
      size[self.dim] = 1
      local spread = gradOutput:contiguous():view(size):expandAs(experts)
      -- The gater's gradient: sum of spread * experts over everything but the batch and the experts'
      -- dimension (moved next to the batch).
      local prod = torch.cmul(spread, experts):transpose(self.dim, self.dimG):contiguous()
      if batched then
         gaterGrad:copy(prod:view(gater:size(1), gater:size(2), -1):sum(3))
      else
         gaterGrad:copy(prod:view(gater:size(1), -1):sum(2))
      end
      local expertGrads = self.gradInput[2]
      if not torch.isTensor(expertGrads) or expertGrads:type() ~= experts:type() then expertGrads = experts.new() end
      expertGrads:resizeAs(experts):cmul(gaterView(gater, batched, experts:dim(), self.dim):expandAs(experts), spread)
      self.gradInput[2] = expertGrads
   end
   return self.gradInput
end

function MixtureTable:type(type, tensorCache)
   self.gradInput = {}
   return parent.type(self, type, tensorCache)
end

return MixtureTable
