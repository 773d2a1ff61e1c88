-- th ipc/spawn_exit.lua end|error|exit: starts `sleep 100`, prints its pid, then ends normally,
-- raises, or calls os.exit(3) without waiting. tests/ipc_spawn.rs checks that the child is gone.
local ipc = require 'libipc'
local p = ipc.spawn({ file = 'sleep', args = { 100 } })
print('child ' .. p:pid())
io.stdout:flush()
local how = arg[1]
if how == 'error' then error('spawn_exit raised') end
if how == 'exit' then os.exit(3) end
