# ADD_TORCH_WRAP(target luafile): Torch7 generated C from a cwrap file here; C cannot build against
# luatorch yet (see TorchPackage.cmake).
macro(ADD_TORCH_WRAP target luafile)
  _luatorch_no_c("the rock's wrapper '${target}' (${luafile})")
endmacro()
