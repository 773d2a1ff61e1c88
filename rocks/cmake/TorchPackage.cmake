# The macros Torch rocks call, for luatorch (see TorchConfig.cmake).

# Why a rock with C code cannot build here, named by what it asked for.
function(_luatorch_no_c what)
  message(FATAL_ERROR
    "luatorch: ${what} is C code against Torch7's TH/luaT libraries, which th does not offer "
    "yet: th has torch built in, so only rocks written in Lua install with luarocks for now "
    "(the Lua-only Torch rocks, such as nngraph, rnn, dpnn, torchx and torchnet, do)")
endfunction()

# ADD_TORCH_PACKAGE(package src luasrc [description]): the Lua files go to lua/<package>/ under the
# rock's prefix, flat, as with Torch7. C sources stop the build.
macro(ADD_TORCH_PACKAGE package src luasrc)
  if(NOT "${src}" STREQUAL "")
    _luatorch_no_c("the rock's module '${package}' (${src})")
  endif()
  if(NOT "${luasrc}" STREQUAL "")
    install(FILES ${luasrc} DESTINATION "${Torch_INSTALL_LUA_PATH_SUBDIR}/${package}")
  endif()
endmacro()

macro(ADD_TORCH_LIBRARY package type src)
  _luatorch_no_c("the rock's library '${package}'")
endmacro()

# Documentation targets: torch7's own cmake files no longer define this, old rocks still call it.
macro(ADD_TORCH_DOK)
endmacro()

# TH and luaT as names a rock may link, checked once the whole project is read: a rock that only
# links them when Torch is found (tds does) gets the same message as one that builds a package.
foreach(_luatorch_lib TH luaT)
  if(NOT TARGET ${_luatorch_lib})
    add_library(${_luatorch_lib} INTERFACE IMPORTED GLOBAL)
  endif()
endforeach()

function(_luatorch_targets dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    _luatorch_targets("${sub}" more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(_luatorch_check_links)
  _luatorch_targets("${CMAKE_SOURCE_DIR}" targets)
  foreach(target ${targets})
    get_target_property(libs ${target} LINK_LIBRARIES)
    if(libs)
      foreach(lib TH luaT)
        list(FIND libs ${lib} found)
        if(NOT found EQUAL -1)
          _luatorch_no_c("the rock's target '${target}', which links ${lib},")
        endif()
      endforeach()
    endif()
  endforeach()
endfunction()

if(NOT _luatorch_links_checked)
  set(_luatorch_links_checked TRUE)
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _luatorch_check_links)
endif()
