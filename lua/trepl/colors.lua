-- ANSI escape sequences by name, as trepl.colors has them. Emptied by noColors().
local colors = {
   none = '\27[0m',
   bright = '\27[1m', dim = '\27[2m', underline = '\27[4m',
   blink = '\27[5m', reverse = '\27[7m', hidden = '\27[8m',
}
local names = { 'black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white' }
for i, name in ipairs(names) do
   local code = 29 + i
   colors[name] = '\27[0;' .. code .. 'm'
   colors[name:sub(1, 1):upper() .. name:sub(2)] = '\27[1;' .. code .. 'm'
   colors['_' .. name] = '\27[' .. (code + 10) .. 'm'
end
return colors
