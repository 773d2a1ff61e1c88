return 'from rocks tree'
