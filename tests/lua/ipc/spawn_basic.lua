-- ipc.spawn: arguments, environment, the three stdout modes, stdin, exit codes, signals, running,
-- pid, and every error. The environment variable SPAWN_TEST_VAR is set by tests/ipc_spawn.rs.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'spawn_helpers'
local ipc = require 'libipc'

local function run(file, args, env)
   return ipc.spawn({ file = file, args = args, env = env })
end

-- Everything a program prints, and its exit code.
local function output(file, args, env)
   local p = run(file, args, env)
   local out = p:stdout('*a')
   return out, p:wait()
end

H.run {
   stdoutAll = function()
      local p = run('echo', { 'what', 'up', 'dawg' })
      H.eq(type(p:stdoutFileId()), 'number', 'stdoutFileId')
      H.eq(p:stdout('*a'), 'what up dawg\n', '*a')
      H.eq(select('#', p:stdout('*a')), 0, 'values returned at EOF')
      H.eq(p:stdout('*all'), nil, '*all at EOF')
      H.eq(p:stdout('*l'), nil, '*l at EOF')
      H.eq(p:stdout(10), nil, 'n at EOF')
      H.eq(p:wait(), 0, 'exit code')
      -- Any string that is not a line mode reads everything.
      p = run('printf', { 'a\nb\n' })
      H.eq(p:stdout('whatever'), 'a\nb\n', 'other string')
      H.eq(p:wait(), 0, 'exit code')
      -- No output at all: nothing, not an empty string.
      p = run('true')
      H.eq(select('#', p:stdout('*a')), 0, '*a of an empty output')
      H.eq(p:wait(), 0, 'exit code')
   end,

   stdoutLines = function()
      local p = run('printf', { 'one\n\nthree\nlast' })
      H.eq(p:stdout('*l'), 'one', 'first line')
      H.eq(p:stdout('*line'), '', 'empty line')
      H.eq(p:stdout(), 'three', 'default mode is a line')
      H.eq(p:stdout('*l'), 'last', 'a partial last line')
      H.eq(select('#', p:stdout('*l')), 0, 'values at EOF')
      H.eq(p:wait(), 0, 'exit code')
      -- Lines and bytes mix: nothing is held back in a buffer.
      p = run('printf', { 'ab\ncdef' })
      H.eq(p:stdout('*l'), 'ab', 'line')
      H.eq(p:stdout('*a'), 'cdef', 'the rest')
      H.eq(p:wait(), 0, 'exit code')
   end,

   stdoutBytes = function()
      local p = run('printf', { 'abcdefgh' })
      local got, reads = {}, 0
      while true do
         local s = p:stdout(3)
         if s == nil then break end
         H.check(#s >= 1 and #s <= 3, 'a read of up to 3 bytes returned %d', #s)
         got[#got + 1] = s
         reads = reads + 1
      end
      H.eq(table.concat(got), 'abcdefgh', 'bytes')
      H.check(reads >= 3, 'at least 3 reads, got %d', reads)
      H.eq(p:wait(), 0, 'exit code')
      p = run('echo', { 'what', 'up', 'dawg' })
      H.eq(p:stdout(256), 'what up dawg\n', 'one read')
      H.eq(p:stdout(256), nil, 'EOF')
      H.eq(p:wait(), 0, 'exit code')
      -- A fractional count is truncated.
      p = run('printf', { 'xy' })
      H.eq(p:stdout(1.9), 'x', '1.9 bytes')
      H.eq(p:stdout('*a'), 'y', 'the rest')
      H.eq(p:wait(), 0, 'exit code')
   end,

   arguments = function()
      H.eq(output('echo', { 1, 2.5, -3, 'x y' }), '1 2.5 -3 x y\n', 'numbers and strings')
      H.eq(output('echo'), '\n', 'no args')
      H.eq(output('echo', {}), '\n', 'empty args')
      -- argv[0] is `file` as given, found through PATH.
      local cmd = 'tr "\\0" "|" < /proc/$$/cmdline'
      H.eq(output('sh', { '-c', cmd }), 'sh|-c|' .. cmd .. '|', 'argv')
      H.eq(output('sh', { '-c', cmd }, { 'X=1' }), 'sh|-c|' .. cmd .. '|', 'argv with env')
      -- A name with a slash is a path.
      H.eq(output('/bin/echo', { 'direct' }), 'direct\n', 'direct path')
      -- Bytes that are not UTF-8 go through.
      H.eq(output('printf', { '\255\001' }), '\255\001', 'raw bytes')
   end,

   environment = function()
      H.eq(output('printenv', { 'SOME_VAR' }, { 'SOME_VAR=42' }), '42\n', 'printenv')
      -- The list replaces the environment (order kept, '=' in values kept), and the program is
      -- still found through this process's PATH.
      H.eq(output('env', nil, { 'A=1', 'B=x=y', 'C=' }), 'A=1\nB=x=y\nC=\n', 'env replaced')
      local out, code = output('printenv', { 'SPAWN_TEST_VAR' }, { 'OTHER=1' })
      H.eq(out, nil, 'a replaced environment drops the rest')
      H.eq(code, 1, 'printenv of a missing variable')
      -- No list, or an empty one, inherits.
      H.eq(output('printenv', { 'SPAWN_TEST_VAR' }), 'inherited\n', 'inherited')
      H.eq(output('printenv', { 'SPAWN_TEST_VAR' }, {}), 'inherited\n', 'empty env inherits')
   end,

   stdin = function()
      local p = run('tee')
      p:stdin('a\n')
      p:stdin('b\n')
      p:stdin('c\n')
      p:stdin('d')
      p:stdin()
      H.eq(p:stdout('*line'), 'a', 'line 1')
      H.eq(p:stdout('*line'), 'b', 'line 2')
      H.eq(p:stdout('*line'), 'c', 'line 3')
      H.eq(p:stdout('*line'), 'd', 'line 4')
      H.eq(p:stdout(), nil, 'EOF')
      H.eq(p:wait(), 0, 'exit code')
      -- Numbers are written as Lua prints them; closing twice is harmless; writing after closing
      -- raises.
      p = run('cat')
      p:stdin(42)
      p:stdin(' ')
      p:stdin(1.5)
      p:stdin('')
      p:stdin()
      p:stdin()
      H.raises('write after close', function() p:stdin('x') end, 'ipc.spawn:stdin', 'stdin was already closed')
      H.eq(p:stdout('*a'), '42 1.5', 'cat')
      H.eq(p:wait(), 0, 'exit code')
      p = run('cat')
      H.raises('stdin(table)', function() p:stdin({}) end, 'expected a string', 'table')
      H.raises('stdin(nil)', function() p:stdin(nil) end, 'expected a string', 'nil')
      H.eq(p:wait(), 0, 'cat ends when wait closes its stdin')
      -- A large write goes through whole.
      p = run('wc', { '-c' })
      p:stdin(string.rep('x', 3 * 1024 * 1024 + 7))
      p:stdin()
      H.eq(tonumber(p:stdout('*l')), 3 * 1024 * 1024 + 7, 'bytes counted')
      H.eq(p:wait(), 0, 'exit code')
      -- Writing to a program that is gone raises instead of killing th with SIGPIPE.
      p = run('true')
      H.eq(p:stdout('*a'), nil, 'true prints nothing')
      H.check(H.eventually(function() return not p:running() end), 'true did not end')
      H.raises('write to a dead child', function() p:stdin(string.rep('x', 1024 * 1024)) end, 'Broken pipe')
      H.eq(p:wait(), 0, 'exit code')
   end,

   exitCodes = function()
      local _, code = output('sh', { '-c', 'exit 7' })
      H.eq(code, 7, 'exit 7')
      _, code = output('false')
      H.eq(code, 1, 'false')
      _, code = output('bash', { '-c', 'ls /this/will/never/exist/so/crazy 2> /dev/null' })
      H.check(code ~= 0, 'ls of a missing path exited 0')
      -- A child ended by a signal (here its own) gives 0, as in torch-ipc.
      _, code = output('sh', { '-c', 'kill -KILL $$' })
      H.eq(code, 0, 'killed by a signal')
      -- wait drains what the child still has to write, so a child blocked on a full pipe ends.
      local p = run('sh', { '-c', 'head -c 300000 /dev/zero; exit 3' })
      H.eq(p:wait(), 3, 'exit code after draining')
      -- stderr is inherited (tests/ipc_spawn.rs looks for this line).
      _, code = output('sh', { '-c', 'echo spawn-stderr-line >&2' })
      H.eq(code, 0, 'stderr program')
   end,

   signals = function()
      local p = run('sleep', { 100 })
      H.eq(p:running(), true, 'running')
      H.eq(p:wait('KILL'), 0, 'KILL')
      p = run('sleep', { 100 })
      H.eq(p:wait('TERM'), 0, 'TERM')
      -- With a signal, unread output is dropped rather than read.
      p = run('yes')
      H.eq(p:stdout('*l'), 'y', 'yes')
      H.eq(p:wait('TERM'), 0, 'TERM to a writer')
      -- An unknown signal raises and leaves the process usable.
      p = run('sleep', { 100 })
      H.raises('HUP', function() p:wait('HUP') end, 'ipc.spawn:wait', 'unknown signal')
      H.raises('number', function() p:wait(9) end, 'unknown signal')
      H.raises('table', function() p:wait({}) end, 'unknown signal')
      H.eq(p:running(), true, 'still running')
      H.eq(p:wait('KILL'), 0, 'KILL after the errors')
   end,

   runningAndPid = function()
      -- cat runs until its stdin closes: running() is true until then, whatever the timing.
      local p = run('cat')
      local pid = p:pid()
      H.eq(type(pid), 'number', 'pid')
      H.check(H.alive(pid), 'no process %d', pid)
      -- Our child, and (once its exec has finished setting up) cat.
      local f = assert(io.open('/proc/' .. pid .. '/stat'))
      H.eq(tonumber(f:read('*l'):match('.*%) %S+ (%d+)')), H.pid(), 'parent of the child')
      f:close()
      local function cmdline()
         local f = io.open('/proc/' .. pid .. '/cmdline')
         local s = f and f:read('*a')
         if f then f:close() end
         return s
      end
      H.check(H.eventually(function() return cmdline() == 'cat\0' end), 'the child is not cat: %q', cmdline())
      H.eq(p:running(), true, 'running')
      H.eq(p:running(), true, 'running again')
      p:stdin()
      H.eq(p:stdout('*a'), nil, 'no output')
      H.check(H.eventually(function() return not p:running() end), 'cat did not end')
      -- running() does not reap: the zombie is still there for wait.
      H.eq(p:running(), false, 'still not running')
      H.eq(p:pid(), pid, 'same pid')
      H.eq(p:wait(), 0, 'exit code')
      H.eq(io.open('/proc/' .. pid .. '/stat'), nil, 'reaped by wait')
   end,

   closedAfterWait = function()
      local p = run('true')
      H.eq(p:wait(), 0, 'exit code')
      local calls = {
         stdin = function() p:stdin('x') end,
         stdinClose = function() p:stdin() end,
         stdout = function() p:stdout() end,
         stdoutFileId = function() p:stdoutFileId() end,
         pid = function() p:pid() end,
         running = function() p:running() end,
         wait = function() p:wait() end,
         waitKill = function() p:wait('KILL') end,
      }
      for name, fn in pairs(calls) do
         H.raises(name, fn, 'spawn was already closed')
      end
   end,

   misuse = function()
      local bad = 'expected a single table argument'
      H.raises('no argument', function() ipc.spawn() end, 'ipc.spawn: ', bad)
      H.raises('a string', function() ipc.spawn('echo') end, bad)
      H.raises('two tables', function() ipc.spawn({ file = 'echo' }, {}) end, bad)
      H.raises('no file', function() ipc.spawn({}) end, 'file: expected a string', 'nil')
      H.raises('file function', function() ipc.spawn({ file = function() return 'echo' end }) end,
         'file: expected a string', 'function')
      H.raises('file number', function() ipc.spawn({ file = 42 }) end, 'file: expected a string')
      H.raises('args string', function() ipc.spawn({ file = 'echo', args = 'what' }) end,
         'args: expected a table, or nil', 'string')
      H.raises('args item', function() ipc.spawn({ file = 'echo', args = { 'a', {} } }) end,
         'args[2]: expected a string or a number', 'table')
      H.raises('env string', function() ipc.spawn({ file = 'env', env = 'A=1' }) end,
         'env: expected a table, or nil')
      H.raises('env item', function() ipc.spawn({ file = 'env', env = { true } }) end,
         'env[1]: expected a string or a number')
      H.raises('env without =', function() ipc.spawn({ file = 'env', env = { 'NOEQUALS' } }) end,
         'env: expected "NAME=value" strings', 'NOEQUALS')
      H.raises('env with an empty name', function() ipc.spawn({ file = 'env', env = { '=x' } }) end,
         'NAME=value')
      local p = run('echo', { 'x' })
      H.raises('stdout(table)', function() p:stdout({}) end, "expected '*l', '*a' or a number of bytes")
      H.raises('stdout(0)', function() p:stdout(0) end, 'expected a positive number of bytes')
      H.raises('stdout(-1)', function() p:stdout(-1) end, 'expected a positive number of bytes')
      H.raises('stdout(nan)', function() p:stdout(0 / 0) end, 'expected a positive number of bytes')
      H.eq(p:stdout('*a'), 'x\n', 'still readable after the errors')
      H.eq(p:wait(), 0, 'exit code')
   end,

   startFailures = function()
      H.raises('missing program', function() ipc.spawn({ file = 'no_such_program_4711' }) end,
         "ipc.spawn: cannot start 'no_such_program_4711'", 'No such file')
      H.raises('missing program, own env', function()
         ipc.spawn({ file = 'no_such_program_4711', env = { 'A=1' } })
      end, "cannot start 'no_such_program_4711'", 'No such file')
      H.raises('missing path', function() ipc.spawn({ file = '/no/such/dir/prog' }) end, 'No such file')
      local name = os.tmpname()
      local f = assert(io.open(name, 'w'))
      f:write('#!/bin/sh\necho hi\n')
      f:close()
      H.raises('not executable', function() ipc.spawn({ file = name }) end, 'Permission denied')
      os.execute('chmod +x ' .. name)
      H.eq(output(name), 'hi\n', 'executable script')
      os.remove(name)
      H.raises('a NUL in an argument', function() ipc.spawn({ file = 'echo', args = { 'a\0b' } }) end,
         "cannot start 'echo'")
   end,
}
