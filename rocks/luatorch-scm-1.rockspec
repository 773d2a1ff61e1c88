-- luatorch as one rock: torch, paths, sys, parallel, ipc (and every other native module and Lua
-- file of the project) as Lua C modules and Lua files for a stock LuaJIT 2.1, plus the `th` binary.
-- Why one rock and how the build goes: README.md, "Installing with luarocks".
rockspec_format = "3.0"
package = "luatorch"
version = "scm-1"

-- Where `luarocks pack` and `luarocks build` of this file fetch the sources; `luarocks make` in a
-- checkout, and the .src.rock of rocks/pack.sh, need no fetching.
source = {
   url = "git+https://github.com/luatorch/luatorch.git",
}

description = {
   summary = "A Torch7-style runtime: torch, paths, sys, parallel and ipc for LuaJIT, and the th interpreter",
   detailed = [[
The Rust implementation of Torch7's core packages, built as Lua C modules (mlua, feature `module`)
for a stock LuaJIT 2.1, with their Lua files and the standalone `th` binary; among them image
(torch/image: PNG, JPEG and PPM I/O, geometry, colour, filtering), whose libimage is one of the
native modules.
Building needs cargo (Rust 1.88 or newer) and a LuaJIT 2.1.
]],
   license = "MIT",
}

-- The modules use the Lua 5.1 API and LuaJIT (ffi): luarocks for another Lua stops here.
dependencies = {
   "lua ~> 5.1",
}

build = {
   type = "command",
   -- rocks/build.sh checks for cargo and LuaJIT, builds with cargo and stages what goes into the
   -- tree; a failure stops luarocks with a message, and luarocks then removes the rock's directory.
   build_command = [[sh rocks/build.sh build "$(LUA)" "$(LUA_BINDIR)"]],
   install_command = [[sh rocks/build.sh install "$(LUADIR)" "$(LIBDIR)" "$(BINDIR)"]],
}
