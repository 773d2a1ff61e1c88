-- Run by rocks/build.sh under the LuaJIT the modules are for: loads the staged luatorch/core.so
-- (which proves that this LuaJIT loads it) and writes, for each native module it holds, the Lua
-- file through which `require` finds that module in a luarocks tree.
local stage = assert(..., 'usage: luajit rocks/shims.lua STAGE')
package.cpath = stage .. '/lib/?.so'
local core = require 'luatorch.core'
for _, name in ipairs(core.names) do
   local path = stage .. '/lua/' .. name .. '.lua'
   local f = assert(io.open(path, 'w'))
   assert(f:write(([[
-- %s: a native module of luatorch. All of them live in one shared library, luatorch/core.so,
-- so that they share one copy of the Rust side. Written by luatorch's rocks/shims.lua.
if not jit then
   error("%s: luatorch's native modules need LuaJIT 2.1, not " .. _VERSION, 0)
end
return require('luatorch.core').open('%s')
]]):format(name, name, name)))
   assert(f:close())
end
