-- torch.CmdLine from Lua: parse on explicit tables, defaults, string(), declaration errors.
local H = dofile('torch_test_helpers.lua')

local cmd = torch.CmdLine()
H.eq(torch.typename(cmd), 'torch.CmdLine', 'typename')
cmd:option('-seed', 123, 'initial random seed')
cmd:option('-flag', false, 'a boolean option')
cmd:option('-name', 'abc', 'a string option')
cmd:option('--long', 1.5, 'a double-dash option')
cmd:argument('input', 'input file')

-- Defaults.
local d = cmd:default()
H.eq(d.seed, 123, 'default seed')
H.eq(d.flag, false, 'default flag')
H.eq(d.long, 1.5, 'default of a --option')
H.eq(d.input, nil, 'arguments have no default')

-- Options in any order; numbers converted, booleans flipped, strings kept.
local p = cmd:parse({ '-flag', '-seed', '42', 'file.txt', '-name', '-x-', '--long', '-2.5e1' })
H.eq(p.seed, 42, 'number option')
H.eq(p.flag, true, 'boolean option flips its default')
H.eq(p.name, '-x-', 'string option takes the next word as is')
H.eq(p.long, -25, 'negative number value')
H.eq(p.input, 'file.txt', 'positional argument')
-- A negative number is a value, not an option.
H.eq(cmd:parse({ '-7' }).input, '-7', 'a negative number as an argument')
-- A boolean option whose default is true turns off.
local c2 = torch.CmdLine()
c2:option('-color', true, 'colours')
H.eq(c2:parse({ '-color' }).color, false, 'true flips to false')
H.eq(c2:parse({}).color, true, 'not given keeps true')
-- An explicit type.
local c3 = torch.CmdLine()
c3:option('-n', '5', 'a string that looks like a number', 'string')
H.eq(c3:parse({ '-n', '7' }).n, '7', 'explicit string type is not converted')
local c4 = torch.CmdLine()
c4:argument('count', 'a number', 'number')
H.eq(c4:parse({ '12' }).count, 12, 'number argument')

-- Declaration errors name the method.
H.fails_containing(function() cmd:option('-nodefault') end, 'CmdLine.option: option -nodefault has no default value')
H.fails_containing(function() cmd:option('-bad', 1, 'help', 'string') end, 'CmdLine.option: option -bad has a default of type number, not string')
H.fails_containing(function() cmd:text(3) end, 'CmdLine.text: expected a string, got number')
H.fails_containing(function() cmd:addTime('x', 5) end, 'CmdLine.addTime: the format must be a string, got number')
H.fails_containing(function() cmd:string('p', nil) end, 'CmdLine.string: bad argument #2 (params table expected, got nil)')
H.fails_containing(function() torch.CmdLine.parse({}, {}) end, 'CmdLine.parse: expected a torch.CmdLine')

-- string(prefix, params, ignore): arguments in order, then non-default options sorted, booleans
-- as t/f; it prints what it includes and what it ignores.
local printed = {}
local saved_print = print
print = function(...)
   local parts = {}
   for i = 1, select('#', ...) do parts[i] = tostring((select(i, ...))) end
   printed[#printed + 1] = table.concat(parts, ' ')
end
local s = cmd:string('exp', { seed = 5, flag = true, name = 'abc', long = 1.5, input = 'data.t7' }, {})
local s_ignored = cmd:string('exp', { seed = 5, flag = true, input = 'data.t7' }, { input = true, seed = true })
local s_default = cmd:string('exp', { seed = 123, name = 'abc' }, {})
local s_forced = cmd:string('exp', { seed = 123 }, { seed = false })
local s_unknown = cmd:string('exp', { other = 1 }, {})
print = saved_print
H.eq(s, 'exp,input=data.t7,flag=t,seed=5', 'string()')
H.eq(s_ignored, 'exp,flag=t', 'string() with ignored keys')
H.eq(s_default, 'exp', 'string() with only defaults is the prefix')
H.eq(s_forced, 'exp,seed=123', 'ignore[k] == false forces a default into the name')
H.eq(s_unknown, 'exp', 'unknown keys are left out')
table.sort(printed)
H.list(printed, {
   '-- ignore option input',
   '-- ignore option seed',
   'WARNING: unknown option/argument: other IGNORING for DIRECTORY NAME',
   'flag t false',
   'flag t false',
   'seed 123 123',
   'seed 5 123',
}, 'what string() printed')
local sep = torch.CmdLine('_', ':')
sep:option('-a', 1, '')
sep:option('-b', 'x', '')
print = function() end
H.eq(sep:string('p', { a = 2, b = 'y' }, {}), 'p_a:2_b:y', 'custom separators')
H.eq(sep:string(nil, { a = 2 }, {}), '_a:2', 'no prefix')
print = saved_print

print('ok')
