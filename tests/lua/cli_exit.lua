io.write('before exit\n')
os.exit(tonumber(arg[1]) or 3)
