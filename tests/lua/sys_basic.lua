-- sys: execute, clock, tic/toc, sleep, split, isNaN, COLORS, uname, ls, fpath.
assert(sys == require 'sys' and rawget(_G, 'sys') == sys)
local dir = assert(..., 'usage: sys_basic.lua DIR')

-- execute returns stdout and stderr of the whole command, trimmed
assert(sys.execute('echo hello') == 'hello')
assert(sys.execute('  printf "  a b  \\n\\n"') == 'a b')
assert(sys.execute('echo out; echo err 1>&2') == 'out\nerr')
assert(sys.execute('true') == '')
assert(sys.fexecute('echo one; echo two 1>&2') == 'one\ntwo')
assert(sys.fexecute('echo first; echo second', '*l') == 'first')
local ok, err = pcall(sys.execute)
assert(not ok and err:find('sys.execute', 1, true), tostring(err))

-- clock is wall time in seconds; it does not go back across a sleep
local c1 = sys.clock()
assert(type(c1) == 'number' and c1 > 1.5e9, tostring(c1))
assert(math.abs(c1 - os.time()) < 5)
sys.usleep(1000)
sys.sleep(0.001)
sys.sleep(0)
sys.sleep(-1)
local c2 = sys.clock()
assert(c2 >= c1, 'clock went back')
ok, err = pcall(sys.sleep, 'soon')
assert(not ok and err:find('sys.sleep', 1, true), tostring(err))
sys.tic()
local dt = sys.toc()
assert(type(dt) == 'number' and dt >= 0)

-- platform
assert(sys.uname() == 'linux' and sys.OS == 'linux')
assert(type(sys.prefix) == 'string' and sys.prefix ~= '')
assert(sys.dirname == paths.dirname and sys.concat == paths.concat)
assert(sys.isatty(1) == false, 'stdout is a pipe in the tests')

-- ls
local f = assert(io.open(paths.concat(dir, 'listed.txt'), 'w'))
f:close()
assert(sys.ls(dir) == 'listed.txt')
assert(sys.la(dir):find('listed.txt', 1, true))
assert(sys.ll(dir):find('listed.txt', 1, true))
assert(sys.lla(dir):find('..', 1, true))

-- fpath
local d, name = sys.fpath()
assert(name == 'sys_basic.lua', tostring(name))
assert(d:match('/tests/lua$'), tostring(d))

-- split and isNaN
local t = sys.split('a,b,,c', ',')
assert(#t == 4 and t[1] == 'a' and t[2] == 'b' and t[3] == '' and t[4] == 'c')
assert(sys.isNaN(0 / 0) and not sys.isNaN(1) and not sys.isNaN(math.huge))

-- COLORS: ANSI escapes, whether or not stdout is a terminal
local C = sys.COLORS
assert(C.none == '\27[0m')
assert(C.black == '\27[0;30m' and C.red == '\27[0;31m' and C.white == '\27[0;37m')
assert(C.Black == '\27[1;30m' and C.Green == '\27[1;32m' and C.White == '\27[1;37m')
assert(C._black == '\27[40m' and C._cyan == '\27[46m' and C._white == '\27[47m')
for _, k in ipairs { 'yellow', 'blue', 'magenta', 'cyan', 'Red', 'Yellow', 'Blue', 'Magenta', 'Cyan',
   '_red', '_green', '_yellow', '_blue', '_magenta' } do
   assert(type(C[k]) == 'string' and C[k]:sub(1, 1) == '\27', k)
end
print('ok')
