-- itorch.capture: inside th --jupyter-kernel, what a cell writes to stdout and stderr (print,
-- io.write, io.stdout:write, io.stderr:write) goes to the notebook as stream output, and what it
-- reads from stdin (io.read, io.stdin:read) is asked of the frontend (an input_request). Files
-- other than the standard ones are untouched. Needs the kernel's native side, itorch.kernel.
local k = require 'itorch.kernel'

local out, err, inp = io.stdout, io.stderr, io.stdin
local methods = getmetatable(out).__index
local write, read, flush = methods.write, methods.read, methods.flush

-- io.write's arguments as one string (numbers as io.write writes them).
local function text(...)
   local n = select('#', ...)
   local parts = {}
   for i = 1, n do
      local v = select(i, ...)
      if type(v) == 'string' then
         parts[i] = v
      elseif type(v) == 'number' then
         parts[i] = string.format('%.14g', v)
      else
         error("bad argument #" .. i .. " to 'write' (string expected, got " .. type(v) .. ")", 3)
      end
   end
   return table.concat(parts)
end

-- One value per format, as file:read gives them, from lines the frontend sends.
local function ask(...)
   local formats = { ... }
   if #formats == 0 then formats = { '*l' } end
   local results = {}
   for i, f in ipairs(formats) do
      local line = k.input('', false)
      if type(f) == 'number' then
         results[i] = line:sub(1, f)
      else
         local c = tostring(f):gsub('^%*', ''):sub(1, 1)
         if c == 'n' then
            results[i] = tonumber(line)
         elseif c == 'L' then
            results[i] = line .. '\n'
         else
            results[i] = line
         end
      end
   end
   return unpack(results, 1, #formats)
end

methods.write = function(f, ...)
   if f == out then
      k.write('stdout', text(...))
      return f
   elseif f == err then
      k.write('stderr', text(...))
      return f
   end
   return write(f, ...)
end

methods.flush = function(f)
   if f == out or f == err then
      k.flush()
      return f
   end
   return flush(f)
end

methods.read = function(f, ...)
   if f == inp then return ask(...) end
   return read(f, ...)
end

function io.write(...)
   local o = io.output()
   if o == out then
      k.write('stdout', text(...))
      return o
   end
   return o:write(...)
end

function io.flush()
   k.flush()
   return io.output():flush()
end

function io.read(...)
   local i = io.input()
   if i == inp then return ask(...) end
   return i:read(...)
end

-- Lua's own print (trepl keeps it as print_old; setprintlevel(0) makes it the print).
local function plain_print(...)
   local n = select('#', ...)
   local parts = {}
   for i = 1, n do parts[i] = tostring((select(i, ...))) end
   k.write('stdout', table.concat(parts, '\t') .. '\n')
end
rawset(_G, 'print_old', plain_print)
if rawget(_G, 'print_new') == nil then rawset(_G, 'print', plain_print) end

-- No colour codes in notebook output.
if rawget(_G, 'noColors') then noColors() end

return true
