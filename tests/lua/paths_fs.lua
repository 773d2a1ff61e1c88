-- mkdir, dir, files, iterdirs, iterfiles, rmdir, rmall, thisfile and dofile, in the directory
-- given as the first argument (the test runs with that directory as cwd).
local root = assert(..., 'usage: paths_fs.lua DIR')
assert(paths.dirp(root) and not paths.filep(root))

local function touch(p, text)
   local f = assert(io.open(p, 'w'))
   f:write(text or 'x')
   f:close()
end

local function sorted(iter)
   local t = {}
   for name in iter do t[#t + 1] = name end
   table.sort(t)
   return table.concat(t, ',')
end

-- mkdir creates missing parents; an existing directory is an error result, not a raised error
local deep = paths.concat(root, 'a', 'b', 'c')
assert(paths.mkdir(deep) == true)
assert(paths.dirp(deep))
local ok, msg = paths.mkdir(deep)
assert(ok == nil and msg:find('File exists'), tostring(msg))

touch(paths.concat(root, 'one.txt'))
touch(paths.concat(root, 'two.lua'))
touch(paths.concat(root, 'a', 'inner.txt'))
assert(paths.mkdir(paths.concat(root, 'd2')))

assert(paths.filep(paths.concat(root, 'one.txt')))
assert(not paths.dirp(paths.concat(root, 'one.txt')))
assert(not paths.filep(paths.concat(root, 'missing')) and not paths.dirp(paths.concat(root, 'missing')))

-- dir lists everything, . and .. included; nil for a non-directory
local list = paths.dir(root)
assert(type(list) == 'table')
table.sort(list)
assert(table.concat(list, ',') == '.,..,a,d2,one.txt,two.lua', table.concat(list, ','))
assert(paths.dir(paths.concat(root, 'missing')) == nil)
assert(paths.dir(paths.concat(root, 'one.txt')) == nil)

-- files with no filter, a pattern, a function
assert(sorted(paths.files(root)) == '.,..,a,d2,one.txt,two.lua')
assert(sorted(paths.files(root, '%.txt$')) == 'one.txt')
assert(sorted(paths.files(root, function(n) return n:sub(1, 1) == 't' end)) == 'two.lua')
assert(sorted(paths.files(paths.concat(root, 'missing'))) == '')
assert(not pcall(paths.files, root, 42))
assert(sorted(paths.iterdirs(root)) == 'a,d2')
assert(sorted(paths.iterfiles(root)) == 'one.txt,two.lua')
-- relative to the cwd, which is root
assert(sorted(paths.iterfiles('.')) == 'one.txt,two.lua')

-- rmdir only removes empty directories
ok, msg = paths.rmdir(paths.concat(root, 'a'))
assert(ok == nil and type(msg) == 'string', 'rmdir of a non-empty dir must fail')
assert(paths.rmdir(paths.concat(root, 'd2')) == true)
assert(not paths.dirp(paths.concat(root, 'd2')))

-- rmall wants 'yes', and does not follow symbolic links
ok, msg = paths.rmall(paths.concat(root, 'a'))
assert(ok == nil and msg:find('yes'), tostring(msg))
assert(paths.dirp(paths.concat(root, 'a')))
assert(paths.mkdir(paths.concat(root, 'keep')))
touch(paths.concat(root, 'keep', 'precious'))
os.execute('ln -s ' .. paths.concat(root, 'keep') .. ' ' .. paths.concat(root, 'a', 'link'))
assert(paths.rmall(paths.concat(root, 'a'), 'yes') == true)
assert(not paths.dirp(paths.concat(root, 'a')))
assert(paths.filep(paths.concat(root, 'keep', 'precious')), 'rmall followed a symlink')
assert(paths.rmall(paths.concat(root, 'one.txt'), 'yes') == true)
assert(not paths.filep(paths.concat(root, 'one.txt')))
ok, msg = paths.rmall(paths.concat(root, 'missing'), 'yes')
assert(ok == nil and msg == 'not a file or directory')

-- thisfile and dofile resolve against this script, not against the cwd
local here = paths.thisfile()
assert(here:match('/tests/lua/paths_fs%.lua$'), here)
assert(paths.thisfile('x.lua') == paths.concat(paths.dirname(here), 'x.lua'))
assert(paths.cwd() == paths.concat(root), 'the test runs in its directory')
local v = paths.dofile('paths_dofile_target.lua')
assert(v == 'target loaded', tostring(v))
print('ok')
