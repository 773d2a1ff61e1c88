-- gnuplot.histc and gnuplot.hist: histograms, as a table (histc) and drawn as boxes (hist).
-- The module is a function that adds them to the gnuplot table it is given, with the function
-- that draws lines (gnuplot/init.lua calls it), so that it needs no require of its parent.
require 'torch'

local function fail(fname, msg)
   error('gnuplot.' .. fname .. ': ' .. msg, 0)
end

-- The counts of t's values in `bins` equal bins over [lo, hi], as torch.histc gives them: values
-- outside are left out, hi falls in the last bin, and lo == hi widens the range to [lo-1, hi+1].
local function counts(t, bins, lo, hi)
   if torch.histc then return torch.histc(t:double(), bins, lo, hi) end
   if lo == hi then lo, hi = lo - 1, hi + 1 end
   local v = t:double():contiguous():view(-1)
   local inside = v[v:ge(lo):cmul(v:le(hi))]
   local h = torch.zeros(bins)
   if inside:nElement() == 0 then return h end
   local idx = inside:add(-lo):mul(bins / (hi - lo)):floor():add(1):clamp(1, bins):long()
   h:indexAdd(1, idx, torch.ones(idx:nElement()))
   return h
end

-- An ASCII picture of a histogram from histc, `height` lines high.
local function histc_tostring(h, height)
   height = height or 10
   local top = h[h.max].nb
   local lines = {
      string.format('nsamples:  min:(bin:%d/#%d/cntr:%2.2f)  max:(bin:%d/#%d/cntr:%2.2f)',
         h.min, h[h.min].nb, h[h.min].val, h.max, h[h.max].nb, h[h.max].val),
      '--------:' .. string.rep('-', #h),
   }
   for row = height, 1, -1 do
      local level = top * (row - 0.5) / height
      local cells = {}
      for j = 1, #h do cells[j] = h[j].nb >= level and h[j].nb > 0 and '|' or ' ' end
      lines[#lines + 1] = string.format('%1.2e:', top * row / height) .. table.concat(cells)
   end
   local axis, centers = {}, {}
   for j = 1, #h do
      local tick = (j - 2) % 6 == 0
      axis[j] = tick and '^' or '-'
      if tick then centers[#centers + 1] = string.format('%+1.2f ', h[j].val) end
   end
   lines[#lines + 1] = '--------:' .. table.concat(axis)
   lines[#lines + 1] = 'centers ' .. table.concat(centers)
   return table.concat(lines, '\n')
end

-- histc(t[, bins[, min[, max[, raw]]]]): the histogram of t's values in `bins` bins (72 by
-- default) over [min, max] (t's range by default). With raw, the tensor of counts; else a table
-- with h[i] = {val = bin centre, nb = count}, h.raw (the counts), h.bins, h.binwidth, and h.max,
-- h.min (the fullest and emptiest bins), which prints as an ASCII histogram.
local function histc(t, bins, lo, hi, raw)
   if not torch.isTensor(t) or t:nElement() == 0 then
      fail('histc', 'usage: gnuplot.histc(tensor [, nBins] [, min] [, max])')
   end
   bins = bins or 72
   if type(bins) ~= 'number' or bins < 1 or bins % 1 ~= 0 then
      fail('histc', 'the number of bins must be a positive integer, got ' .. tostring(bins))
   end
   lo, hi = lo or t:min(), hi or t:max()
   local h = counts(t, bins, lo, hi)
   if raw then return h end

   local out = { raw = h, bins = bins, binwidth = (hi - lo) / bins }
   for i = 1, bins do
      out[i] = { val = lo + (i - 0.5) * out.binwidth, nb = h[i] }
   end
   local _, imax = torch.max(h, 1)
   local _, imin = torch.min(h, 1)
   out.max, out.min = imax[1], imin[1]
   return setmetatable(out, { __tostring = histc_tostring })
end

return function(gnuplot, lines)
   gnuplot.histc = histc

   -- hist(t[, bins[, min[, max]]]): draws histc's histogram as boxes; returns it.
   function gnuplot.hist(t, bins, lo, hi)
      local h = histc(t, bins, lo, hi)
      local centres = torch.Tensor(#h)
      for i = 1, #h do centres[i] = h[i].val end
      lines('hist', centres, h.raw, '|')
      return h
   end
end
