-- optim.Logger([filename[, timestamp]]): a log of training curves. Each add() writes one row to
-- the file, and Logger:plot() draws the curves through gnuplot, on screen and into an EPS file
-- beside the log.
--
-- The file is Torch's format: a header row with the names, then one row per add; every field is
-- followed by a tab, numbers as '%11.4e', strings as they are. Without setNames the names are the
-- keys of the first add's table, sorted (Torch took pairs()'s order, which LuaJIT varies from run
-- to run), and every row is written in that order (an empty field where a row lacks a name).
--
--    local logger = optim.Logger('train.log')
--    logger:setNames{'train loss', 'test loss'}
--    logger:add{0.52, 0.61}
--    logger:style{'-', '-'}
--    logger:plot()     -- on screen, and train.log.eps
require 'torch'
local paths = require 'paths'

local Logger = torch.class('optim.Logger')

-- An error naming the method, blamed on its caller.
local function fail(method, msg)
   error('optim.Logger' .. method .. ': ' .. msg, 3)
end

function Logger:__init(filename, timestamp)
   if filename ~= nil and type(filename) ~= 'string' then
      fail('', 'bad argument #1 (a file name or nil expected, got ' .. type(filename) .. ')')
   end
   if filename then
      self.name = filename
      local dir = paths.dirname(filename)
      if not paths.dirp(dir) then paths.mkdir(dir) end
      if timestamp then
         -- A log of its own for each run.
         filename = filename .. '-' .. os.date('%Y_%m_%d_%X')
      end
      local file, err = io.open(filename, 'w')
      if not file then fail('', 'cannot open ' .. filename .. ': ' .. tostring(err)) end
      self.file = file
      self.epsfile = self.name .. '.eps'
   else
      self.file = io.stdout
      self.name = 'stdout'
      print('<Logger> warning: no path provided, logging to std out')
   end
   self.empty = true
   self.symbols = {}     -- key -> the values logged, in order
   self.styles = {}      -- key -> the gnuplot styles of its curve
   self.names = {}       -- key -> the name shown (the key itself without setNames)
   self.idx = {}         -- name -> key
   self.columns = {}     -- the keys, in the order of the file's columns
   self.figure = nil
   self.showPlot = true
   self.plotRawCmd = nil
   self.defaultStyle = '+'
   self.logscale = false
end

-- Starts a new column for `key`, shown as `name`.
local function add_column(self, key, name)
   self.columns[#self.columns + 1] = key
   self.symbols[key] = {}
   self.styles[key] = self.styles[key] or { self.defaultStyle }
   self.names[key] = name
   self.idx[name] = key
   self.file:write(tostring(name) .. '\t')
end

-- setNames{name1, name2, ...}: the columns; add then takes {value1, value2, ...} (or values keyed
-- by name).
function Logger:setNames(names)
   if type(names) ~= 'table' then
      fail(':setNames', 'bad argument #1 (a table of names expected, got ' .. type(names) .. ')')
   end
   if not self.empty then
      fail(':setNames', 'the names are already set (by setNames or the first add)')
   end
   self.empty = false
   self.nsymbols = #names
   for k, name in ipairs(names) do add_column(self, k, name) end
   self.file:write('\n')
   self.file:flush()
   return self
end

-- The column key of `k`, a key of an added row: itself, or the key its name stands for.
local function key_of(self, k)
   if self.symbols[k] then return k end
   local key = self.idx[k]
   if key ~= nil and self.symbols[key] then return key end
   return nil
end

function Logger:add(symbols)
   if type(symbols) ~= 'table' then
      fail(':add', 'bad argument #1 (a table of values expected, got ' .. type(symbols) .. ')')
   end
   -- Check the whole row first: an error leaves no half-written line behind.
   for k, v in pairs(symbols) do
      if type(v) ~= 'number' and type(v) ~= 'string' then
         fail(':add', 'can only log numbers and strings, got ' .. type(v) .. ' for '
            .. tostring(k))
      end
      if not self.empty and key_of(self, k) == nil then
         fail(':add', 'unknown name ' .. tostring(k)
            .. ' (the names were fixed by setNames or the first add)')
      end
   end

   if self.empty then
      self.empty = false
      self.nsymbols = #symbols
      local keys = {}
      for k in pairs(symbols) do keys[#keys + 1] = k end
      -- Numbers first (in order), then the rest by name.
      table.sort(keys, function(a, b)
         if type(a) == 'number' and type(b) == 'number' then return a < b end
         if type(a) == 'number' or type(b) == 'number' then return type(a) == 'number' end
         return tostring(a) < tostring(b)
      end)
      for _, k in ipairs(keys) do add_column(self, k, k) end
      self.file:write('\n')
   end

   local row = {}
   for k, v in pairs(symbols) do row[key_of(self, k)] = v end
   local fields = {}
   for i, key in ipairs(self.columns) do
      local v = row[key]
      if type(v) == 'number' then
         fields[i] = string.format('%11.4e', v)
      else
         fields[i] = v or ''
      end
      if v ~= nil then table.insert(self.symbols[key], v) end
   end
   -- Each field followed by a tab, as in Torch's files.
   self.file:write(#fields > 0 and table.concat(fields, '\t') .. '\t\n' or '\n')
   self.file:flush()
end

-- style{name = style, ...} (or {style1, style2, ...} after setNames): the gnuplot styles of the
-- curves: '+' points (the default), '-' lines, '+-' both, '.' dots, '|' boxes, '~' smooth, or a
-- gnuplot 'with ...' clause; a table of styles draws the curve once per style.
function Logger:style(symbols)
   if type(symbols) ~= 'table' then
      fail(':style', 'bad argument #1 (a table of styles expected, got ' .. type(symbols) .. ')')
   end
   for name, style in pairs(symbols) do
      local key = key_of(self, name) or name
      if type(style) == 'string' then
         self.styles[key] = { style }
      elseif type(style) == 'table' then
         self.styles[key] = style
      else
         fail(':style', 'style should be a string or a table of strings, got ' .. type(style)
            .. ' for ' .. tostring(name))
      end
   end
   return self
end

-- A logarithmic y axis in the plots.
function Logger:setlogscale(state)
   self.logscale = state
end

-- Whether plot() also shows the figure on screen (it always writes the EPS file).
function Logger:display(state)
   self.showPlot = state
end

-- The figure function of gnuplot for a file name: by its extension, EPS otherwise.
local function file_figure(gnuplot, name)
   local ext = (name:match('%.(%w+)$') or ''):lower()
   if ext == 'png' then return gnuplot.pngfigure end
   if ext == 'svg' then return gnuplot.svgfigure end
   if ext == 'pdf' then return gnuplot.pdffigure end
   return gnuplot.epsfigure
end

local function draw(self, gnuplot, plots)
   if self.logscale then gnuplot.logscale('on') end
   gnuplot.plot(plots)
   if self.plotRawCmd then gnuplot.raw(self.plotRawCmd) end
   gnuplot.grid('on')
   gnuplot.title('<Logger::' .. self.name .. '>')
end

-- plot([name1, name2, ...]): draws the named curves (all by default) that have at least two
-- values: on screen unless display(false), and into self.epsfile (name .. '.eps'; a name ending
-- in .png, .svg or .pdf gives that format instead). Without the gnuplot program it warns once and
-- draws nothing.
function Logger:plot(...)
   local ok, gnuplot = pcall(require, 'gnuplot')
   local available, why = false, gnuplot
   if ok then available, why = gnuplot.available() end
   if not available then
      if not self.warned then
         print('<Logger> warning: cannot plot: ' .. tostring(why))
         self.warned = true
      end
      return
   end

   local keys = {}
   if select('#', ...) == 0 then
      keys = self.columns
   else
      for i = 1, select('#', ...) do
         local name = select(i, ...)
         local key = key_of(self, name)
         if key == nil then fail(':plot', 'unknown name ' .. tostring(name)) end
         keys[#keys + 1] = key
      end
   end

   local plots = {}
   for _, key in ipairs(keys) do
      local list = self.symbols[key]
      if #list > 1 then
         -- A string that is not a number is a gap in the curve.
         local y = torch.Tensor(#list)
         for i, v in ipairs(list) do y[i] = tonumber(v) or 0 / 0 end
         for _, style in ipairs(self.styles[key]) do
            plots[#plots + 1] = { tostring(self.names[key]), y, style }
         end
      end
   end
   if #plots == 0 then return end

   if self.showPlot then
      self.figure = gnuplot.figure(self.figure)
      draw(self, gnuplot, plots)
   end
   if self.epsfile then
      os.remove(self.epsfile)
      local fig = file_figure(gnuplot, self.epsfile)(self.epsfile)
      draw(self, gnuplot, plots)
      gnuplot.plotflush()
      -- Closing waits for gnuplot to finish: the file is complete when plot() returns.
      gnuplot.close(fig)
   end
end

return Logger
