-- Prints two tmpnames (one written to) and ends as the first argument says: 'return' (normally),
-- 'exit' (os.exit) or 'error'. The test checks from outside that both files are gone.
local how = ... or 'return'
local a, b = paths.tmpname(), paths.tmpname()
assert(a ~= b)
assert(paths.filep(a) and paths.filep(b))
local f = assert(io.open(a, 'w'))
f:write('data')
f:close()
print(a)
print(b)
io.flush()
if how == 'exit' then os.exit(0) end
if how == 'error' then error('failing on purpose') end
