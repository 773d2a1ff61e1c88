-- gModules saved by this Torch load back and compute what they computed: fixtures recorded
-- with make_fixtures.lua into a temporary folder, then checked as test_fixtures.lua checks the
-- original Torch7's. (For the original Torch7 to check luatorch's files, run
-- make_fixtures.lua DIR here, then test_fixtures.lua DIR with Torch7.)
--   th test_roundtrip.lua

local here = paths.dirname(paths.thisfile())
local dir = os.tmpname()
os.remove(dir)

local function run(script, ...)
   local saved = arg
   arg = { ... }
   local ok, err = pcall(dofile, paths.concat(here, script))
   arg = saved
   if not ok then error(err, 0) end
end

run('fixtures/make_fixtures.lua', dir)
run('test_fixtures.lua', dir)

-- the same seed gives the original's parameters when the random generators agree (a note only)
for _, name in ipairs { 'mlp2', 'lstm' } do
   local mine = torch.load(paths.concat(dir, name .. '.t7'))
   local theirs = torch.load(paths.concat(here, 'fixtures', name .. '.t7'))
   print(string.format('%s: parameters %s Torch7 fixture', name,
      (mine.params - theirs.params):abs():max() == 0 and 'equal to the' or 'differ from the'))
end
os.execute("rm -rf '" .. dir .. "'")
print('ok')
