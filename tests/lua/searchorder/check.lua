-- Run from searchorder/local with HOME=searchorder/home; arg[1] is what `which` must resolve to.
package.loaded.libsys = nil
assert(type(require 'libsys') == 'table', 'a native module comes before ./?.lua')
package.loaded['trepl.colorize'] = nil
assert(type(require 'trepl.colorize') == 'table', 'an embedded module comes before ./?.lua')
assert(require 'which' == arg[1], 'which: got ' .. tostring(package.loaded.which) .. ', want ' .. arg[1])
assert(require 'pkg' == 'pkg init', './?/init.lua')
assert(require 'onlyrocks' == 'only in rocks tree', 'the ~/.luarocks tree')
local ok, err = pcall(require, 'no_such_module_anywhere')
assert(not ok and err:find("module 'no_such_module_anywhere' not found"), tostring(err))
print('search order ok')
