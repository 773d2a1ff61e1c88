return 'hello from a rock'
