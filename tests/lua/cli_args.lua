-- Prints what a script sees of its command line, one fact a line.
print('n=' .. #arg)
for i = 1, #arg do print('arg[' .. i .. ']=' .. arg[i]) end
print('arg0=' .. tostring(arg[0]))
local dots = { ... }
print('varargs=' .. #dots)
