-- A small local rock for tests/luarocks.rs: two Lua modules and a C one (tests/lua/cmodule.c,
-- copied next to this file by the test), installed with `luarocks make` and then loaded by `th`.
package = "hello"
version = "scm-1"
-- Never fetched: `luarocks make` builds the directory it runs in.
source = {
   url = "file:///nonexistent/hello-scm-1.tar.gz",
}
description = {
   summary = "Two Lua modules and a C one, for luatorch's luarocks tests",
   license = "MIT",
}
dependencies = {
   "lua ~> 5.1",
}
build = {
   type = "builtin",
   modules = {
      hello = "hello.lua",
      ["hello.sub"] = "sub.lua",
      cmodule = "cmodule.c",
   },
}
