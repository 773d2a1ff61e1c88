-- The Lua 5.2 behaviour Torch's own LuaJIT had (built with LUAJIT_ENABLE_LUA52COMPAT), which
-- rocks rely on: each line checks one point.
local function check(cond, what) if not cond then error(what, 2) end end

-- table.pack and table.unpack
local p = table.pack(1, nil, 3)
check(p.n == 3 and p[1] == 1 and p[3] == 3, 'table.pack')
check(select('#', table.unpack({ 1, 2, 3 })) == 3, 'table.unpack')

-- __pairs and __ipairs (tds's Hash iterates through __pairs)
local proxied = setmetatable({}, { __pairs = function(t)
   return function(_, k) if k == nil then return 'only', 42 end end, t, nil
end })
local seen = {}
for k, v in pairs(proxied) do seen[k] = v end
check(seen.only == 42, '__pairs')
local ip = setmetatable({}, { __ipairs = function(t)
   return function(_, i) if i < 2 then return i + 1, (i + 1) * 10 end end, t, 0
end })
local sum = 0
for _, v in ipairs(ip) do sum = sum + v end
check(sum == 30, '__ipairs')

-- __len on tables
check(#setmetatable({}, { __len = function() return 7 end }) == 7, '__len on a table')

-- os.execute and a popen'd file's close give (ok, "exit", code)
local ok, how, code = os.execute('exit 3')
check(ok == nil and how == 'exit' and code == 3, 'os.execute failure: ' .. tostring(ok) .. ' ' .. tostring(how) .. ' ' .. tostring(code))
ok, how, code = os.execute('true')
check(ok == true and how == 'exit' and code == 0, 'os.execute success')
local f = io.popen('echo hi; exit 5')
check(f:read('*l') == 'hi', 'popen read')
ok, how, code = f:close()
check(ok == nil and how == 'exit' and code == 5, 'popen close: ' .. tostring(ok) .. ' ' .. tostring(how) .. ' ' .. tostring(code))
f = io.popen('true')
ok, how, code = f:close()
check(ok == true and how == 'exit' and code == 0, 'popen close success')

-- goto and labels, \z escapes, string.rep's separator
local n = 0
::again::
n = n + 1
if n < 3 then goto again end
check(n == 3, 'goto')
check("a\z
       b" == 'ab', '\\z escape')
check(string.rep('ab', 3, ',') == 'ab,ab,ab', 'string.rep separator')

-- load takes a string and an environment; package.searchers is there
local env = { x = 5 }
check(load('return x', 'chunk', 't', env)() == 5, 'load with env')
check(type(package.searchers) == 'table', 'package.searchers')

print('ok')
