/* A minimal Lua C module, built by the tests against no headers: `th` must export the Lua C API. */
typedef struct lua_State lua_State;
typedef double lua_Number;
extern void lua_createtable(lua_State *L, int narr, int nrec);
extern void lua_pushnumber(lua_State *L, lua_Number n);
extern void lua_pushstring(lua_State *L, const char *s);
extern void lua_setfield(lua_State *L, int idx, const char *k);
extern lua_Number luaL_checknumber(lua_State *L, int narg);
extern void lua_pushcclosure(lua_State *L, int (*fn)(lua_State *), int n);

static int twice(lua_State *L) {
    lua_pushnumber(L, 2 * luaL_checknumber(L, 1));
    return 1;
}

int luaopen_cmodule(lua_State *L) {
    lua_createtable(L, 0, 2);
    lua_pushstring(L, "compiled C module");
    lua_setfield(L, -2, "name");
    lua_pushcclosure(L, twice, 0);
    lua_setfield(L, -2, "twice");
    return 1;
}
