-- A Torch C rock in the shape of image's: ADD_TORCH_PACKAGE with C sources against TH/luaT.
package = "torchcmod"
version = "scm-1"
source = { url = "file:///dev/null" }
description = { summary = "A Torch C rock for luatorch's tests" }
dependencies = { "torch >= 7.0" }
build = {
   type = "command",
   build_command = [[
cmake -E make_directory build && cd build && cmake .. -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$(LUA_BINDIR)/.." -DCMAKE_INSTALL_PREFIX="$(PREFIX)" && $(MAKE)
   ]],
   install_command = "cd build && $(MAKE) install"
}
