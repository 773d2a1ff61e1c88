-- An end callback that fails while its pool is collected at exit: reported on stderr, and the
-- script still ends normally.
local threads = require 'threads'
local pool = threads.Threads(1)
pool:addjob(function() return 1 end, function() error('error from the end callback') end)
print('ok')
