return 'local file shadowing an embedded module'
