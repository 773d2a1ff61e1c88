-- Shared by the optim test scripts, which tests/optim.rs runs from tests/lua as `th optim/X.lua`.
-- Load it with
--    local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
require 'torch'
require 'optim'

local H = {}

-- Rosenbrock's function sum_i 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2 and its gradient; the
-- minimum is 0 at (1, ..., 1).
function H.rosenbrock(x)
   local n = x:size(1)
   local a, b = x:narrow(1, 1, n - 1), x:narrow(1, 2, n - 1)
   local r = b - torch.cmul(a, a)              -- x_{i+1} - x_i^2
   local s = a:clone():mul(-1):add(1)          -- 1 - x_i
   local f = 100 * r:dot(r) + s:dot(s)
   local g = x.new(n):zero()
   g:narrow(1, 1, n - 1):add(-400, torch.cmul(a, r)):add(-2, s)
   g:narrow(1, 2, n - 1):add(200, r)
   return f, g
end

-- The quadratic 1/2 (x - c)' diag(1..n) (x - c), minimum 0 at c = (1, -2, 3, -4, ...).
function H.quadratic_centre(n)
   local c = torch.Tensor(n)
   for i = 1, n do c[i] = i % 2 == 1 and i or -i end
   return c
end

function H.quadratic(x)
   local n = x:size(1)
   local d = x - H.quadratic_centre(n)
   local g = torch.cmul(torch.range(1, n), d)
   return 0.5 * d:dot(g), g
end

function H.fail(msg)
   error(msg, 2)
end

function H.near(a, b, tol, what)
   if type(a) ~= 'number' or type(b) ~= 'number' or not (math.abs(a - b) <= tol) then
      error(string.format('%s: %.17g, expected %.17g (within %g)', what or 'value', a, b, tol), 2)
   end
end

-- Every element of the tensor t against the numbers of the list `expected`.
function H.near_all(t, expected, tol, what)
   local flat = torch.DoubleTensor(t:nElement()):copy(t)
   if flat:nElement() ~= #expected then
      error(string.format('%s: %d elements, expected %d', what, flat:nElement(), #expected), 2)
   end
   for i = 1, #expected do
      if not (math.abs(flat[i] - expected[i]) <= tol) then
         error(string.format('%s[%d]: %.17g, expected %.17g (within %g)', what, i, flat[i],
            expected[i], tol), 2)
      end
   end
end

function H.eq(a, b, what)
   if a ~= b then
      error(string.format('%s: %s, expected %s', what or 'value', tostring(a), tostring(b)), 2)
   end
end

-- f() must fail with a message containing `pattern` (plain text).
function H.errors(f, pattern, what)
   local ok, err = pcall(f)
   if ok then error((what or pattern) .. ': no error', 2) end
   if not tostring(err):find(pattern, 1, true) then
      error(string.format('%s: error %q does not contain %q', what or pattern, tostring(err),
         pattern), 2)
   end
end

-- A fresh empty directory for the files a script writes.
function H.tempdir(name)
   local dir = os.tmpname()
   os.remove(dir)
   dir = dir .. '-' .. name
   assert(paths.mkdir(dir))
   return dir
end

function H.read(path)
   local f = assert(io.open(path, 'rb'))
   local s = f:read('*a')
   f:close()
   return s
end

return H
