return 'local file shadowing a native module'
