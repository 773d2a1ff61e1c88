-- What Lua code reads of luaT's conventions and Torch7's call depths: the registry's class
-- entries, torch.getmetatable/newmetatable, class-level elementSize, debug.getinfo through a
-- constructor and a module's __call, and errors from tensor calls that name the calling file.
require 'nn'
local function check(cond, what, ...) if not cond then error(string.format(what, ...), 2) end end

-- registry[name] = class and registry[class] = name, for torch.class and the tensor classes
local reg = debug.getregistry()
local Foo = torch.class('compat.Foo')
check(reg['compat.Foo'] == Foo and reg[Foo] == 'compat.Foo', 'torch.class in the registry')
local mt = torch.getmetatable('torch.FloatTensor')
check(reg['torch.FloatTensor'] == mt and reg[mt] == 'torch.FloatTensor', 'tensor class in the registry')
check(reg[torch.getmetatable('nn.Linear')] == 'nn.Linear', 'nn.Linear in the registry')
check(reg[debug.getmetatable(torch.FloatTensor())] == 'torch.FloatTensor', "a tensor's own metatable names it")
-- torchnet's torch.isclass
local function isclass(obj) return debug.getregistry()[obj] and true or false end
check(isclass(torch.getmetatable('nn.Module')) and not isclass({}), 'torchnet isclass')

-- torch.getmetatable / newmetatable as Torch7's
check(torch.getmetatable('no.such.Class') == nil, 'getmetatable of an unknown name')
check(torch.newmetatable('compat.Foo') == Foo, 'newmetatable of an existing name returns its metatable')
local ok, err = pcall(torch.newmetatable, 'compat.Foo', nil, nil, nil, function() end)
check(not ok and err:find('compat.Foo has been already assigned a factory'), '%s', tostring(err))
torch.newmetatable('compat.Child')
torch.newmetatable('compat.Child', 'compat.Foo')
function Foo:hello() return 'hi' end
check(torch.getmetatable('compat.Child').hello() == 'hi', 'a parent given later is inherited')
ok, err = pcall(torch.newmetatable, 'compat.Child', 'nn.Module')
check(not ok and err:find('already assigned a parent class'), '%s', tostring(err))
ok, err = pcall(torch.class, 'compat.Foo')
check(not ok and err:find('redefine'), '%s', tostring(err))

-- class-level methods that need no instance
for _, T in ipairs { 'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double', 'Half' } do
   local size = ({ Byte = 1, Char = 1, Short = 2, Int = 4, Long = 8, Float = 4, Double = 8, Half = 2 })[T]
   check(torch[T .. 'Storage'].elementSize() == size, '%sStorage.elementSize()', T)
   check(torch[T .. 'Tensor'].elementSize() == size, '%sTensor.elementSize()', T)
   check(torch[T .. 'Tensor']():elementSize() == size, '%sTensor():elementSize()', T)
end

-- debug.getinfo sees Torch7's depths: nngraph records a node's declaration at level 6 of its
-- __init, created from a module's __call__.
local Node = torch.class('compat.Node')
function Node:__init() self.where = debug.getinfo(6, 'Sl') end
local Wrap, parent = torch.class('compat.Wrap', 'nn.Module')
function Wrap:__call__()
   local node = compat.Node() -- not a tail call, as in nngraph
   return node
end
local declared = compat.Wrap()(); local line = debug.getinfo(1, 'l').currentline
check(declared.where and declared.where.currentline == line, 'level 6 is line %s, the declaration is at %d',
   tostring(declared.where and declared.where.currentline), line)
-- and level 4 of a constructor is its caller
local Here = torch.class('compat.Here')
function Here:__init() self.line = debug.getinfo(4, 'l').currentline end
local h = compat.Here(); line = debug.getinfo(1, 'l').currentline
check(h.line == line, 'a constructor called at line %d sees its caller at level 4 as line %s', line, tostring(h.line))
-- a module's __call__ returns every value
local m = nn.Linear(2, 2)
local out, gin = m(torch.randn(2), torch.randn(2))
check(torch.isTensor(out) and torch.isTensor(gin), 'module call returns output and gradInput')

-- pcall adds no frame of its own: an error raised for the caller's caller (as library code does
-- with error(msg, 3)) names no internal file when that caller is pcall itself.
local function fail() error('bad call', 3) end
local function api() fail() end
local ok2, err2 = pcall(api)
check(not ok2 and err2 == 'bad call', 'pcall(api) gave %s', tostring(err2))
ok2, err2 = pcall(function() api() end)
check(err2:find('torch_conventions%.lua:%d+: bad call'), 'an error for a Lua caller names it: %s', err2)

print('ok')
