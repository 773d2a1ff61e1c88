-- optim.polyinterp(points[, xminBound[, xmaxBound]]): the minimiser of the polynomial that
-- interpolates points, an n x 3 tensor (or table) of (x, f(x), f'(x)) triplets, within
-- [xminBound, xmaxBound] (the points' range by default). Used by optim.lswolfe.
--
-- Two points without bounds (the common case) take the closed form of the cubic; otherwise the
-- polynomial of degree 2n-1 through the values and slopes is solved for, and the lowest of the
-- bounds, the points and the real critical points within the bounds wins (the midpoint of the
-- bounds if none evaluates to a number). Returns the position, and in the general case also the
-- polynomial's value there.
local checks = require 'optim.checks'
local linalg = require 'optim.linalg'

local NAME = 'optim.polyinterp'

-- The points as an array of {x, f, g}, from a tensor or a table of triplets.
local function read_points(points)
   local rows = {}
   if torch.isTensor(points) then
      if points:dim() ~= 2 or points:size(2) ~= 3 then
         checks.fail(NAME, 'points must be an n x 3 tensor of (x, f(x), f\'(x)) rows')
      end
      for i = 1, points:size(1) do
         rows[i] = { points[i][1], points[i][2], points[i][3] }
      end
   elseif type(points) == 'table' then
      for i, p in ipairs(points) do
         if type(p) ~= 'table' or #p ~= 3 then
            checks.fail(NAME, 'points must be an n x 3 tensor of (x, f(x), f\'(x)) rows')
         end
         rows[i] = { p[1], p[2], p[3] }
      end
   else
      checks.fail(NAME, 'bad argument #1 (points: an n x 3 tensor expected, got '
         .. torch.type(points) .. ')')
   end
   if #rows == 0 then checks.fail(NAME, 'no points to interpolate') end
   return rows
end

-- The cubic through two points with their slopes, minimised between them.
local function cubic_minimum(p, q)
   -- lo is the point with the smaller x (the first on a tie), hi the other.
   local lo, hi = p, q
   if q[1] < p[1] then lo, hi = q, p end
   local d1 = lo[3] + hi[3] - 3 * (lo[2] - hi[2]) / (lo[1] - hi[1])
   local d2 = math.sqrt(d1 * d1 - lo[3] * hi[3])
   if d2 ~= d2 then
      -- No real minimiser (complex roots): the middle of the two.
      return (lo[1] + hi[1]) / 2
   end
   local t = hi[1] - (hi[1] - lo[1]) * ((hi[3] + d2 - d1) / (hi[3] - lo[3] + 2 * d2))
   return math.min(math.max(t, lo[1]), hi[1])
end

return function(points, xminBound, xmaxBound)
   local rows = read_points(points)
   local n = #rows
   if n == 2 and xminBound == nil and xmaxBound == nil then
      return cubic_minimum(rows[1], rows[2])
   end

   local xmin, xmax = math.huge, -math.huge
   for _, r in ipairs(rows) do
      xmin, xmax = math.min(xmin, r[1]), math.max(xmax, r[1])
   end
   xminBound = xminBound or xmin
   xmaxBound = xmaxBound or xmax

   -- The polynomial sum_k c_k x^(order-k+1), k = 1..order+1, matching each point's value and
   -- slope: 2n equations for 2n coefficients.
   local order = 2 * n - 1
   local A, b = {}, {}
   for i, r in ipairs(rows) do
      local value, slope = {}, {}
      for k = 1, order + 1 do
         local power = order - k + 1
         value[k] = r[1] ^ power
         slope[k] = power > 0 and power * r[1] ^ (power - 1) or 0
      end
      A[i], b[i] = value, r[2]
      A[n + i], b[n + i] = slope, r[3]
   end
   local params = linalg.solve(A, b)

   -- Candidates: the bounds and the points, then the critical points (the real roots of the
   -- derivative) when the polynomial could be found.
   local candidates = { xminBound, xmaxBound }
   for _, r in ipairs(rows) do candidates[#candidates + 1] = r[1] end
   if params then
      for k = 1, #params do
         if math.abs(params[k]) <= 1e-12 then params[k] = 0 end
      end
      local dparams, finite = {}, true
      for k = 1, order do
         dparams[k] = params[k] * (order - k + 1)
         if dparams[k] ~= dparams[k] or math.abs(dparams[k]) == math.huge then finite = false end
      end
      if finite then
         for _, root in ipairs(linalg.realroots(dparams)) do
            candidates[#candidates + 1] = root
         end
      end
   end

   local minPos, fmin = (xminBound + xmaxBound) / 2, math.huge
   if params then
      for _, x in ipairs(candidates) do
         if x >= xminBound and x <= xmaxBound then
            local f = linalg.polyval(params, x)
            if f < fmin then minPos, fmin = x, f end
         end
      end
   end
   return minPos, fmin
end
