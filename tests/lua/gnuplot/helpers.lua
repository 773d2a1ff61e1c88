-- Shared by the gnuplot test scripts, which tests/gnuplot.rs runs from tests/lua as
-- `th gnuplot/X.lua`. Load it with
--    local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
require 'torch'
require 'gnuplot'

local H = {}

function H.read(path)
   local f = io.open(path, 'rb')
   if not f then return nil end
   local s = f:read('*a')
   f:close()
   return s
end

-- The file starts with `magic` and holds more than it.
function H.check_file(path, magic, what)
   local s = H.read(path)
   if not s then error((what or path) .. ': no file ' .. path, 2) end
   if #s <= #magic or s:sub(1, #magic) ~= magic then
      error(string.format('%s: %s is not a %s file (%d bytes, starting %q)', what or path, path,
         what or '?', #s, s:sub(1, 16)), 2)
   end
   return #s
end

H.PNG = '\137PNG\r\n\26\n'

-- f() must fail with a message containing `text`.
function H.errors(f, text)
   local ok, err = pcall(f)
   if ok then error(text .. ': no error', 2) end
   if not tostring(err):find(text, 1, true) then
      error(string.format('error %q does not contain %q', tostring(err), text), 2)
   end
end

function H.tempdir(name)
   local dir = os.tmpname()
   os.remove(dir)
   dir = dir .. '-' .. name
   assert(paths.mkdir(dir))
   return dir
end

return H
