return 'only in rocks tree'
