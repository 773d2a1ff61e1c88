-- A rock in the shape of tds's: a plain CMake library that links TH when Torch is found.
package = "thlinked"
version = "scm-1"
source = { url = "file:///dev/null" }
description = { summary = "A rock that links TH, for luatorch's tests" }
dependencies = {}
build = {
   type = "cmake",
   variables = {
      CMAKE_PREFIX_PATH = "$(LUA_BINDIR)/..",
      LUA_CPATH = "$(LIBDIR)",
   },
}
