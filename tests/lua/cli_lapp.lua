-- penlight's lapp as a global, as under trepl (penlight is trepl's dependency): torch-ipc's own
-- examples parse their arguments with it. tests/cli.rs runs
--    th cli_lapp.lua -n 5 data.t7
local args = lapp [[
Trains something
  -n,--count (default 3) how many
  -v,--verbose  say more
  <file> (string) input
]]
assert(args.count == 5, tostring(args.count))
assert(args.verbose == false)
assert(args.file == 'data.t7', tostring(args.file))
assert(type(tablex) == 'table' and type(stringx) == 'table', 'other penlight globals')
print('ok')
