return 'pkg init'
