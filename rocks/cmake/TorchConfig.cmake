# What FIND_PACKAGE(Torch) gives a Torch rock's CMakeLists.txt under luatorch. `th --setup-rocks`
# writes this file into <tree>/share/cmake/torch/ and registers that folder with CMake's user
# package registry, because the rockspecs point CMAKE_PREFIX_PATH at the Lua interpreter's prefix
# (/usr for Debian's luarocks), where no Torch lives.
#
# th has torch built in: there is no libTH or libluaT to link, so only the Lua side of a rock
# builds. Its Lua files install where Torch7's TorchConfig.cmake put them, and a rock with C code
# stops at configure time with a message saying so.

get_filename_component(Torch_CMAKE_DIR "${CMAKE_CURRENT_LIST_FILE}" PATH)
# The tree the rock installs into (luarocks' prefix for it is <tree>/lib/luarocks/rocks-5.1/<rock>/
# <version>), else the tree this file was written into: the registry entry names one tree, and a
# rock made into another still belongs to its own.
if(CMAKE_INSTALL_PREFIX MATCHES "^(.*)/lib/luarocks/rocks[^/]*/[^/]+/[^/]+/?$")
  set(Torch_INSTALL_PREFIX "${CMAKE_MATCH_1}")
else()
  get_filename_component(Torch_INSTALL_PREFIX "${Torch_CMAKE_DIR}/../../.." ABSOLUTE)
endif()

set(Torch_INSTALL_BIN_SUBDIR "bin")
set(Torch_INSTALL_MAN_SUBDIR "share/man")
set(Torch_INSTALL_LIB_SUBDIR "lib")
set(Torch_INSTALL_SHARE_SUBDIR "share")
set(Torch_INSTALL_INCLUDE_SUBDIR "include")
set(Torch_INSTALL_CMAKE_SUBDIR "share/cmake/torch")

# A rock's Lua and C-module destinations are relative to the prefix luarocks gives it
# (<tree>/lib/luarocks/rocks-5.1/<rock>/<version>), whose lua/ and lib/ luarocks then deploys into
# the tree. Torch7 expressed them relative to its own prefix and then made that the install
# prefix; rocks that install other files relative to CMAKE_INSTALL_PREFIX rely on the switch, so
# it is kept.
file(RELATIVE_PATH Torch_INSTALL_LUA_PATH_SUBDIR "${Torch_INSTALL_PREFIX}" "${CMAKE_INSTALL_PREFIX}/lua")
file(RELATIVE_PATH Torch_INSTALL_LUA_CPATH_SUBDIR "${Torch_INSTALL_PREFIX}" "${CMAKE_INSTALL_PREFIX}/lib")
set(CMAKE_INSTALL_PREFIX "${Torch_INSTALL_PREFIX}")

foreach(_luatorch_dir BIN MAN LIB SHARE INCLUDE CMAKE LUA_PATH LUA_CPATH)
  set(Torch_INSTALL_${_luatorch_dir} "${Torch_INSTALL_PREFIX}/${Torch_INSTALL_${_luatorch_dir}_SUBDIR}")
endforeach()

list(INSERT CMAKE_MODULE_PATH 0 "${Torch_CMAKE_DIR}")
include("${Torch_CMAKE_DIR}/TorchPackage.cmake")
include("${Torch_CMAKE_DIR}/TorchWrap.cmake")

set(Torch_FOUND TRUE)
message(STATUS "Found Torch7 in ${Torch_INSTALL_PREFIX} (luatorch: th has torch built in; Lua files only)")
