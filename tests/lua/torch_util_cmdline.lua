-- A script with a typical command line; prints the parsed params one per line, sorted.
local cmd = torch.CmdLine()
cmd:text()
cmd:text('Train a model')
cmd:text()
cmd:text('Options:')
cmd:option('-lr', 0.1, 'learning rate')
cmd:option('-epochs', 10, 'number of epochs')
cmd:option('-name', 'run', 'experiment name')
cmd:option('-cuda', false, 'use the GPU')
cmd:option('-verbose', true, 'print progress')
cmd:text()
cmd:text('Arguments:')
cmd:argument('data', 'training data')
cmd:argument('out', 'output directory')
local params = cmd:parse(arg)
local keys = {}
for k in pairs(params) do keys[#keys + 1] = k end
table.sort(keys)
for _, k in ipairs(keys) do
   io.write(k, '=', tostring(params[k]), ' (', type(params[k]), ')\n')
end
