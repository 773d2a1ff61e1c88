-- Shared by the image test scripts: checks that count, tensors compared with a tolerance, the
-- fixtures (tests/fixtures/image) and their expected pixels, and errors matched by their text.

local h = { count = 0 }

h.fixtures = '../../fixtures/image/'
h.expected = dofile(h.fixtures .. 'expected.lua')

function h.check(cond, what)
   h.count = h.count + 1
   if not cond then error('failed: ' .. what, 2) end
end

-- The largest absolute difference between two tensors (any types), compared as doubles.
function h.maxdiff(a, b)
   if a:nElement() ~= b:nElement() then return math.huge end
   return (a:double():contiguous():view(-1) - b:double():contiguous():view(-1)):abs():max()
end

function h.near(a, b, tol, what)
   h.count = h.count + 1
   local ok = a:isSameSizeAs(b) and h.maxdiff(a, b) <= (tol or 0)
   if not ok then
      error(string.format('failed: %s (sizes %s vs %s, max difference %s)', what,
         table.concat(a:size():totable(), 'x'), table.concat(b:size():totable(), 'x'),
         tostring(a:isSameSizeAs(b) and h.maxdiff(a, b) or '-')), 2)
   end
end

-- The expected pixels of a fixture as a DoubleTensor C x H x W.
function h.want(name)
   local e = assert(h.expected[name], 'no expected values for ' .. name)
   return torch.DoubleTensor(e[4]):view(e[1], e[2], e[3])
end

-- Runs f, which must fail with a message containing every one of the plain strings given.
function h.fails(f, what, ...)
   h.count = h.count + 1
   local ok, err = pcall(f)
   if ok then error('failed: ' .. what .. ' did not raise an error', 2) end
   err = tostring(err)
   for _, part in ipairs({ ... }) do
      if not err:find(part, 1, true) then
         error(string.format('failed: %s: the error %q does not say %q', what, err, part), 2)
      end
   end
   return err
end

function h.tmp(name)
   local dir = os.getenv('IMAGE_TEST_TMP') or '/tmp'
   return string.format('%s/luatorch-image-%d-%s', dir, math.random(1e9), name)
end

function h.done()
   print(h.count .. ' checks')
   print('ok')
end

return h
