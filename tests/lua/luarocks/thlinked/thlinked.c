int luaopen_thlinked(void *L) { (void)L; return 0; }
