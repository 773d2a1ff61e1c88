-- CmdLine:log tees print to a file, with a header of the params; silent() and addTime().
local H = dofile('torch_test_helpers.lua')

local function read(path)
   local f = assert(io.open(path, 'r'))
   local s = f:read('*a')
   f:close()
   return s
end

local path = os.tmpname()
local cmd = torch.CmdLine()
cmd:option('-lr', 0.5, 'learning rate')
cmd:log(path, { lr = 0.5 })
print('hello', 42, true)
print()
local text = read(path)
local lines = {}
for line in text:gmatch('([^\n]*)\n') do lines[#lines + 1] = line end
H.eq(#lines, 6, 'log lines')
H.check(lines[1]:match('^%[program started on .+%] $') ~= nil, 'header line: ' .. lines[1])
H.eq(lines[2], '[command line arguments] ', 'second header line')
H.eq(lines[3], 'lr 0.5 ', 'params in the header')
H.eq(lines[4], '[----------------------] ', 'end of the header')
H.eq(lines[5], 'hello 42 true ', 'a print, with Torch\'s trailing space')
H.eq(lines[6], '', 'an empty print')
os.remove(path)

-- silent(): the file only; addTime(): each line starts with the date and the name.
local quiet_path = os.tmpname()
local q = torch.CmdLine()
q:silent()
q:addTime('run', '%Y')
q:log(quiet_path)
print('quiet line')
local qtext = read(quiet_path)
local year = os.date('%Y')
H.check(qtext:find(year .. '[run]:  quiet line \n', 1, true) ~= nil, 'dated line in ' .. qtext)
H.check(qtext:find(year .. '[run]:  [command line arguments] \n', 1, true) ~= nil, 'dated header')
os.remove(quiet_path)

io.write('done\n')
