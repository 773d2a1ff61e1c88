-- Small dense linear algebra on Lua numbers, for the places optim needs LAPACK routines on tiny
-- matrices: solving polyinterp's 2n x 2n system (torch.gels in Torch), the real roots of its
-- derivative (torch.eig of a companion matrix there), and the symmetric eigendecomposition that
-- cmaes uses when torch.symeig is missing. The matrices are a handful of rows (cmaes: the
-- problem's dimension), where plain Lua is fast enough and needs no LAPACK.
local linalg = {}

local abs, sqrt, max = math.abs, math.sqrt, math.max

local function finite(v) return v == v and v ~= math.huge and v ~= -math.huge end

-- Solves the square system A z = b (A an array of rows, b an array) by Gaussian elimination with
-- partial pivoting. nil when A is singular (a zero pivot) or holds NaNs.
function linalg.solve(A, b)
   local n = #b
   local M = {}
   for i = 1, n do
      local row = {}
      for j = 1, n do row[j] = A[i][j] end
      row[n + 1] = b[i]
      M[i] = row
   end
   for col = 1, n do
      local pivot, best = col, abs(M[col][col])
      for r = col + 1, n do
         local v = abs(M[r][col])
         if v > best then pivot, best = r, v end
      end
      if not (best > 0) then return nil end
      M[col], M[pivot] = M[pivot], M[col]
      local prow = M[col]
      for r = col + 1, n do
         local row = M[r]
         local factor = row[col] / prow[col]
         if factor ~= 0 then
            for j = col, n + 1 do row[j] = row[j] - factor * prow[j] end
         end
      end
   end
   local z = {}
   for i = n, 1, -1 do
      local row, s = M[i], M[i][n + 1]
      for j = i + 1, n do s = s - row[j] * z[j] end
      z[i] = s / row[i]
   end
   return z
end

-- The value at x of the polynomial with coefficients c, highest power first.
function linalg.polyval(c, x)
   local v = 0
   for i = 1, #c do v = v * x + c[i] end
   return v
end

-- All roots of a monic-normalised polynomial of degree >= 3 (coefficients c, highest first, c[1]
-- not zero), by the Durand-Kerner iteration; each root as {re, im}.
local function complex_roots(c)
   local n = #c - 1
   local a = {}
   for i = 1, #c do a[i] = c[i] / c[1] end
   -- p(z) for complex z = (zr, zi), by Horner's rule.
   local function p(zr, zi)
      local vr, vi = 0, 0
      for i = 1, #a do
         vr, vi = vr * zr - vi * zi + a[i], vr * zi + vi * zr
      end
      return vr, vi
   end
   -- Start from powers of a complex number that is neither real nor a root of unity.
   local re, im = {}, {}
   local br, bi = 0.4, 0.9
   local zr, zi = 1, 0
   for k = 1, n do
      zr, zi = zr * br - zi * bi, zr * bi + zi * br
      re[k], im[k] = zr, zi
   end
   for _ = 1, 1000 do
      local moved = 0
      for k = 1, n do
         local nr, ni = p(re[k], im[k])
         -- Divide by the product of (z_k - z_j) over the other roots.
         local dr, di = 1, 0
         for j = 1, n do
            if j ~= k then
               local er, ei = re[k] - re[j], im[k] - im[j]
               dr, di = dr * er - di * ei, dr * ei + di * er
            end
         end
         local d2 = dr * dr + di * di
         if d2 == 0 then dr, di, d2 = 1e-12, 0, 1e-24 end
         local qr, qi = (nr * dr + ni * di) / d2, (ni * dr - nr * di) / d2
         re[k], im[k] = re[k] - qr, im[k] - qi
         moved = max(moved, sqrt(qr * qr + qi * qi) / (1 + sqrt(re[k] ^ 2 + im[k] ^ 2)))
      end
      if moved < 1e-15 then break end
   end
   local roots = {}
   for k = 1, n do roots[k] = { re[k], im[k] } end
   return roots
end

-- The real roots of the polynomial with coefficients c (highest power first), in no particular
-- order, a double root twice. Coefficients below 1e-12 in magnitude count as zero, as in Torch's
-- polyinterp; a polynomial that is zero everywhere has none.
function linalg.realroots(c)
   local coef = {}
   for i = 1, #c do coef[i] = abs(c[i]) < 1e-12 and 0 or c[i] end
   -- Leading zeros lower the degree; trailing zeros are roots at 0.
   local first = 1
   while first <= #coef and coef[first] == 0 do first = first + 1 end
   local last = #coef
   local roots = {}
   while last > first and coef[last] == 0 do
      roots[#roots + 1] = 0
      last = last - 1
   end
   if first > last then return {} end
   local p = {}
   for i = first, last do p[#p + 1] = coef[i] end
   local n = #p - 1
   if n == 1 then
      roots[#roots + 1] = -p[2] / p[1]
   elseif n == 2 then
      local a, b, cc = p[1], p[2], p[3]
      local disc = b * b - 4 * a * cc
      if disc >= 0 then
         -- The form that does not subtract nearly equal numbers.
         local q = -0.5 * (b + (b < 0 and -1 or 1) * sqrt(disc))
         roots[#roots + 1] = q / a
         roots[#roots + 1] = cc / q
      end
   elseif n >= 3 then
      for _, z in ipairs(complex_roots(p)) do
         local zr, zi = z[1], z[2]
         if finite(zr) and abs(zi) <= 1e-8 * max(1, abs(zr)) then
            -- Polish on the real polynomial: the iteration leaves double roots less exact.
            local dp = {}
            for i = 1, n do dp[i] = p[i] * (n - i + 1) end
            for _ = 1, 3 do
               local d = linalg.polyval(dp, zr)
               if d == 0 then break end
               local step = linalg.polyval(p, zr) / d
               if not finite(step) then break end
               zr = zr - step
            end
            roots[#roots + 1] = zr
         end
      end
   end
   return roots
end

-- Eigenvalues (ascending) and eigenvectors (the columns of V) of the symmetric matrix C, a 2-D
-- tensor, by cyclic Jacobi rotations. Returns tensors of C's type, as torch.symeig(C, 'V') does.
function linalg.symeig(C)
   local n = C:size(1)
   local a, v = {}, {}
   local total = 0
   for i = 1, n do
      a[i], v[i] = {}, {}
      for j = 1, n do
         a[i][j] = C[i][j]
         v[i][j] = i == j and 1 or 0
         total = total + a[i][j] ^ 2
      end
   end
   for _ = 1, 100 do
      local off = 0
      for p = 1, n - 1 do
         for q = p + 1, n do off = off + a[p][q] ^ 2 end
      end
      if off <= 1e-30 * total then break end
      for p = 1, n - 1 do
         for q = p + 1, n do
            local apq = a[p][q]
            if apq ~= 0 then
               -- The rotation in the (p, q) plane that zeroes a[p][q] (Numerical Recipes 11.1).
               local theta = (a[q][q] - a[p][p]) / (2 * apq)
               local t = (theta < 0 and -1 or 1) / (abs(theta) + sqrt(theta * theta + 1))
               local c = 1 / sqrt(t * t + 1)
               local s = t * c
               for k = 1, n do
                  local akp, akq = a[k][p], a[k][q]
                  a[k][p], a[k][q] = c * akp - s * akq, s * akp + c * akq
               end
               for k = 1, n do
                  local apk, aqk = a[p][k], a[q][k]
                  a[p][k], a[q][k] = c * apk - s * aqk, s * apk + c * aqk
               end
               for k = 1, n do
                  local vkp, vkq = v[k][p], v[k][q]
                  v[k][p], v[k][q] = c * vkp - s * vkq, s * vkp + c * vkq
               end
            end
         end
      end
   end
   local order = {}
   for i = 1, n do order[i] = i end
   table.sort(order, function(i, j) return a[i][i] < a[j][j] end)
   local e, V = C.new(n), C.new(n, n)
   for col, i in ipairs(order) do
      e[col] = a[i][i]
      for k = 1, n do V[k][col] = v[k][i] end
   end
   return e, V
end

return linalg
