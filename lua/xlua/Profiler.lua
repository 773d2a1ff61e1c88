-- xlua.Profiler: named stopwatches over wall-clock time (sys.clock) and processor time (os.clock).
--   local p = xlua.Profiler()          -- xlua.Profiler('off') keeps quiet; (mode, true) is verbose
--   p:start('load')  ...  p:lap('load')
--   p:printAll()                       -- '$ real 0.012000 | cpu 0.011000 <load>' for each
-- Each name keeps the order of its first start; start again restarts it.

local sys = require 'sys'

local Profiler = {}
Profiler.__index = Profiler

local function check_self(self, method)
   if getmetatable(self) ~= Profiler then
      error('xlua.Profiler:' .. method .. ': call it with a colon (p:' .. method .. '(...))', 3)
   end
end

local function check_name(name, method)
   if type(name) ~= 'string' and type(name) ~= 'number' then
      error('xlua.Profiler:' .. method .. ': bad argument #1 (event name expected, got ' .. type(name) .. ')', 3)
   end
end

-- The event `name`, which start() must have made.
local function event(self, name, method)
   check_self(self, method)
   check_name(name, method)
   local e = self.events[name]
   if e == nil then
      error('xlua.Profiler:' .. method .. ': no event "' .. tostring(name) .. '" (start it first)', 3)
   end
   return e
end

local function check_divider(divider, method)
   if divider ~= nil and type(divider) ~= 'number' then
      error('xlua.Profiler:' .. method .. ': bad argument #2 (number expected, got ' .. type(divider) .. ')', 3)
   end
end

-- Profiler([mode[, verbose]]): mode 'off' silences print and printAll (the timing still happens);
-- verbose writes '<name>' at each start and the lap's line at each lap.
function Profiler.new(mode, verbose)
   return setmetatable({
      events = {},
      list = {},
      off = mode == 'off',
      verbose = verbose and true or false,
   }, Profiler)
end

setmetatable(Profiler, {
   __call = function(_, mode, verbose) return Profiler.new(mode, verbose) end,
})

-- start(name[, 'fps']): (re)starts the stopwatch `name`; with 'fps' the report adds 1/real.
function Profiler:start(name, fps)
   check_self(self, 'start')
   check_name(name, 'start')
   local e = self.events[name]
   if e then
      e.cpu, e.real = os.clock(), sys.clock()
   else
      e = { cpu = os.clock(), real = sys.clock(), name = name }
      self.events[name] = e
      self.list[#self.list + 1] = e
   end
   if fps == 'fps' then e.fps = true end
   if self.verbose then
      io.write('<' .. tostring(name) .. '>')
      io.flush()
   end
end

-- setColor(name, color): the colour displayAll draws the event's line in.
function Profiler:setColor(name, color)
   event(self, name, 'setColor').color = color
end

-- cpu(name[, divider]) and real(name[, divider]): the time since start (divided by `divider`, for
-- the time per item), also kept for the reports.
function Profiler:cpu(name, divider)
   local e = event(self, name, 'cpu')
   check_divider(divider, 'cpu')
   local delta = os.clock() - e.cpu
   if divider then delta = delta / divider end
   e.cpud = delta
   return delta
end

function Profiler:real(name, divider)
   local e = event(self, name, 'real')
   check_divider(divider, 'real')
   local delta = sys.clock() - e.real
   if divider then delta = delta / divider end
   e.reald = delta
   return delta
end

-- lap(name[, divider]): real and cpu together; returns (real, cpu).
function Profiler:lap(name, divider)
   event(self, name, 'lap')
   check_divider(divider, 'lap')
   local r = self:real(name, divider)
   local c = self:cpu(name, divider)
   if self.verbose then
      io.write('\r')
      self:print(name)
   end
   return r, c
end

-- format(name): '$ real | cpu: R | C <name>', -1 for a time not measured yet.
function Profiler:format(name)
   local e = event(self, name, 'format')
   return string.format('$ real | cpu: %f | %f <%s>', e.reald or -1, e.cpud or -1, tostring(name))
end

function Profiler:print(name)
   event(self, name, 'print')
   local text = self:format(name)
   if not self.off then print(text) end
end

-- One event's line in the reports.
local function report_line(e)
   local line = string.format('$ real %f | cpu %f <%s>', e.reald or -1, e.cpud or -1, tostring(e.name))
   if e.fps then line = line .. string.format(' = %f fps', 1 / (e.reald or -1)) end
   return line
end

-- formatAll(): '$ profiler report:' and a line for each event, in the order they were started.
function Profiler:formatAll()
   check_self(self, 'formatAll')
   local out = { '$ profiler report:' }
   for _, e in ipairs(self.list) do out[#out + 1] = report_line(e) end
   return table.concat(out, '\n')
end

function Profiler:printAll()
   check_self(self, 'printAll')
   local text = self:formatAll()
   if not self.off then print(text) end
end

-- displayAll{painter=[, x=][, y=][, zoom=][, font=]}: the report drawn on a qt painter (or
-- anything with the same moveto/show/setcolor methods), one line every 1.5 font sizes.
function Profiler:displayAll(args)
   check_self(self, 'displayAll')
   if type(args) ~= 'table' then
      error('xlua.Profiler:displayAll: bad argument #1 (table expected, got ' .. type(args) .. ')', 2)
   end
   local painter = args.painter or args.win
   if not painter then error('xlua.Profiler:displayAll: needs a painter (painter= or win=)', 2) end
   local x, y, zoom = args.x or 0, args.y or 0, args.zoom or 1
   local size = args.font or 24 * zoom
   local qt = rawget(_G, 'qt')
   if type(qt) == 'table' and qt.QFont then
      painter:setfont(qt.QFont { serif = false, italic = false, size = size })
   end
   if self.off then return end
   for _, e in ipairs(self.list) do
      painter:setcolor(e.color or 'black')
      painter:moveto(x, y)
      painter:show(report_line(e))
      y = y + size * 1.5
   end
end

local xlua = rawget(_G, 'xlua')
if type(xlua) == 'table' then xlua.Profiler = Profiler end
return Profiler
