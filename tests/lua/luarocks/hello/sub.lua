return 'hello.sub from a rock'
