-- trepl's environment is there without any require.
assert(type(paths) == 'table', 'paths global')
assert(type(sys) == 'table', 'sys global')
assert(type(xlua) == 'table', 'xlua global')
assert(type(print_old) == 'function', 'print_old')
assert(type(import) == 'function' and type(who) == 'function' and type(setprintlevel) == 'function')
assert(type(require 'ffi') == 'table', 'ffi')
assert(type(jit) == 'table' and jit.version:find('LuaJIT 2.1'), 'jit')
assert(type(bit) == 'table' and bit.band(7, 3) == 3, 'bit')
assert(type(debug.getinfo) == 'function', 'debug')
-- Torch gave LuaJIT the Lua 5.2 names table.unpack and string.gfind, before any script ran.
assert(table.unpack == unpack and string.gfind == string.gmatch, "table.unpack and string.gfind")
print('globals ok')
