-- optim.Logger's file, exactly as Torch's Logger writes it, and its errors. (Plotting: see
-- logger_plot.lua.)
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local dir = H.tempdir('logger')

-- setNames, then rows of values in that order: every field followed by a tab, numbers '%11.4e'.
do
   local path = dir .. '/named.log'
   local logger = optim.Logger(path)
   H.eq(logger:setNames { 'train error', 'test error' }, logger, 'setNames returns the logger')
   logger:add { 0.5, 0.25 }
   logger:add { 1234.5, -0.001 }
   logger:add { 'n/a', 3 }
   -- Values may also be keyed by name after setNames.
   logger:add { ['test error'] = 2, ['train error'] = 1 }
   H.eq(H.read(path), 'train error\ttest error\t\n'
      .. ' 5.0000e-01\t 2.5000e-01\t\n'
      .. ' 1.2345e+03\t-1.0000e-03\t\n'
      .. 'n/a\t 3.0000e+00\t\n'
      .. ' 1.0000e+00\t 2.0000e+00\t\n', 'log with setNames')
   H.eq(logger.name, path, 'logger.name')
   H.eq(logger.epsfile, path .. '.eps', 'logger.epsfile')
   H.eq(#logger.symbols[1], 4, 'values kept for plotting')
   H.eq(logger.symbols[2][2], -0.001, 'values kept as given')
   H.eq(logger.idx['test error'], 2, 'logger.idx')
end

-- Without setNames: the first add's names, sorted, fix the columns; a row lacking a name leaves
-- its field empty; strings are written as they are.
do
   local path = dir .. '/sub/dir/auto.log'   -- directories are made
   local logger = optim.Logger(path)
   logger:add { loss = 0.125, accuracy = 0.5, epoch = 1 }
   logger:add { loss = 0.0625, epoch = 2, accuracy = 'high' }
   logger:add { epoch = 3 }
   H.eq(H.read(path), 'accuracy\tepoch\tloss\t\n'
      .. ' 5.0000e-01\t 1.0000e+00\t 1.2500e-01\t\n'
      .. 'high\t 2.0000e+00\t 6.2500e-02\t\n'
      .. '\t 3.0000e+00\t\t\n', 'log without setNames')
   H.eq(logger.names.loss, 'loss', 'names are the keys')

   -- A bad row is refused whole: the file is unchanged.
   local before = H.read(path)
   H.errors(function() logger:add { loss = 1, speed = 2 } end,
      'optim.Logger:add: unknown name speed')
   H.errors(function() logger:add { loss = true } end,
      'optim.Logger:add: can only log numbers and strings, got boolean for loss')
   H.errors(function() logger:add(3) end, 'optim.Logger:add: bad argument #1')
   H.eq(H.read(path), before, 'nothing written by a refused row')
   H.errors(function() logger:setNames { 'a' } end, 'optim.Logger:setNames: the names are already set')
   H.errors(function() logger:style { loss = 3 } end,
      'optim.Logger:style: style should be a string or a table of strings')
end

-- Styles, display and the log scale are remembered for plot.
do
   local logger = optim.Logger(dir .. '/styles.log')
   logger:setNames { 'a', 'b' }
   logger:style { '-', { '+', '-' } }
   H.eq(logger.styles[1][1], '-', 'style by position')
   H.eq(logger.styles[2][2], '-', 'a table of styles')
   logger:style { b = '|' }
   H.eq(logger.styles[2][1], '|', 'style by name after setNames')
   H.eq(logger.showPlot, true, 'showPlot by default')
   logger:display(false)
   H.eq(logger.showPlot, false, 'display(false)')
   logger:setlogscale(true)
   H.eq(logger.logscale, true, 'setlogscale')
   H.eq(logger.defaultStyle, '+', 'defaultStyle')
end

-- A timestamp makes a file of its own: name-YYYY_MM_DD_HH:MM:SS.
do
   local logger = optim.Logger(dir .. '/stamped.log', true)
   logger:add { 1 }
   local found
   for f in paths.files(dir) do
      if f:match('^stamped%.log%-%d%d%d%d_%d%d_%d%d_%d%d:%d%d:%d%d$') then found = f end
   end
   assert(found, 'no timestamped log in ' .. dir)
   H.eq(H.read(dir .. '/' .. found), '1\t\n 1.0000e+00\t\n', 'timestamped log')
   H.eq(logger.epsfile, dir .. '/stamped.log.eps', 'the plot is named without the timestamp')
end

-- A log below a plain file cannot be made.
io.open(dir .. '/plain', 'w'):close()
H.errors(function() optim.Logger(dir .. '/plain/x.log') end,
   'optim.Logger: cannot open ' .. dir .. '/plain/x.log')
H.errors(function() optim.Logger(42) end, 'optim.Logger: bad argument #1')

os.execute('rm -rf ' .. dir)
print('ok')
