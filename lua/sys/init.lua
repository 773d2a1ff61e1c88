-- sys: timing, shell commands and a few file and string helpers, as Torch's `sys` package has
-- them. The native half (libsys, src/runtime/sys.rs) provides the clock, sleeping and terminal
-- queries. `sys` is also a global.

local lib = require 'libsys'
local paths = require 'paths'

local sys = rawget(_G, 'sys')
if type(sys) ~= 'table' then sys = {} end
for k, v in pairs(lib) do
   if k ~= 'prefix' then sys[k] = v end
end

local checkstring = require('luatorch.check').string

local function trim(s)
   return (s:gsub('^%s+', ''):gsub('%s+$', ''))
end

-- tic()/toc(): seconds since the last tic (since sys was loaded when tic was never called).
local tic_time = lib.clock()
function sys.tic()
   tic_time = lib.clock()
   return tic_time
end
function sys.toc(verbose)
   local dt = lib.clock() - tic_time
   if verbose then print(dt) end
   return dt
end

-- Runs `cmd` in the shell; returns its standard output and error together (of every command in
-- `cmd`), trimmed.
function sys.execute(cmd)
   cmd = checkstring('sys.execute', 1, cmd)
   local f, err = io.popen('{ ' .. cmd .. '\n} 2>&1', 'r')
   if not f then error('sys.execute: ' .. tostring(err), 2) end
   local s = f:read('*a') or ''
   f:close()
   return trim(s)
end

-- Like execute, through a temporary file; `readwhat` is the format given to file:read
-- (default '*a').
function sys.fexecute(cmd, readwhat)
   cmd = checkstring('sys.fexecute', 1, cmd)
   local tmp = os.tmpname()
   os.execute('{ ' .. cmd .. '\n} >' .. tmp .. ' 2>&1')
   local f, err = io.open(tmp, 'r')
   if not f then
      os.remove(tmp)
      error('sys.fexecute: ' .. tostring(err), 2)
   end
   local s = f:read(readwhat or '*a')
   f:close()
   os.remove(tmp)
   if type(s) == 'string' then s = trim(s) end
   return s
end

-- 'linux', 'macos', 'windows' or '?'.
function sys.uname()
   if paths.is_win() then return 'windows' end
   local name = paths.uname()
   if name:find('Linux') then return 'linux' end
   if name:find('Darwin') then return 'macos' end
   return '?'
end
sys.OS = sys.uname()

-- The installation prefix: the directory above the one holding the `th` binary.
sys.prefix = lib.prefix() or '/usr/local'

function sys.ls(d) return sys.execute('ls ' .. (d or '')) end
function sys.ll(d) return sys.execute('ls -l ' .. (d or '')) end
function sys.la(d) return sys.execute('ls -a ' .. (d or '')) end
function sys.lla(d) return sys.execute('ls -la ' .. (d or '')) end

-- The directory and name of the calling file.
function sys.fpath()
   local info = debug.getinfo(2, 'S')
   local src = (info and info.source or ''):gsub('^@', '')
   if src:sub(1, 1) ~= '/' and src:sub(1, 11) ~= '[luatorch]/' then src = paths.concat(paths.cwd(), src) end
   return paths.dirname(src), paths.basename(src)
end

-- Pieces of `str` between matches of the Lua pattern `pat` (default: runs of whitespace). An empty
-- first piece is dropped, empty pieces inside are kept, and a trailing separator adds nothing.
local function split(fname, str, pat)
   str = checkstring(fname, 1, str)
   if pat == nil then pat = '%s+' end
   pat = checkstring(fname, 2, pat)
   if pat == '' then error(fname .. ': bad argument #2 (empty separator)', 3) end
   local t = {}
   local fpat = '(.-)' .. pat
   local last_end = 1
   local s, e, cap = str:find(fpat, 1)
   while s do
      if e < s then
         -- The pattern matched the empty string: step over one character.
         if e + 1 > #str then break end
         t[#t + 1] = str:sub(last_end, s)
         last_end = s + 1
      else
         if s ~= 1 or cap ~= '' then t[#t + 1] = cap end
         last_end = e + 1
      end
      s, e, cap = str:find(fpat, last_end)
   end
   if last_end <= #str then t[#t + 1] = str:sub(last_end) end
   return t
end
sys._split = split
function sys.split(str, pat) return split('sys.split', str, pat) end

function sys.isNaN(x) return x ~= x end

-- Aliases kept for scripts written against older sys versions.
sys.dirname = paths.dirname
sys.concat = paths.concat
sys.basename = paths.basename
sys.filep = paths.filep
sys.dirp = paths.dirp
sys.pwd = paths.cwd

-- ANSI escapes by name: black..white, bold Black..White, backgrounds _black.._white, none, and the
-- attributes bright, dim, underline, blink, reverse and hidden (the values trepl.colors uses).
local COLORS = {
   none = '\27[0m',
   bright = '\27[1m', dim = '\27[2m', underline = '\27[4m',
   blink = '\27[5m', reverse = '\27[7m', hidden = '\27[8m',
}
for i, name in ipairs { 'black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white' } do
   local code = 29 + i
   COLORS[name] = '\27[0;' .. code .. 'm'
   COLORS[name:sub(1, 1):upper() .. name:sub(2)] = '\27[1;' .. code .. 'm'
   COLORS['_' .. name] = '\27[' .. (code + 10) .. 'm'
end
sys.COLORS = COLORS

rawset(_G, 'sys', sys)
return sys
