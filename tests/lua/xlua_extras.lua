-- xlua's namespace tools, envparams, trycatch, table2string, usage_module, OptionParser and
-- Profiler. Run with XLUA_LR=0.5 XLUA_NESTEROV=false XLUA_NAME=resnet XLUA_FLAG_T=True
-- XLUA_BAD_NUM=abc XLUA_BAD_BOOL=yes (tests/paths_sys.rs does).

-- made before xlua is first used: still the user's, so clearall removes it (th loaded xlua at start-up)
early_global = 'early'

require 'xlua'

local function raises(f, ...)
   local ok, err = pcall(f, ...)
   assert(not ok, 'expected an error')
   return tostring(err)
end

local function has(text, part)
   assert(text:find(part, 1, true), string.format('%q not in %q', part, text))
end

-- What f writes through io.write, through io.stdout:write and through io.stderr:write, and what it
-- raised (os.exit raises {exit = status} meanwhile).
local function capture(f)
   local out, stdout, stderr = {}, {}, {}
   local saved = { write = io.write, stdout = io.stdout, stderr = io.stderr, exit = os.exit }
   local function sink(buf)
      return { write = function(self, ...)
         for i = 1, select('#', ...) do buf[#buf + 1] = tostring((select(i, ...))) end
         return self
      end }
   end
   io.write = function(...)
      for i = 1, select('#', ...) do out[#out + 1] = tostring((select(i, ...))) end
   end
   io.stdout, io.stderr = sink(stdout), sink(stderr)
   os.exit = function(status) error({ exit = status or 0 }, 0) end
   local ok, err = pcall(f)
   io.write, io.stdout, io.stderr, os.exit = saved.write, saved.stdout, saved.stderr, saved.exit
   return table.concat(out), table.concat(stdout), table.concat(stderr), (not ok) and err or nil
end

----------------------------------------------------------------------------------------------------
-- envparams
----------------------------------------------------------------------------------------------------
assert(os.getenv('XLUA_LR') == '0.5', 'run with the environment tests/paths_sys.rs sets')
local defaults = { XLUA_LR = 0.1, XLUA_NESTEROV = true, XLUA_NAME = 'vgg', XLUA_FLAG_T = false,
   XLUA_UNSET_VAR = 7, [1] = 'kept' }
local p = xlua.envparams(defaults)
assert(p.XLUA_LR == 0.5, tostring(p.XLUA_LR))
assert(p.XLUA_NESTEROV == false and p.XLUA_FLAG_T == true)
assert(p.XLUA_NAME == 'resnet' and p.XLUA_UNSET_VAR == 7 and p[1] == 'kept')
assert(defaults.XLUA_LR == 0.1, 'the defaults are not changed')
local err = raises(xlua.envparams, { XLUA_BAD_NUM = 1 })
has(err, 'xlua.envparams')
has(err, 'XLUA_BAD_NUM')
has(err, 'not a number')
err = raises(xlua.envparams, { XLUA_BAD_BOOL = true })
has(err, 'xlua.envparams')
has(err, 'XLUA_BAD_BOOL')
has(err, 'not a boolean')
assert(xlua.envparams { XLUA_BAD_BOOL = 'text' }.XLUA_BAD_BOOL == 'yes', 'strings are taken as they are')
has(raises(xlua.envparams, 'XLUA_LR'), 'xlua.envparams')

----------------------------------------------------------------------------------------------------
-- trycatch
----------------------------------------------------------------------------------------------------
local caught
xlua.trycatch(function() error('boom') end, function(e) caught = e end)
assert(caught and caught:find('boom', 1, true), tostring(caught))
local ran = false
xlua.trycatch(function() ran = true end, function() error('catch must not run') end)
assert(ran)
local a, b = xlua.trycatch(function() return 1, 2 end)
assert(a == 1 and b == 2)
assert(xlua.trycatch(function() error({ code = 3 }) end, function(e) return e.code end) == 3)
xlua.trycatch(function() error('no catch given: the error is dropped') end)
has(raises(xlua.trycatch, 5), 'xlua.trycatch')
has(raises(xlua.trycatch, function() end, 'catch'), 'xlua.trycatch')

----------------------------------------------------------------------------------------------------
-- table2string and usage_module
----------------------------------------------------------------------------------------------------
assert(xlua.table2string { 1, 2, 'a' } == '{1,2,"a"}')
assert(xlua.table2string { b = 2, a = 'x', 1 } == '{1,a="x",b=2}', xlua.table2string { b = 2, a = 'x', 1 })
assert(xlua.table2string { ['a b'] = true, [10] = false } == '{[10]=false,["a b"]=true}')
assert(xlua.table2string { 'say "hi"' } == [[{'say "hi"'}]])
assert(xlua.table2string { "it's \"x\"" } == [[{"it's \"x\""}]])
assert(xlua.table2string { 'a\nb' } == [[{"a\nb"}]])
assert(xlua.table2string { x = { 1, y = 2 } } == '{x={1,y=2}}')
assert(xlua.table2string({ 1, k = 'v', t = { 2 } }, true) == '{\n   1\n   k : "v"\n   t : {2}\n}')
assert(xlua.table2string {} == '{}')
local loop = {}
loop.self = loop
assert(xlua.table2string(loop):match('^{self=table: .+}$'), 'a cycle ends')
has(raises(xlua.table2string, 3), 'xlua.table2string')

local mod = {}
local banner = xlua.usage_module(mod, 'mymod', 'does things')
assert(tostring(mod) == banner)
has(banner, string.rep('+', 69) .. '\nPACKAGE:\nmymod\n\nDESC:\ndoes things\n' .. string.rep('+', 70))
assert(not xlua.usage_module({}, 'bare'):find('DESC', 1, true))
has(raises(xlua.usage_module, 'mod', 'name'), 'xlua.usage_module')
has(raises(xlua.usage_module, {}, nil), 'xlua.usage_module')

----------------------------------------------------------------------------------------------------
-- OptionParser
----------------------------------------------------------------------------------------------------
assert(require('xlua.OptionParser') == xlua.OptionParser)
local saved_arg = arg

local function parser()
   local op = xlua.OptionParser('%prog [options] FILES')
   op:option { '-d', '--dir', action = 'store', dest = 'dir', help = 'data directory', default = '.' }
   op:option { '--lr', action = 'store', dest = 'lr', help = 'learning rate', default = 0.1 }
   op:option { '-v', '--verbose', action = 'store_true', dest = 'verbose', help = 'say more' }
   op:option { '--no-cuda', action = 'store_false', dest = 'cuda', help = 'cpu only', default = true }
   op:option { '-o', '--out', dest = 'out', help = 'output file', default = 'out.t7' }
   return op
end

arg = { [0] = 'train.lua', '-d', '/tmp/data', '--lr=0.01', '-v', 'file1', '--no-cuda', 'file2',
   '--', '-not-an-option' }
local op = parser()
local opt, args = op:parse()
assert(opt.dir == '/tmp/data' and opt.lr == '0.01' and opt.verbose == true and opt.cuda == false)
assert(opt.out == 'out.t7' and opt.__main__ == true and opt.help == nil)
assert(#args == 3 and args[1] == 'file1' and args[2] == 'file2' and args[3] == '-not-an-option')
assert(op.options == opt)

local _, help = capture(function() op:help() end)
assert(help == table.concat({
   'Usage: train.lua [options] FILES',
   '',
   'Options:',
   '  -h, --help         show this help message and exit',
   '  -d DIR, --dir=DIR  data directory [default = .]',
   '  --lr=LR            learning rate [default = 0.1]',
   '  -v, --verbose      say more',
   '  --no-cuda          cpu only [default = true]',
   '  -o OUT, --out=OUT  output file [default = out.t7]',
}, '\n') .. '\n', help)
arg = { [-1] = 'th', [0] = 'train.lua' }
_, help = capture(function() op:help() end)
has(help, 'Usage: th train.lua [options] FILES\n')

-- the configuration, in full and as a file name
arg = { [0] = 'train.lua' }
local text = op:tostring()
has(text, '<train> configuration:\n')
has(text, ' + dir = /tmp/data\n')
has(text, ' + verbose = true\n')
assert(op:tostring(true) == '-d=|tmp|data,--lr=0.01,-v=true,-o=out.t7', op:tostring(true))
assert(op:tostring(true, { '-d', '-o' }) == '-d=|tmp|data,-o=out.t7')
local written = capture(function() op:summarize(true) end)
assert(written == '-d=|tmp|data,--lr=0.01,-v=true,-o=out.t7', written)

-- defaults alone; and no command line at all
arg = { [0] = 'train.lua' }
opt, args = parser():parse()
assert(opt.dir == '.' and opt.lr == 0.1 and opt.cuda == true and opt.verbose == nil and #args == 0)
arg = nil
opt, args = parser():parse()
assert(opt.__main__ == false and opt.dir == '.' and #args == 0)
opt = parser():parse({ dir = 'given' })
assert(opt.dir == 'given', 'a table passed to parse keeps its values over the defaults')

-- failures print the message on stderr and the help on stdout, and exit 1
local _, out, errout, exit
arg = { [0] = 'x.lua', '--bogus' }
_, out, errout, exit = capture(function() parser():parse() end)
assert(type(exit) == 'table' and exit.exit == 1, tostring(exit))
assert(errout == 'invalid option --bogus\n', errout)
has(out, 'Usage: x.lua [options] FILES')
arg = { [0] = 'x.lua', '-x' }
local op2 = xlua.OptionParser('%prog')
op2:option { '-x', dest = 'x', help = 'needs a value' }
_, _, errout, exit = capture(function() op2:parse() end)
assert(exit.exit == 1 and errout == 'option requires an argument -x\n', errout)
arg = { [0] = 'x.lua' }
local op3 = xlua.OptionParser('%prog')
op3:option { '-r', '--required', dest = 'r', help = 'must be given', req = true }
_, out, errout, exit = capture(function() op3:parse() end)
assert(exit.exit == 1 and errout == 'option -r requires an argument\n', errout)
has(out, 'must be given [REQUIRED]')
_, _, errout, exit = capture(function() op3:fail('went wrong') end)
assert(exit.exit == 1 and errout == 'went wrong\n')
-- -h shows the help and exits 0, even with a required option missing
arg = { [0] = 'x.lua', '-h' }
_, out, _, exit = capture(function() op3:parse() end)
assert(exit.exit == 0)
has(out, '  -h, --help')

-- dest from the flag, the table form, and errors naming the method
local op4 = xlua.OptionParser { usage = '%prog run', version = '1.2' }
assert(op4.usage == '%prog run' and op4.version == '1.2')
op4:option { '--dry-run', action = 'store_true', help = 'do nothing' }
op4:option { '-n', help = 'count' }
arg = { '--dry-run', '-n', '3' }
opt = op4:parse()
assert(opt.dry_run == true and opt.n == '3')
has(raises(op4.option, op4, { 'nodash' }), 'xlua.OptionParser:option')
has(raises(op4.option, op4, { '-q', action = 'store_maybe' }), 'unknown action')
has(raises(op4.option, op4, 'x'), 'xlua.OptionParser:option')
has(raises(op4.parse), 'xlua.OptionParser:parse')
has(raises(xlua.OptionParser, 3), 'xlua.OptionParser')
has(raises(xlua.OptionParser('%prog').tostring, xlua.OptionParser('%prog')), 'parse')
arg = saved_arg

----------------------------------------------------------------------------------------------------
-- Profiler
----------------------------------------------------------------------------------------------------
assert(require('xlua.Profiler') == xlua.Profiler)
local prof = xlua.Profiler()
prof:start('a')
sys.sleep(0.02)
local real, cpu = prof:lap('a')
assert(real >= 0.015 and real < 10 and cpu >= 0, real)
assert(prof:format('a'):match('^%$ real | cpu: %d+%.%d+ | %d+%.%d+ <a>$'), prof:format('a'))
prof:start('b', 'fps')
assert(prof:format('b') == '$ real | cpu: -1.000000 | -1.000000 <b>')
sys.sleep(0.01)
prof:lap('b')
prof:start('c')
sys.sleep(0.02)
local per_item = prof:real('c', 10)
assert(per_item >= 0.0015 and per_item < 1, per_item)
assert(prof:cpu('c') >= 0)
prof:start('a') -- a restart keeps the event's place
assert(#prof.list == 3 and prof.list[1].name == 'a' and prof.list[3].name == 'c')
local report = prof:formatAll()
local lines = {}
for line in report:gmatch('[^\n]+') do lines[#lines + 1] = line end
assert(#lines == 4 and lines[1] == '$ profiler report:', report)
assert(lines[2]:match('^%$ real %d+%.%d+ | cpu %d+%.%d+ <a>$'), lines[2])
assert(lines[3]:match('^%$ real %d+%.%d+ | cpu %d+%.%d+ <b> = %d+%.%d+ fps$'), lines[3])
assert(lines[4]:match('^%$ real %d+%.%d+ | cpu %d+%.%d+ <c>$'), lines[4])

local saved_print = print
local printed = {}
print = function(s) printed[#printed + 1] = s end
prof:printAll()
prof:print('a')
xlua.Profiler('off'):printAll()
local quiet = xlua.Profiler('off')
quiet:start('q')
quiet:lap('q')
quiet:print('q')
print = saved_print
assert(#printed == 2 and printed[1] == report and printed[2] == prof:format('a'))

local chatty = xlua.Profiler(nil, true)
print = function(s) printed[#printed + 1] = s end
written = capture(function()
   chatty:start('v')
   chatty:lap('v')
end)
print = saved_print
assert(written == '<v>\r', written)
assert(printed[#printed] == chatty:format('v'))

prof:setColor('a', 'red')
assert(prof.events.a.color == 'red')
local drawn = {}
local painter = {
   setcolor = function(_, c) drawn[#drawn + 1] = 'color ' .. c end,
   moveto = function(_, x, y) drawn[#drawn + 1] = 'at ' .. x .. ',' .. y end,
   show = function(_, s) drawn[#drawn + 1] = s end,
}
prof:displayAll { painter = painter, x = 5, y = 10 }
assert(#drawn == 9 and drawn[1] == 'color red' and drawn[2] == 'at 5,10' and drawn[3] == lines[2])
assert(drawn[4] == 'color black' and drawn[5] == 'at 5,46')

err = raises(prof.lap, prof, 'nope')
has(err, 'xlua.Profiler:lap')
has(err, 'nope')
has(raises(prof.setColor, prof, 'nope', 'red'), 'xlua.Profiler:setColor')
has(raises(prof.start, prof), 'xlua.Profiler:start')
has(raises(prof.format, 'a'), 'xlua.Profiler:format')
has(raises(prof.print, prof, 'nope'), 'xlua.Profiler:print')
has(raises(prof.printAll), 'xlua.Profiler:printAll')
has(raises(prof.real, prof, 'a', 'ten'), 'xlua.Profiler:real')
has(raises(prof.displayAll, prof, {}), 'xlua.Profiler:displayAll')

----------------------------------------------------------------------------------------------------
-- log
----------------------------------------------------------------------------------------------------
local base = os.tmpname()
os.remove(base)
local logname = base .. '/sub/session.log'
local function slurp(name)
   local f = assert(io.open(name))
   local s = f:read('*a')
   f:close()
   return s
end
xlua.log(logname)
io.write('hello ', 42, '\n')
print('printed', 1)
io.write, print = io._write, _print
assert(slurp(logname) == 'hello 42\nprinted    1\n', slurp(logname))
xlua.log(logname, true)
io.write('more\n')
io.write, print = io._write, _print
assert(slurp(logname) == 'hello 42\nprinted    1\nmore\n', slurp(logname))
xlua.log(logname)
io.write('fresh\n')
io.write, print = io._write, _print
assert(slurp(logname) == 'fresh\n', 'without append the file starts over')
os.remove(logname)
os.remove(base .. '/sub')
os.remove(base)
has(raises(xlua.log, 3), 'xlua.log')
has(raises(xlua.log, '/proc/no/such/dir/x.log'), 'xlua.log')

----------------------------------------------------------------------------------------------------
-- who and clearall
----------------------------------------------------------------------------------------------------
user_number = 42
user_table = { 1 }
function user_fn() end
rawset(_G, 'data', 'a user variable that has the name of a penlight module')
package.preload.xlua_extras_mod = function()
   xlua_extras_mod = { answer = 42 }
   return xlua_extras_mod
end
require 'xlua_extras_mod'
assert(rawget(_G, 'xlua_extras_mod') == package.loaded.xlua_extras_mod)
local x = torch.Tensor(3):fill(1) -- torch is loaded after xlua here
require 'nn'

local listing = capture(xlua.who)
has(listing, 'Global Libs:')
has(listing, 'Global Vars:')
has(listing, '[user_number] = 42')
has(listing, '[early_global] = early')
has(listing, '= string')
has(listing, '= torch')
assert(not listing:find('[print]', 1, true), listing)

xlua.clearall()
for _, k in ipairs { 'early_global', 'user_number', 'user_table', 'user_fn', 'data' } do
   assert(rawget(_G, k) == nil, k .. ' survived clearall')
end
-- a library stays loaded and global (torch classes cannot be defined twice, so nn could not be
-- loaded again)
assert(xlua_extras_mod == package.loaded.xlua_extras_mod and xlua_extras_mod.answer == 42)
assert(nn == package.loaded.nn and nn.Linear(2, 3):forward(torch.ones(2)):size(1) == 3)
assert(type(include) == 'function', "torch's global include stays")

-- the libraries and th's environment are untouched
assert(torch.Tensor(2):fill(3):sum() == 6 and x:sum() == 3)
assert(paths.dirp('.') and paths.basename('a/b') == 'b')
assert(type(sys.clock()) == 'number' and sys.COLORS)
assert(type(xlua.table2string) == 'function' and xlua.OptionParser and xlua.Profiler)
assert(xprint == xlua.print and xerror == xlua.error and xrequire == xlua.require)
assert(type(arg) == 'table' and type(who) == 'function' and type(print_old) == 'function')
assert(type(_preloaded_) == 'table')
assert(type(require) == 'function' and type(pcall) == 'function' and string.format('%d', 1) == '1')
assert(type(string.split) == 'function' and type(table.splice) == 'function')
assert(require('paths') == paths and require('torch') == torch and require('xlua') == xlua)

print('ok')
