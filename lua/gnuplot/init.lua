-- gnuplot: Torch's plotting package. Each figure is a gnuplot process fed commands and inline data
-- through a pipe; on screen when there is a display, or into a file (pngfigure, epsfigure,
-- svgfigure, pdffigure).
--
--    gnuplot.pngfigure('loss.png')
--    gnuplot.plot({'train', torch.range(1, n), train, '-'}, {'test', test, '+'})
--    gnuplot.title('Loss')
--    gnuplot.plotflush()      -- (re)writes loss.png
--    gnuplot.close()          -- waits until gnuplot has finished with it
--
-- The gnuplot program (4.4 or later) is found on PATH, or named by gnuplot.setgnuplotexe. Without it
-- `require 'gnuplot'` still works, and each function that would draw raises an error naming itself.
-- A gnuplot process that has died makes the next write to it fail with an error: nothing waits on
-- it. Its messages go to a log file whose last lines such an error shows.
--
-- `gnuplot` is also a global, as in Torch.
require 'torch'
local paths = require 'paths'

local gnuplot = rawget(_G, 'gnuplot')
if type(gnuplot) ~= 'table' then gnuplot = {} end
rawset(_G, 'gnuplot', gnuplot)

local fmt = string.format

-- Errors name the function (no position: the caller's line is in the traceback).
local function fail(fname, msg)
   error('gnuplot.' .. fname .. ': ' .. msg, 0)
end

local function quote_shell(s)
   return "'" .. s:gsub("'", "'\\''") .. "'"
end

-- gnuplot strings: single quotes take everything literally but a doubled quote.
local function quote_gp(s)
   return "'" .. tostring(s):gsub("'", "''") .. "'"
end

-- Labels are double-quoted so that gnuplot's escapes (\n, ...) and enhanced text keep working,
-- as in Torch; only a double quote itself is escaped.
local function label_gp(s)
   return '"' .. tostring(s):gsub('"', '\\"') .. '"'
end

----------------------------------------------------------------------------------------------------
-- The program: where it is, its version and terminals, found once on first use.

local program = nil      -- { exe, terms = {name = true}, screen = terminal or nil } or { missing }
local exe_override = nil -- gnuplot.setgnuplotexe's choice
local screen_override = nil -- gnuplot.setterm's choice

-- Runs `cmd` and returns all it printed (stdout and stderr).
local function capture(cmd)
   local p = io.popen(cmd .. ' 2>&1 </dev/null', 'r')
   if not p then return '' end
   local out = p:read('*a') or ''
   p:close()
   return out
end

local function detect()
   local exe = exe_override or paths.findprogram('gnuplot')
   if not exe then
      return { missing = 'the gnuplot program is not installed (not found on PATH; on Debian: '
         .. 'apt-get install gnuplot-nox), or name it with gnuplot.setgnuplotexe(path)' }
   end
   local version = capture(quote_shell(exe) .. ' --version')
   local major, minor = version:match('gnuplot%s+(%d+)%.(%d+)')
   major, minor = tonumber(major), tonumber(minor)
   if not major then
      return { missing = exe .. ' does not answer --version as gnuplot does: ' .. version }
   end
   if major < 4 or (major == 4 and minor < 4) then
      return { missing = exe .. ' is gnuplot ' .. major .. '.' .. minor
         .. ', 4.4 or later is needed' }
   end
   -- `set terminal` lists the terminals, one per line: "  name  description".
   local terms = {}
   for name in capture(quote_shell(exe) .. " -e 'set terminal'"):gmatch('\n%s+([%w_]+)  ') do
      terms[name] = true
   end
   -- A screen terminal only where a display is: an X11 one needs $DISPLAY (or a Wayland
   -- compositor's X server), aqua a Mac. qt and x11 draw from a helper process that outlives
   -- gnuplot, so closing a figure never waits on its window; wxt comes last.
   local screen
   local uname = paths.uname and paths.uname() or ''
   local candidates = {}
   if tostring(uname):match('Darwin') then
      candidates = { 'aqua', 'qt', 'x11', 'wxt' }
   elseif (os.getenv('DISPLAY') or '') ~= '' or (os.getenv('WAYLAND_DISPLAY') or '') ~= '' then
      candidates = { 'qt', 'x11', 'wxt' }
   end
   for _, t in ipairs(candidates) do
      if terms[t] then screen = t break end
   end
   return { exe = exe, version = major + minor / 10, terms = terms, screen = screen }
end

-- The program's description, or an error naming `fname` when there is none.
local function need(fname)
   program = program or detect()
   if program.missing then fail(fname, program.missing) end
   return program
end

-- true when gnuplot can draw; else false and why. (luatorch's addition: optim.Logger asks it.)
function gnuplot.available()
   program = program or detect()
   if program.missing then return false, program.missing end
   return true
end

function gnuplot.setgnuplotexe(exe)
   if type(exe) ~= 'string' then
      fail('setgnuplotexe', 'bad argument #1 (a path expected, got ' .. type(exe) .. ')')
   end
   if not paths.filep(exe) then fail('setgnuplotexe', exe .. ' does not exist') end
   exe_override, program = exe, nil
   need('setgnuplotexe')
end

-- The terminal screen figures use (wxt, qt, x11, ...).
function gnuplot.setterm(term)
   if type(term) ~= 'string' then
      fail('setterm', 'bad argument #1 (a terminal name expected, got ' .. type(term) .. ')')
   end
   if not need('setterm').terms[term] then
      fail('setterm', 'gnuplot does not seem to have the terminal ' .. term)
   end
   screen_override = term
end

----------------------------------------------------------------------------------------------------
-- Figures: one gnuplot process each.

local figures = {}   -- id -> { id, pipe, log, term, fname }
local current = nil  -- the id plots go to
local warned_no_screen = false

-- Every log file is removed when the Lua state closes, closed figure or not.
local logs = {}
do
   local sentinel = newproxy(true)
   getmetatable(sentinel).__gc = function()
      for log in pairs(logs) do os.remove(log) end
   end
   gnuplot._logs_sentinel = sentinel
end

-- Writes to a dead gnuplot must fail with EPIPE rather than kill the process: th (a Rust program)
-- ignores SIGPIPE already; a stock LuaJIT does not, so the first figure makes sure.
local sigpipe_ignored = false
local function ignore_sigpipe()
   if sigpipe_ignored then return end
   sigpipe_ignored = true
   local ok, ffi = pcall(require, 'ffi')
   if not ok or ffi.os == 'Windows' then return end
   pcall(ffi.cdef, 'typedef void (*luatorch_sighandler_t)(int);'
      .. 'luatorch_sighandler_t signal(int signum, luatorch_sighandler_t handler);')
   local SIGPIPE, SIG_IGN = 13, ffi.cast('luatorch_sighandler_t', 1)
   pcall(ffi.C.signal, SIGPIPE, SIG_IGN)
end

-- The last lines gnuplot wrote to its log, for error messages.
local function log_tail(fig)
   local f = io.open(fig.log, 'r')
   if not f then return '' end
   local lines = {}
   for line in f:lines() do
      if line:match('%S') then lines[#lines + 1] = line end
   end
   f:close()
   if #lines == 0 then return '' end
   return '; gnuplot said: ' .. table.concat(lines, ' | ', math.max(1, #lines - 2))
end

local function forget(fig)
   pcall(fig.pipe.close, fig.pipe)
   figures[fig.id] = nil
   if current == fig.id then current = nil end
   os.remove(fig.log)
   logs[fig.log] = nil
end

local PREAMBLE

-- Sends commands to a figure. A failed write (the process has exited) forgets the figure and
-- raises an error naming `fname`.
local function send(fname, fig, ...)
   local first = ...
   if fig.inline and first ~= PREAMBLE and not tostring(first):match('^set term') then fig.drawn = true end
   local ok, err = fig.pipe:write(...)
   if ok then ok, err = fig.pipe:write('\n') end
   if ok then ok, err = fig.pipe:flush() end
   if not ok then
      local tail = log_tail(fig)
      forget(fig)
      fail(fname, 'gnuplot (figure ' .. fig.id .. ') is no longer running (' .. tostring(err)
         .. ')' .. tail)
   end
end

-- The style every figure starts with, unless ~/.gnuplot sets the user's own: lines that show,
-- and a palette of distinct colours.
PREAMBLE = [[
set style data linespoints
set style function lines
set pointsize 1
set samples 300
set linetype 1 lc rgb '#1f77b4' lw 2 pt 7
set linetype 2 lc rgb '#d62728' lw 2 pt 7
set linetype 3 lc rgb '#2ca02c' lw 2 pt 7
set linetype 4 lc rgb '#ff7f0e' lw 2 pt 7
set linetype 5 lc rgb '#9467bd' lw 2 pt 5
set linetype 6 lc rgb '#8c564b' lw 2 pt 5
set linetype 7 lc rgb '#17becf' lw 2 pt 5
set linetype 8 lc rgb '#7f7f7f' lw 2 pt 5
set linetype cycle 8
set border 31 lw 1 lc rgb '#222222']]

-- Figure n (a new one when nil), started if it has no process yet, and made current.
local function figure_of(fname, n)
   if n ~= nil and (type(n) ~= 'number' or n < 1 or n % 1 ~= 0) then
      fail(fname, 'a figure number must be a positive integer, got ' .. tostring(n))
   end
   if n == nil then
      n = 1
      for id in pairs(figures) do n = math.max(n, id + 1) end
   end
   local fig = figures[n]
   if not fig then
      local prog = need(fname)
      ignore_sigpipe()
      local log = os.tmpname()
      -- stdout is dropped (a file terminal with no output set writes there); stderr is kept in
      -- the log. -persist leaves a screen window open after the figure is closed.
      local pipe = io.popen('exec ' .. quote_shell(prog.exe) .. ' -persist >/dev/null 2>'
         .. quote_shell(log), 'w')
      if not pipe then
         os.remove(log)
         fail(fname, 'cannot start ' .. prog.exe)
      end
      logs[log] = true
      fig = { id = n, pipe = pipe, log = log }
      figures[n] = fig
      if not paths.filep(paths.concat(paths.home, '.gnuplot')) then
         send(fname, fig, PREAMBLE)
      end
   end
   current = n
   return fig
end

local first_term

-- Points a figure at the screen: the screen terminal (window number = figure number), or
-- gnuplot's 'unknown' terminal, which draws nothing, when there is no display.
local function to_screen(fname, fig, raise)
   local term = screen_override or program.screen
   if package.loaded['itorch.kernel'] and not screen_override then
      -- In a notebook (th --jupyter-kernel): a PNG file the kernel shows inline at the end of
      -- the cell (gnuplot._showInline).
      fig.inline = true
      fig.fname = fig.fname or os.tmpname()
      fig.term = (first_term(fname, 'pngcairo', 'png') or 'png') .. ' size 640,480'
      send(fname, fig, 'set term ', fig.term)
   elseif term then
      send(fname, fig, fmt('set term %s %d', term, fig.id))
      if raise then send(fname, fig, 'raise') end
   else
      if not warned_no_screen then
         warned_no_screen = true
         io.stderr:write('gnuplot: no display (DISPLAY is not set), so figures are not shown; '
            .. 'gnuplot.pngfigure, epsfigure, svgfigure and pdffigure draw into files\n')
      end
      send(fname, fig, 'set term unknown')
   end
end

-- The figure plots go to: a new screen figure when there is none.
local function current_figure(fname)
   if current and figures[current] then return figures[current] end
   local fig = figure_of(fname, nil)
   to_screen(fname, fig, true)
   return fig
end

-- Writes a file figure's output afresh (set output, refresh, unset output: the file is complete
-- once gnuplot has read this), or redraws a screen one.
local function refresh(fname, fig)
   if fig.fname then
      send(fname, fig, 'set output ', quote_gp(fig.fname), '\nrefresh\nunset output')
   else
      send(fname, fig, 'refresh')
   end
end

-- figure([n[, config]]): selects figure n (a new one by default) for the next plots, on screen.
-- Returns its number. config.noraise: do not raise its window.
function gnuplot.figure(n, config)
   config = config or {}
   local fig = figure_of('figure', n)
   if fig.fname then
      send('figure', fig, 'set term ', fig.term)
   else
      to_screen('figure', fig, not config.noraise)
   end
   return fig.id
end

-- A figure that draws into a file with terminal `term`.
local function file_figure(fname, file, term, n)
   if type(file) ~= 'string' then
      fail(fname, 'bad argument #1 (a file name expected, got ' .. type(file) .. ')')
   end
   -- gnuplot cannot tell us it failed to write (we only write to it): check the directory here.
   local dir = paths.dirname(file)
   if dir == '' then dir = '.' end
   if not paths.dirp(dir) then
      fail(fname, 'cannot save to ' .. file .. ': directory does not exist')
   end
   local fig = figure_of(fname, n)
   fig.fname, fig.term = file, term
   send(fname, fig, 'set term ', term)
   return fig.id
end

-- The first of the terminals gnuplot has.
first_term = function(fname, ...)
   local terms = need(fname).terms
   for i = 1, select('#', ...) do
      local t = select(i, ...)
      if terms[(t:match('^(%S+)'))] then return t end
   end
   return nil
end

function gnuplot.pngfigure(file, n)
   return file_figure('pngfigure', file, first_term('pngfigure', 'pngcairo', 'png') or 'png', n)
end

function gnuplot.epsfigure(file, n)
   return file_figure('epsfigure', file, 'postscript eps enhanced color', n)
end

function gnuplot.svgfigure(file, n)
   return file_figure('svgfigure', file, 'svg', n)
end

function gnuplot.pdffigure(file, n)
   local term = first_term('pdffigure', 'pdfcairo enhanced color', 'pdf enhanced color')
   if not term then
      fail('pdffigure', 'your installation of gnuplot does not have pdf support enabled')
   end
   return file_figure('pdffigure', file, term, n)
end

-- figprint(file): writes the current figure into file (.png, .eps, .svg or .pdf), then goes on
-- drawing where it drew before.
function gnuplot.figprint(file)
   if type(file) ~= 'string' then
      fail('figprint', 'bad argument #1 (a file name expected, got ' .. type(file) .. ')')
   end
   local ext = (file:match('%.(%w+)$') or ''):lower()
   local term
   if ext == 'eps' then
      term = 'postscript eps enhanced color'
   elseif ext == 'png' then
      term = (first_term('figprint', 'pngcairo', 'png') or 'png') .. ' size 1024,768'
   elseif ext == 'svg' then
      term = 'svg'
   elseif ext == 'pdf' then
      term = first_term('figprint', 'pdfcairo enhanced color', 'pdf enhanced color')
   end
   if not term then fail('figprint', 'can print to .png, .eps, .svg or .pdf files, not ' .. file) end
   local fig = current_figure('figprint')
   send('figprint', fig, 'set term ', term, '\nset output ', quote_gp(file),
      '\nrefresh\nunset output')
   if fig.fname then
      send('figprint', fig, 'set term ', fig.term)
   else
      to_screen('figprint', fig, false)
   end
end

-- plotflush([n]): writes figure n's file (or redraws it on screen). Without a figure it says so.
function gnuplot.plotflush(n)
   n = n or current
   local fig = n and figures[n]
   if not fig then
      print('no figure ' .. tostring(n))
      return
   end
   refresh('plotflush', fig)
end

-- close([n]): flushes figure n (the current one by default), ends its gnuplot and waits for it, so
-- that its file is complete. A figure whose gnuplot already died is just forgotten.
function gnuplot.close(n)
   n = n or current
   local fig = n and figures[n]
   if not fig then return end
   if fig.fname then
      pcall(refresh, 'close', fig)
   end
   if figures[n] then
      pcall(send, 'close', fig, 'quit')
      forget(fig)
   end
end

-- The kernel's end of a cell: each inline figure drawn in it is written, handed to `show` (its
-- PNG file's path) and closed, so that the next cell starts its own. Waits (10 s at most) for
-- gnuplot to have written the file: it prints to a sync file after the image.
function gnuplot._showInline(show)
   local ids = {}
   for id, fig in pairs(figures) do
      if fig.inline then ids[#ids + 1] = id end
   end
   table.sort(ids)
   for _, id in ipairs(ids) do
      local fig = figures[id]
      local file = fig.fname
      if fig.drawn then
         local done = os.tmpname()
         local sent = pcall(send, 'plot', fig, 'set output ', quote_gp(file), '\nrefresh\nunset output\n',
            'set print ', quote_gp(done), '\nprint "done"\nunset print')
         local sys = require 'sys'
         local waited = 0
         while sent and waited < 10 do
            local f = io.open(done, 'r')
            local text = f and f:read('*a')
            if f then f:close() end
            if text == 'done\n' then break end
            sys.sleep(0.02)
            waited = waited + 0.02
         end
         os.remove(done)
         if sent and waited < 10 then show(file) end
      end
      fig.fname = nil
      if figures[id] then gnuplot.close(id) end
      os.remove(file)
   end
end

function gnuplot.closeall()
   local ids = {}
   for id in pairs(figures) do ids[#ids + 1] = id end
   for _, id in ipairs(ids) do gnuplot.close(id) end
   current = nil
end

----------------------------------------------------------------------------------------------------
-- Decorations of the current figure; each redraws it.

local function set_and_refresh(fname, ...)
   local fig = current_figure(fname)
   send(fname, fig, ...)
   refresh(fname, fig)
end

for _, which in ipairs { 'xlabel', 'ylabel', 'zlabel', 'title' } do
   gnuplot[which] = function(label)
      if type(label) ~= 'string' and type(label) ~= 'number' then
         fail(which, 'bad argument #1 (a string expected, got ' .. type(label) .. ')')
      end
      set_and_refresh(which, 'set ', which, ' ', label_gp(label))
   end
end

-- A toggle: anything true but 'off' turns on ('on', true, 1, ...).
local function on(toggle)
   return toggle and toggle ~= 'off'
end

function gnuplot.grid(toggle)
   set_and_refresh('grid', on(toggle) and 'set grid' or 'unset grid')
end

-- A logarithmic y axis.
function gnuplot.logscale(toggle)
   set_and_refresh('logscale', on(toggle) and 'set logscale y' or 'unset logscale y')
end

local HLOC = { left = true, right = true, center = true }
local VLOC = { top = true, bottom = true, middle = true }

-- movelegend(hloc, vloc): the legend's place, hloc one of left|right|center, vloc one of
-- top|bottom|middle.
function gnuplot.movelegend(hloc, vloc)
   if not HLOC[hloc] or not VLOC[vloc] then
      fail('movelegend', 'expects 2 strings as location {left|right|center}{bottom|top|middle}, got '
         .. tostring(hloc) .. ', ' .. tostring(vloc))
   end
   set_and_refresh('movelegend', 'set key ', hloc, ' ', vloc)
end

-- axis('auto' | 'image' | 'equal' | 'fill' | {xmin, xmax, ymin, ymax}): the axes' scaling, or
-- their ranges ('' keeps a bound as it is).
function gnuplot.axis(axis)
   if axis == 'auto' then
      set_and_refresh('axis', 'set size noratio\nset autoscale')
   elseif axis == 'image' or axis == 'equal' then
      set_and_refresh('axis', 'set size ratio -1')
   elseif axis == 'fill' then
      set_and_refresh('axis', 'set size noratio')
   elseif type(axis) == 'table' then
      if #axis ~= 4 then
         fail('axis', 'a table of limits must have 4 entries {xmin, xmax, ymin, ymax}')
      end
      for i = 1, 4 do
         if type(axis[i]) ~= 'number' and axis[i] ~= '' then
            fail('axis', 'limit ' .. i .. ' must be a number or \'\', got ' .. tostring(axis[i]))
         end
      end
      set_and_refresh('axis', fmt('set xrange [%s:%s]\nset yrange [%s:%s]',
         tostring(axis[1]), tostring(axis[2]), tostring(axis[3]), tostring(axis[4])))
   else
      fail('axis', "expects 'auto', 'image', 'equal', 'fill' or {xmin, xmax, ymin, ymax}, got "
         .. tostring(axis))
   end
end

-- raw(command): sends a gnuplot command as it is.
function gnuplot.raw(command)
   if type(command) ~= 'string' then
      fail('raw', 'bad argument #1 (a string expected, got ' .. type(command) .. ')')
   end
   send('raw', current_figure('raw'), command)
end

----------------------------------------------------------------------------------------------------
-- Data.

local NUM = '%.10g'

local function as_table(t)
   return t:double():contiguous():view(-1):totable()
end

-- One inline data block: rows of numbers, then 'e'. `rows` is an array of arrays of numbers.
local function data_block(out, columns)
   local n = #columns[1]
   for i = 1, n do
      local row = {}
      for c = 1, #columns do row[c] = fmt(NUM, columns[c][i]) end
      out[#out + 1] = table.concat(row, ' ')
   end
   out[#out + 1] = 'e'
end

local USAGE = 'expecting [string,] tensor [,tensor] [,string]'

-- One series of plot: {[legend,] x [, y] [, format]}. Returns legend, format and the data's
-- columns (x, then one or more y). Errors name `fname`.
local function series(fname, args)
   local legend, x, y, format
   local i = 1
   if type(args[i]) == 'string' then legend, i = args[i], i + 1 end
   if torch.isTensor(args[i]) then x, i = args[i], i + 1 end
   if torch.isTensor(args[i]) then y, i = args[i], i + 1 end
   if type(args[i]) == 'string' then format, i = args[i], i + 1 end
   if not x or args[i] ~= nil then fail(fname, USAGE) end
   legend, format = legend or '', format or ''

   local columns
   if y then
      if x:dim() ~= 1 or (y:dim() ~= 1 and y:dim() ~= 2) or x:size(1) ~= y:size(1) then
         fail(fname, 'x and y must be a vector and a vector (or matrix) with as many rows, got '
            .. x:dim() .. 'D and ' .. y:dim() .. 'D tensors of ' .. x:nElement() .. ' and '
            .. y:nElement() .. ' elements')
      end
      columns = { as_table(x) }
      if y:dim() == 1 then
         columns[2] = as_table(y)
      else
         for c = 1, y:size(2) do columns[#columns + 1] = as_table(y:select(2, c)) end
      end
   elseif x:dim() == 1 then
      -- y alone, against 1..n.
      columns = { as_table(torch.range(1, x:size(1))), as_table(x) }
   elseif x:dim() == 2 and x:size(2) >= 2 then
      -- Columns: x, then y (or several y; 'v' takes x, dx, y, dy as x, y, dx, dy).
      columns = {}
      local order = { 1 }
      if (format == 'v' or format == 'V' or format == 'vectors') and x:size(2) == 4 then
         order = { 1, 3, 2, 4 }
      else
         for c = 2, x:size(2) do order[#order + 1] = c end
      end
      for _, c in ipairs(order) do columns[#columns + 1] = as_table(x:select(2, c)) end
   else
      fail(fname, 'cannot plot a ' .. x:dim() .. 'D tensor: give a vector, or a matrix of '
         .. 'columns x, y[, ...]')
   end
   if x:nElement() == 0 then fail(fname, 'nothing to plot: an empty tensor') end
   return legend, format, columns
end

-- The 'with ...' clause of a format: Torch's short forms, or gnuplot's own words as they are.
-- '~' smooths with cubic splines; '~w' (or 'acsplines') with weight w as a third column.
local function style_of(format, columns)
   local weight = format ~= '~' and format:match('^~(.*)$') or format:match('^acsplines(.*)$')
   if weight then
      local w = tonumber(weight) or 1
      local col = {}
      for i = 1, #columns[1] do col[i] = w end
      columns[3] = col
      return 'smooth acsplines'
   end
   local styles = {
      [''] = '', ['+'] = 'with points', points = 'with points', ['.'] = 'with dots',
      dots = 'with dots', ['-'] = 'with lines', lines = 'with lines',
      ['+-'] = 'with linespoints', linespoints = 'with linespoints', ['|'] = 'with boxes',
      boxes = 'with boxes', ['~'] = 'smooth csplines', csplines = 'smooth csplines',
      v = 'with vectors', V = 'with vectors', vectors = 'with vectors',
   }
   return styles[format] or format
end

-- The series of a call: f(s) for one series given as arguments, f({s1}, {s2}, ...) or
-- f({{s1}, {s2}, ...}) for several.
local function all_series(fname, ...)
   local args = { ... }
   if select('#', ...) == 0 then
      fail(fname, 'no inputs, expecting at least a vector')
   end
   if type(args[1]) ~= 'table' then return { args } end
   if type(args[1][1]) == 'table' then args = args[1] end
   for _, s in ipairs(args) do
      if type(s) ~= 'table' then fail(fname, USAGE) end
   end
   return args
end

-- plot's work, for plot and the functions built on it (bar, hist), whose errors name `fname`.
local function lines(fname, ...)
   local cmd, data = {}, {}
   for _, s in ipairs(all_series(fname, ...)) do
      local legend, format, columns = series(fname, s)
      local style = style_of(format, columns)
      cmd[#cmd + 1] = "'-' title " .. quote_gp(legend) .. (style ~= '' and ' ' .. style or '')
      data_block(data, columns)
   end
   local fig = current_figure(fname)
   send(fname, fig, 'plot ', table.concat(cmd, ', '), '\n', table.concat(data, '\n'))
end

-- plot(...): lines and points. Each series is [legend,] x [, y] [, format]: y against x, or a
-- vector against 1..n, or a matrix's columns x, y[, y2 ...]; format '+' points, '-' lines, '+-'
-- both, '.' dots, '|' boxes, '~' smooth, 'v' vectors, or any gnuplot 'with ...' clause. Several
-- series as tables: plot({'a', x1, y1, '-'}, {'b', y2})
function gnuplot.plot(...)
   lines('plot', ...)
end

-- bar([x,] y): boxes.
function gnuplot.bar(...)
   local args = { ... }
   args[#args + 1] = '|'
   lines('bar', args)
end

-- The x, y, z matrices of a surface: {[legend,] z} or {[legend,] x, y, z}.
local function surface(args)
   local legend, i = '', 1
   if type(args[1]) == 'string' then legend, i = args[1], 2 end
   local x, y, z = args[i], args[i + 1], args[i + 2]
   if torch.isTensor(x) and y == nil then
      z = x
      if z:dim() ~= 2 then
         fail('splot', 'z must be a matrix, got a ' .. z:dim() .. 'D tensor')
      end
      x, y = z.new(z:size()), z.new(z:size())
      for r = 1, z:size(1) do x:select(1, r):fill(r) end
      for c = 1, z:size(2) do y:select(2, c):fill(c) end
   elseif not (torch.isTensor(x) and torch.isTensor(y) and torch.isTensor(z)) then
      fail('splot', 'expecting [string,] tensor [,tensor] [,tensor]')
   end
   if x:dim() ~= 2 or y:dim() ~= 2 or z:dim() ~= 2 or not x:isSameSizeAs(z)
      or not y:isSameSizeAs(z) then
      fail('splot', 'x, y and z must be matrices of one size')
   end
   return legend, x, y, z
end

-- splot(z), splot(x, y, z), splot({'name', z}, ...): surfaces, z's entries as heights over the
-- grid of row and column numbers (or over x and y, matrices of z's size).
function gnuplot.splot(...)
   local cmd, data = {}, {}
   for _, s in ipairs(all_series('splot', ...)) do
      local legend, x, y, z = surface(s)
      cmd[#cmd + 1] = "'-' title " .. quote_gp(legend) .. ' with lines'
      for r = 1, z:size(1) do
         local xr, yr, zr = as_table(x[r]), as_table(y[r]), as_table(z[r])
         for c = 1, #zr do data[#data + 1] = fmt(NUM .. ' ' .. NUM .. ' ' .. NUM, xr[c], yr[c], zr[c]) end
         data[#data + 1] = ''   -- a blank line ends a row of the grid
      end
      data[#data + 1] = 'e'
   end
   local fig = current_figure('splot')
   send('splot', fig, 'set contour base\nset cntrparam bspline\nset cntrparam levels auto\n'
      .. 'set style data lines\nset hidden3d\nsplot ', table.concat(cmd, ', '), '\n',
      table.concat(data, '\n'))
end

-- scatter3(x, y, z), scatter3({'name', x, y, z}, ...): points in 3-D, x, y, z vectors of one size.
function gnuplot.scatter3(...)
   local cmd, data = {}, {}
   for _, s in ipairs(all_series('scatter3', ...)) do
      local legend, i = '', 1
      if type(s[1]) == 'string' then legend, i = s[1], 2 end
      local x, y, z = s[i], s[i + 1], s[i + 2]
      if not (torch.isTensor(x) and torch.isTensor(y) and torch.isTensor(z)) or s[i + 3] ~= nil then
         fail('scatter3', 'expecting [string,] tensor, tensor, tensor')
      end
      if x:dim() ~= 1 or not x:isSameSizeAs(y) or not x:isSameSizeAs(z) then
         fail('scatter3', 'x, y and z must be vectors of one size')
      end
      cmd[#cmd + 1] = "'-' title " .. quote_gp(legend) .. ' with points'
      data_block(data, { as_table(x), as_table(y), as_table(z) })
   end
   local fig = current_figure('scatter3')
   send('scatter3', fig, 'set style data points\nsplot ', table.concat(cmd, ', '), '\n',
      table.concat(data, '\n'))
end

-- imagesc(z[, palette]): the matrix z as an image, row 1 at the top; palette 'gray' (the
-- default), 'color', or any gnuplot palette specification.
function gnuplot.imagesc(z, palette)
   if not torch.isTensor(z) or z:dim() ~= 2 then
      fail('imagesc', 'expecting a matrix [, palette], got ' .. torch.type(z)
         .. (torch.isTensor(z) and (' of ' .. z:dim() .. ' dimensions') or ''))
   end
   if palette ~= nil and type(palette) ~= 'string' then
      fail('imagesc', 'bad argument #2 (a palette name expected, got ' .. type(palette) .. ')')
   end
   local rows = {}
   for r = 1, z:size(1) do
      local zr = as_table(z[r])
      for c = 1, #zr do zr[c] = fmt(NUM, zr[c]) end
      rows[r] = table.concat(zr, ' ')
   end
   local fig = current_figure('imagesc')
   send('imagesc', fig, 'set view map\nset palette ', palette or 'gray',
      fmt('\nset xrange [-0.5:%g] noreverse nowriteback\nset yrange [-0.5:%g] reverse nowriteback\n',
         z:size(2) - 0.5, z:size(1) - 0.5),
      "splot '-' matrix with image\n", table.concat(rows, '\n'), '\ne\ne')
end

require('gnuplot.hist')(gnuplot, lines)

return gnuplot
