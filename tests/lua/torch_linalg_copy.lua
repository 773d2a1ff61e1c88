-- The blocked copy between transposed layouts (copy.rs's fast path for "copy a transposed matrix
-- into a contiguous one"): every element lands where the plain logical-order copy puts it, for
-- sizes around the block sizes (8 and 128), both directions, narrowed views, a 1-D destination
-- and type conversion.

local H = dofile('torch_linalg_helpers.lua')

-- A rows x cols tensor of type T holding i*1000 + j at (i, j).
local function numbered(T, rows, cols)
   local t = torch[T .. 'Tensor'](rows, cols)
   local s = t:storage()
   for i = 1, rows do
      for j = 1, cols do s[(i - 1) * cols + j] = i * 1000 + j end
   end
   return t
end

local function check_transpose(dst, src, what)
   -- dst reads as src's transpose.
   H.eq(dst:size(1), src:size(2), what .. ' rows')
   H.eq(dst:size(2), src:size(1), what .. ' cols')
   for i = 1, src:size(1) do
      local row = src[i]
      for j = 1, src:size(2) do
         if dst[j][i] ~= row[j] then
            error(what .. ': element ' .. j .. ',' .. i .. ' is ' .. dst[j][i] .. ', want ' .. row[j], 2)
         end
      end
   end
end

for _, size in ipairs { { 1, 1 }, { 3, 5 }, { 9, 17 }, { 130, 9 }, { 8, 128 }, { 257, 131 } } do
   local r, c = size[1], size[2]
   for _, T in ipairs { 'Double', 'Float', 'Int' } do
      local src = numbered(T, r, c)
      local what = T .. ' ' .. r .. 'x' .. c
      -- transposed source into a contiguous destination
      local dst = torch[T .. 'Tensor'](c, r):fill(-1)
      H.check(rawequal(dst:copy(src:t()), dst), what .. ' copy returns dst')
      check_transpose(dst, src, what .. ' contiguous <- transposed')
      -- contiguous source into a transposed destination
      local back = torch[T .. 'Tensor'](r, c):fill(-1)
      back:t():copy(dst)
      check_transpose(dst, back, what .. ' transposed <- contiguous')
      -- with conversion
      local conv = torch.DoubleTensor(c, r):copy(src:t())
      check_transpose(conv, src, what .. ' to Double')
   end
end

-- A narrowed source (rows of a wider matrix) and a 1-D destination (logical order).
local wide = numbered('Double', 20, 30)
local part = wide:narrow(1, 3, 11):narrow(2, 4, 13)
local dst = torch.DoubleTensor(13, 11):copy(part:t())
check_transpose(dst, part, 'narrowed source')
local flat = torch.FloatTensor(11 * 13):copy(part:t())
for k = 1, 11 * 13 do
   local j, i = math.floor((k - 1) / 11) + 1, (k - 1) % 11 + 1
   H.eq(flat[k], part[i][j], 'flat element ' .. k)
end
-- Into a narrowed destination: the rest of its parent stays as it was.
local parent = torch.IntTensor(15, 14):fill(-1)
parent:narrow(1, 2, 13):narrow(2, 3, 11):copy(part:t())
for i = 1, 15 do
   for j = 1, 14 do
      local inside = i >= 2 and i <= 14 and j >= 3 and j <= 13
      if inside then
         H.eq(parent[i][j], part[j - 2][i - 1], 'narrowed destination ' .. i .. ',' .. j)
      else
         H.eq(parent[i][j], -1, 'outside the narrowed destination ' .. i .. ',' .. j)
      end
   end
end
print('ok')
