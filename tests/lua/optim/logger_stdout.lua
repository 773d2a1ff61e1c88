-- optim.Logger() without a file name logs to stdout, after a warning.
require 'optim'
local logger = optim.Logger()
logger:setNames { 'a', 'b' }
logger:add { 1, 'x' }
print('ok')
