-- A softmax classifier trained end to end with optim, on three clusters of 2-D points made here:
--    th examples/optim_classifier.lua [output directory]
-- Each epoch takes mini-batch steps of optim.adam, counts the predictions in an
-- optim.ConfusionMatrix, and logs the loss and accuracy with optim.Logger, whose plot (through
-- gnuplot, when it is installed) of the loss goes to loss.png in the output directory (default:
-- a new temporary one). The model is small enough to write out by hand: scores = X W' + b.
require 'optim'

local dir = arg[1]
if not dir then
   dir = os.tmpname()
   os.remove(dir)
end
paths.mkdir(dir)
torch.manualSeed(1)

-- The data: 300 points, 100 around each of three centres.
local classes = { 'left', 'right', 'top' }
local centres = torch.Tensor { { -2, 0 }, { 2, 0 }, { 0, 2.5 } }
local n, k, d = 300, #classes, 2
local inputs, labels = torch.Tensor(n, d), torch.Tensor(n)
for i = 1, n do
   local c = (i - 1) % k + 1
   inputs[i]:copy(centres[c]):add(torch.randn(d))
   labels[i] = c
end
local onehot = torch.zeros(n, k)
for i = 1, n do onehot[i][labels[i]] = 1 end

-- All parameters in one vector, W (k x d) and b (k) views of it: what optim updates in place.
local params = torch.zeros(k * d + k)
local grads = torch.zeros(k * d + k)
local W, b = params:narrow(1, 1, k * d):view(k, d), params:narrow(1, k * d + 1, k)
local dW, db = grads:narrow(1, 1, k * d):view(k, d), grads:narrow(1, k * d + 1, k)

-- Cross-entropy of the softmax over a batch, and its gradient. Returns the loss, the gradient,
-- and the scores (for the confusion matrix).
local function evaluate(X, Y)
   local m = X:size(1)
   local scores = torch.mm(X, W:t()):add(b:view(1, k):expand(m, k))
   -- log-softmax, shifted by each row's maximum so that exp cannot overflow.
   local top = scores:max(2)
   local shifted = scores - top:expand(m, k)
   local logsum = torch.exp(shifted):sum(2):log()
   local logp = shifted - logsum:expand(m, k)
   local loss = -torch.cmul(logp, Y):sum() / m
   -- d loss / d scores = (softmax - one-hot) / m
   local dscores = torch.exp(logp):add(-1, Y):div(m)
   dW:mm(dscores:t(), X)
   db:copy(dscores:sum(1):view(k))
   return loss, grads, scores
end

local logger = optim.Logger(paths.concat(dir, 'train.log'))
logger:setNames { 'loss', 'accuracy (%)' }
logger:style { '-', '-' }
local confusion = optim.ConfusionMatrix(classes)
local config = { learningRate = 0.05 }
local state = {}
local batch = 30

for epoch = 1, 20 do
   local order = torch.randperm(n):long()
   local total = 0
   confusion:zero()
   for first = 1, n, batch do
      local idx = order:narrow(1, first, math.min(batch, n - first + 1))
      local X, Y = inputs:index(1, idx), onehot:index(1, idx)
      local _, fs = optim.adam(function()
         local loss, g, scores = evaluate(X, Y)
         confusion:batchAdd(scores, labels:index(1, idx))
         return loss, g
      end, params, config, state)
      total = total + fs[1] * idx:size(1)
   end
   confusion:updateValids()
   logger:add { total / n, confusion.totalValid * 100 }
   print(string.format('epoch %2d  loss %.4f  accuracy %.1f%%', epoch, total / n,
      confusion.totalValid * 100))
end
print(confusion)

-- The loss curve, as a PNG (when gnuplot is there; the accuracy is in the log file).
logger.epsfile = paths.concat(dir, 'loss.png')
logger:display(false)
logger:plot('loss')
print('log: ' .. logger.name)
if paths.filep(logger.epsfile) then print('plot: ' .. logger.epsfile) end
