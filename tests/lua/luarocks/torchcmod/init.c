#include <luaT.h>
#include <TH.h>

int luaopen_libtorchcmod(lua_State *L) {
  THFloatTensor *t = luaT_checkudata(L, 1, "torch.FloatTensor");
  lua_pushnumber(L, THFloatTensor_nElement(t));
  return 1;
}
