return 'from LUA_PATH'
