-- Run by tests/luarocks.rs under `th` and under a stock `luajit` with a luarocks tree on its paths:
-- both runs must write the same lines. arg[1..n] name optional modules to require as well (cutorch,
-- nccl, once they exist); their outcome, success or the error message, must match too.
-- Writes with io.write: th's print is trepl's, which prints tables differently.
local function out(...)
   local parts = { ... }
   for i = 1, select('#', ...) do parts[i] = tostring(parts[i]) end
   io.write(table.concat(parts, '\t'), '\n')
end

-- The error message of f(...), without the position of the caller (a file path that differs).
local function err(f, ...)
   local ok, e = pcall(f, ...)
   if ok then return 'no error' end
   return type(e) .. ': ' .. tostring(e):gsub('^[^:]*%.lua:%d+: ', '')
end

local torch = require 'torch'
local paths = require 'paths'
local sys = require 'sys'
local parallel = require 'parallel'
local libipc = require 'libipc'
local ipc = require 'ipc'
out('modules', type(torch), type(paths), type(sys), type(parallel), type(libipc), ipc == libipc)
out('globals', rawget(_G, 'torch') == torch, rawget(_G, 'paths') == paths, rawget(_G, 'sys') == sys,
   rawget(_G, 'parallel') == parallel)

-- torch
torch.manualSeed(7)
local a = torch.randn(2, 3)
out('randn', a)
local b = torch.FloatTensor({ { 1, 2 }, { 3, 4 } })
out('mm', torch.mm(b, b))
out('ops', b:sum(), b:max(), b:t():clone():storage():size(), torch.typename(b), b:type())
out('double', torch.DoubleTensor(3):fill(0.5):cumsum())
out('long', torch.LongTensor({ 3, 1, 2 }):sort())
out('default type', torch.getdefaulttensortype(), torch.Tensor(2):type())
local s = torch.serialize({ x = b, n = 3, name = 'obj' })
local back = torch.deserialize(s)
out('serialize', #s, back.n, back.name, back.x:equal(b))
out('bad resize', err(b.resize, b, 'x'))
out('bad add', err(function() return b + 'x' end))
out('bad cat', err(torch.cat, b, torch.FloatTensor(3), 1))
out('isTensor', torch.isTensor(b), torch.isTensor({}), torch.isStorage(b:storage()))

-- paths and sys
out('paths', paths.concat('/a', 'b', '../c'), paths.basename('/x/y.lua', 'lua'), paths.dirname('/x/y.lua'))
out('paths fs', paths.dirp('/'), paths.filep('/'), paths.filep('/no/such/file'))
out('paths bad', err(paths.concat, {}))
out('sys', type(sys.clock()), sys.execute('echo hi'), table.concat(sys.split('a,b,c', ','), '+'))
out('sys bad', err(sys.split, nil, ','))

-- parallel (no children here) and ipc in this process
out('parallel', parallel.id, parallel.nchildren, type(parallel.fork), type(parallel.children))
local c = ipc.channel()
c:write({ 1, 'two', b })
local status, got = c:read()
out('channel', status, got[1], got[2], got[3]:equal(b))
local answers = { ipc.map(2, function(x, id) return x * id end, 21):join() }
out('map', answers[1], answers[2])
local m = ipc.mutex()
m:lock()
m:unlock()
out('marshal', ipc.marshal({ k = 'v' }):read().k)

for _, name in ipairs(arg) do
   local ok, e = pcall(require, name)
   out('optional ' .. name, ok and ('loaded ' .. type(e)) or tostring(e):gsub('^[^:]*%.lua:%d+: ', ''))
end
out('done')
