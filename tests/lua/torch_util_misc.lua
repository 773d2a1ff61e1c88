-- torch.packageLuaPath, torch.include, the global include, and the small luaT helpers.
local H = dofile('torch_test_helpers.lua')

-- Our own packages are compiled into th: their directory is '[luatorch]/<name>'.
H.eq(torch.packageLuaPath('torch'), '[luatorch]/torch', 'packageLuaPath(torch)')
H.eq(torch.packageLuaPath('paths'), '[luatorch]/paths', 'packageLuaPath(paths)')
H.eq(torch.packageLuaPath(), '[luatorch]', 'packageLuaPath() is the directory holding torch')
H.eq(torch.packageLuaPath('no_such_package_anywhere'), nil, 'unknown package')

-- Packages on disk are found through package.path.
local dir = torch.packageLuaPath('torch_util_pkg')
H.check(dir ~= nil and dir:match('torch_util_pkg$') ~= nil, 'disk package directory: ' .. tostring(dir))

-- include runs the file from the package's directory, each time it is called.
TORCH_UTIL_EXTRA_RUNS = nil
H.eq(torch.include('torch_util_pkg', 'extra.lua'), 'extra result', 'include returns the chunk result')
torch.include('torch_util_pkg', 'extra.lua')
H.eq(TORCH_UTIL_EXTRA_RUNS, 2, 'include runs the file every time')
-- An embedded file of our own packages.
local tensor_methods = torch.include('torch', 'Tensor.lua')
H.eq(type(tensor_methods), 'table', 'include of an embedded file')
H.eq(type(tensor_methods.repeatTensor), 'function', 'the embedded file ran')
H.fails_containing(function() torch.include('no_such_package_anywhere', 'x.lua') end, "torch.include: package 'no_such_package_anywhere' not found")
H.fails_containing(function() torch.include('torch', 'NoSuchFile.lua') end, "torch.include: package 'torch' has no file NoSuchFile.lua")
H.fails_containing(function() torch.include('torch') end, 'torch.include: expected (package name, file name), got (string, nil)')
H.fails_containing(function() torch.include('torch_util_pkg', 'missing.lua') end, 'missing.lua')

-- The global include(file) is relative to the calling file.
TORCH_UTIL_EXTRA_RUNS = 0
H.eq(include('torch_util_pkg/extra.lua'), 'extra result', 'global include')
H.eq(TORCH_UTIL_EXTRA_RUNS, 1, 'global include ran the file')

-- isequal: same object (tables, torch objects; storages by their memory).
local t = torch.Tensor(3)
H.check(torch.isequal(t, t), 'isequal same tensor')
H.check(not torch.isequal(t, torch.Tensor(3)), 'isequal different tensors')
H.check(torch.isequal(t:storage(), t:storage()), 'isequal storages of one tensor')
H.check(torch.isequal({}, {}) == false, 'isequal distinct tables')
H.check(not torch.isequal(1, 1), 'isequal of numbers is false')

-- version, setmetatable, getenv/setenv.
H.eq(torch.version(t), 1, 'version of a tensor')
H.eq(torch.version(torch.Timer()), 1, 'version of a class instance')
H.eq(torch.version({}), nil, 'version of a plain table')
local obj = torch.setmetatable({}, 'torch.CmdLine')
H.eq(torch.typename(obj), 'torch.CmdLine', 'setmetatable gives the class')
H.fails_containing(function() torch.setmetatable({}, 'NoClass') end, 'torch.setmetatable: unknown Torch class <NoClass>')
local function f() return torch_util_env_value end
local env = { torch_util_env_value = 'from env' }
torch.setenv(f, env)
H.eq(f(), 'from env', 'setenv')
H.check(torch.getenv(f) == env, 'getenv')

-- typename2id/id: one value per class.
H.check(torch.id(t) == torch.typename2id('torch.DoubleTensor'), 'id of a tensor')
H.check(torch.id(torch.FloatTensor()) ~= torch.id(t), 'ids differ between classes')
H.eq(torch.id({}), nil, 'id of a plain table')
H.eq(torch.typename2id('NoClass'), nil, 'typename2id of an unknown class')

-- torch.isatty and torch.getnumcores, as Torch7 has them (the test runs th with pipes).
H.eq(torch.isatty(io.stdout), false, 'isatty of a pipe')
H.eq(torch.isatty(io.stderr), false, 'isatty of a pipe (stderr)')
H.fails_containing(function() torch.isatty(1) end, 'torch.isatty: an open Lua file handle expected')
local cores = torch.getnumcores()
H.check(type(cores) == 'number' and cores >= 1 and cores % 1 == 0, 'getnumcores: ' .. tostring(cores))

print('ok')
