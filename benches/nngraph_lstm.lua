-- One LSTM step (char-rnn's cell: i2h + h2h, four gates, next_c and next_h) built twice with the
-- same weights: as an nngraph gModule, and as the same computation from nn's containers alone
-- (Sequential, ConcatTable, ParallelTable, SelectTable). Side by side in one run; the ratio is
-- gModule over containers, so it prices nngraph's graph walk against nn's own table plumbing.
-- Under Torch7's th the same script measures the original nngraph.
--
--   th benches/nngraph_lstm.lua [batch] [rnn_size] [input_size] [steps]
--
-- Each figure is the best of 3 runs of `steps` forward+backward steps, in microseconds per step.
require 'nn'
require 'nngraph'

local B = tonumber(arg and arg[1]) or 50
local R = tonumber(arg and arg[2]) or 128
local V = tonumber(arg and arg[3]) or 65
local STEPS = tonumber(arg and arg[4]) or 2000
torch.setdefaulttensortype('torch.FloatTensor')
torch.manualSeed(1)

local function graph_cell()
   local x, prev_c, prev_h = nn.Identity()(), nn.Identity()(), nn.Identity()()
   local i2h = nn.Linear(V, 4 * R)(x)
   local h2h = nn.Linear(R, 4 * R)(prev_h)
   local sums = nn.CAddTable()({ i2h, h2h })
   local n1, n2, n3, n4 = nn.SplitTable(2)(nn.Reshape(4, R)(sums)):split(4)
   local in_gate, forget_gate = nn.Sigmoid()(n1), nn.Sigmoid()(n2)
   local out_gate, in_transform = nn.Sigmoid()(n3), nn.Tanh()(n4)
   local next_c = nn.CAddTable()({
      nn.CMulTable()({ forget_gate, prev_c }),
      nn.CMulTable()({ in_gate, in_transform }),
   })
   local next_h = nn.CMulTable()({ out_gate, nn.Tanh()(next_c) })
   return nn.gModule({ x, prev_c, prev_h }, { next_c, next_h })
end

local function seq(...)
   local s = nn.Sequential()
   for _, m in ipairs({ ... }) do s:add(m) end
   return s
end
local function concat(...)
   local c = nn.ConcatTable()
   for _, m in ipairs({ ... }) do c:add(m) end
   return c
end
local function pick(...)
   local path = { ... }
   if #path == 1 then return nn.SelectTable(path[1]) end
   local s = nn.Sequential()
   for _, k in ipairs(path) do s:add(nn.SelectTable(k)) end
   return s
end

-- {x, c, h} -> {{i, f, o, g}, c} -> {next_c, o} -> {next_c, next_h}
local function container_cell()
   local gates = seq(
      concat(seq(pick(1), nn.Linear(V, 4 * R)), seq(pick(3), nn.Linear(R, 4 * R))),
      nn.CAddTable(),
      nn.Reshape(4, R),
      nn.SplitTable(2),
      nn.ParallelTable():add(nn.Sigmoid()):add(nn.Sigmoid()):add(nn.Sigmoid()):add(nn.Tanh())
   )
   local next_c = seq(
      concat(
         seq(concat(pick(1, 2), pick(2)), nn.CMulTable()),
         seq(concat(pick(1, 1), pick(1, 4)), nn.CMulTable())
      ),
      nn.CAddTable()
   )
   local next_h = seq(concat(pick(2), seq(pick(1), nn.Tanh())), nn.CMulTable())
   return seq(concat(gates, pick(2)), concat(next_c, pick(1, 3)), concat(pick(1), next_h))
end

local g, c = graph_cell(), container_cell()
-- The same weights in both: the Linear layers in the order they are declared.
local gl, cl = g:findModules('nn.Linear'), c:findModules('nn.Linear')
assert(#gl == 2 and #cl == 2, 'two Linear layers in each cell')
for k = 1, 2 do
   cl[k].weight:copy(gl[k].weight)
   cl[k].bias:copy(gl[k].bias)
end

local input = { torch.randn(B, V), torch.randn(B, R), torch.randn(B, R) }
local grad = { torch.randn(B, R), torch.randn(B, R) }

-- Both cells compute the same thing before either is timed.
local go, co = g:forward(input), c:forward(input)
local gg, cg = g:backward(input, grad), c:backward(input, grad)
for k = 1, 2 do
   assert((go[k] - co[k]):abs():max() < 1e-5, 'outputs agree')
end
for k = 1, 3 do
   assert((gg[k] - cg[k]):abs():max() < 1e-4, 'gradInputs agree')
end

local function best(m)
   local t = math.huge
   for _ = 1, 3 do
      collectgarbage()
      local timer = torch.Timer()
      for _ = 1, STEPS do
         m:forward(input)
         m:zeroGradParameters()
         m:backward(input, grad)
      end
      t = math.min(t, timer:time().real)
   end
   return t * 1e6 / STEPS
end

local tg, tc = best(g), best(c)
print(string.format('LSTM step, batch %d, rnn_size %d, input %d, %d steps (us per forward+backward)', B, R, V, STEPS))
print(string.format('%-12s %10s %12s %8s', 'threads', 'gModule', 'containers', 'ratio'))
print(string.format('%-12d %10.1f %12.1f %8.2f', torch.getnumthreads(), tg, tc, tg / tc))
