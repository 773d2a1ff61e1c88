-- A Torch rock in the shape of nngraph's and rnn's: a "command" build that runs CMake against
-- FIND_PACKAGE(Torch), and dependencies on packages th has built in.
package = "torchhello"
version = "scm-1"

source = {
   url = "file:///dev/null", -- luarocks make builds the checkout it runs in
}

description = {
   summary = "A pure-Lua Torch rock for luatorch's tests",
}

dependencies = {
   "torch >= 7.0",
   "nn >= 1.0",
   "tds >= 1.0",
   "moses >= 1.3.1",
}

build = {
   type = "command",
   build_command = [[
cmake -E make_directory build && cd build && cmake .. -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$(LUA_BINDIR)/.." -DCMAKE_INSTALL_PREFIX="$(PREFIX)" && $(MAKE)
   ]],
   install_command = "cd build && $(MAKE) install"
}
