-- paths.concat, dirname, basename and extname: pure path arithmetic.
local cwd = paths.cwd()
assert(type(cwd) == 'string' and cwd:sub(1, 1) == '/', 'cwd is absolute: ' .. tostring(cwd))

local function eq(got, want, what)
   if got ~= want then
      error(string.format('%s: expected %q, got %q', what, tostring(want), tostring(got)), 2)
   end
end

-- concat is absolute and starts from the current directory
eq(paths.concat(), cwd, 'concat()')
eq(paths.concat('a', 'b'), cwd .. '/a/b', "concat('a','b')")
eq(paths.concat('a/', 'b/'), cwd .. '/a/b', 'trailing slashes')
eq(paths.concat('.'), cwd, "concat('.')")
eq(paths.concat(''), cwd, "concat('')")
eq(paths.concat('a', '..'), cwd, "concat('a','..')")
eq(paths.concat('..'), paths.dirname(cwd), "concat('..')")
-- an absolute argument resets
eq(paths.concat('a', '/x/y'), '/x/y', 'absolute resets')
eq(paths.concat('/x', 'y', '/z', 'w'), '/z/w', 'last absolute wins')
-- . and .. resolved, // collapsed, trailing / stripped
eq(paths.concat('/x//y/./z/'), '/x/y/z', 'collapse')
eq(paths.concat('/x/y/../z'), '/x/z', 'dotdot')
eq(paths.concat('/x', '../../..'), '/', 'dotdot stops at root')
eq(paths.concat('/'), '/', 'root')
eq(paths.concat('//'), '/', 'double root')
eq(paths.concat('/x/', './', 'y/.', '..', 'z'), '/x/z', 'mixed')
eq(paths.concat('/a', 1, 'b'), '/a/1/b', 'numbers as strings')

-- dirname
eq(paths.dirname('/a/b/c'), '/a/b', 'dirname')
eq(paths.dirname('/a/b/c/'), '/a/b', 'dirname trailing slash')
eq(paths.dirname('a'), '.', 'dirname of a name')
eq(paths.dirname('/a'), '/', 'dirname at root')
eq(paths.dirname('/'), '/', 'dirname of root')
eq(paths.dirname('a/b'), 'a', 'dirname relative')

-- basename
eq(paths.basename('/a/b/c.lua'), 'c.lua', 'basename')
eq(paths.basename('/a/b/c.lua', 'lua'), 'c', 'basename suffix')
eq(paths.basename('/a/b/c.lua', '.lua'), 'c', 'basename .suffix')
eq(paths.basename('/a/b/c.lua', 'txt'), 'c.lua', 'basename other suffix')
eq(paths.basename('/a/b/'), 'b', 'basename trailing slash')
eq(paths.basename('c'), 'c', 'basename of a name')

-- extname: no dot, nil when there is none
eq(paths.extname('/a/b/c.lua'), 'lua', 'extname')
eq(paths.extname('x.tar.gz'), 'gz', 'extname double')
eq(paths.extname('/a.d/noext'), nil, 'extname none (dot in dir)')
eq(paths.extname('noext'), nil, 'extname none')

-- bad arguments: errors naming the function
local ok, err = pcall(paths.concat, 'a', {})
assert(not ok and type(err) == 'string' and err:find('paths.concat', 1, true), tostring(err))
ok, err = pcall(paths.dirname)
assert(not ok and err:find('paths.dirname', 1, true), tostring(err))
ok, err = pcall(paths.filep, nil)
assert(not ok and err:find('paths.filep', 1, true), tostring(err))

-- platform
assert(paths.is_win() == false and paths.is_mac() == false)
assert(paths.uname() == 'Linux')
eq(paths.home, os.getenv('HOME') or '.', 'home')
assert(type(paths.execdir()) == 'string' and paths.dirp(paths.execdir()))
local sh = paths.findprogram('no-such-program-xyz', 'sh')
assert(sh and sh:match('/sh$') and paths.filep(sh), tostring(sh))
assert(paths.findprogram('no-such-program-xyz') == nil)
assert(paths.require('paths') == paths)
print('ok')
