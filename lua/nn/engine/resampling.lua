-- Resampling along dimensions, shared by the padding (reflection, replication) and up-sampling
-- (nearest, linear) modules: along a dimension, output position i takes
--   (1 - w[i]) * input[a[i]] + w[i] * input[b[i]]
-- (only input[a[i]] when there are no weights). A module lists one such rule per dimension it
-- changes; the backward pass is the transpose, adding each output's gradient back onto a[i] and
-- b[i] (indexAdd).

local resampling = {}

-- The rule along one dimension of size n padded by `before` and `after` positions (negative:
-- cropped), 'reflect' (mirrored about the edge elements) or 'replicate' (edge elements repeated).
function resampling.pad(n, before, after, mode)
   local out = n + before + after
   local a = torch.LongTensor(math.max(out, 0))
   for i = 1, out do
      local q = i - before
      if mode == 'reflect' then
         if q < 1 then q = 2 - q elseif q > n then q = 2 * n - q end
      else
         q = math.min(math.max(q, 1), n)
      end
      a[i] = q
   end
   return { a = a }
end

-- Nearest-neighbour up-sampling of n by an integer scale: output i takes input ceil(i / scale).
function resampling.nearest(n, scale)
   local a = torch.LongTensor(n * scale)
   for i = 1, n * scale do a[i] = math.floor((i - 1) / scale) + 1 end
   return { a = a }
end

-- Linear interpolation from n to m positions with the corners aligned: output i (0-based) sits at
-- input coordinate i * (n - 1) / (m - 1).
function resampling.linear(n, m)
   local a, b, w = torch.LongTensor(m), torch.LongTensor(m), torch.Tensor(m)
   local ratio = m > 1 and (n - 1) / (m - 1) or 0
   for i = 0, m - 1 do
      local at = i * ratio
      local lo = math.min(math.floor(at), n - 1)
      local hi = math.min(lo + 1, n - 1)
      a[i + 1], b[i + 1], w[i + 1] = lo + 1, hi + 1, at - lo
   end
   return { a = a, b = b, w = w }
end

-- The weights of a rule as a tensor of x's type shaped to broadcast along dimension `dim` of x.
local function weights(rule, x, dim)
   local shape = {}
   for d = 1, x:dim() do shape[d] = 1 end
   shape[dim] = rule.w:size(1)
   return rule.w:typeAs(x):view(torch.LongStorage(shape))
end

-- x resampled along each dimension dims[j] by rules[j].
function resampling.forward(x, dims, rules)
   local y = x
   for j, dim in ipairs(dims) do
      local rule = rules[j]
      local ya = y:index(dim, rule.a)
      if rule.w then
         local w = weights(rule, ya, dim):expandAs(ya)
         local yb = y:index(dim, rule.b)
         ya:add(torch.cmul(yb - ya, w))
      end
      y = ya
   end
   return y
end

-- The gradient with respect to x (of size `size`) of resampling.forward, given the output's.
function resampling.backward(gradY, size, dims, rules)
   -- The sizes after each step of the forward pass.
   local sizes = { torch.LongStorage(size:totable()) }
   for j, dim in ipairs(dims) do
      local s = torch.LongStorage(sizes[j]:totable())
      s[dim] = rules[j].a:size(1)
      sizes[j + 1] = s
   end
   local g = gradY
   for j = #dims, 1, -1 do
      local dim, rule = dims[j], rules[j]
      local gx = g.new(sizes[j]):zero()
      if rule.w then
         local w = weights(rule, g, dim):expandAs(g)
         local gb = torch.cmul(g, w)
         gx:indexAdd(dim, rule.a, g - gb)
         gx:indexAdd(dim, rule.b, gb)
      else
         gx:indexAdd(dim, rule.a, g:contiguous())
      end
      g = gx
   end
   return g
end

return resampling
