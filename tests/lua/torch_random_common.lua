-- Helpers shared by the torch_random_*.lua tests (loaded with dofile).
local T = {}

-- f(...) must fail with an error message containing `text` (plain text, not a pattern).
function T.fails(text, f, ...)
   local ok, err = pcall(f, ...)
   assert(not ok, 'expected an error containing "' .. text .. '"')
   err = tostring(err)
   assert(err:find(text, 1, true), 'error "' .. err .. '" does not contain "' .. text .. '"')
end

-- The elements of a tensor in logical order, as a Lua array.
function T.flat(t, out)
   out = out or {}
   if t:dim() == 1 then
      for i = 1, t:size(1) do out[#out + 1] = t[i] end
   elseif t:dim() > 1 then
      for i = 1, t:size(1) do T.flat(t[i], out) end
   end
   return out
end

function T.same(a, b, what)
   local x = type(a) == 'table' and a or T.flat(a)
   local y = type(b) == 'table' and b or T.flat(b)
   assert(#x == #y, (what or 'values') .. ': ' .. #x .. ' vs ' .. #y .. ' elements')
   for i = 1, #x do
      assert(x[i] == y[i], (what or 'values') .. ': element ' .. i .. ': ' .. x[i] .. ' vs ' .. y[i])
   end
end

function T.close(a, b, tol, what)
   assert(math.abs(a - b) <= tol, (what or 'value') .. ': ' .. a .. ' is not within ' .. tol .. ' of ' .. b)
end

-- Mean and (population) variance of a tensor's elements.
function T.moments(t)
   local x = T.flat(t)
   local s = 0
   for i = 1, #x do s = s + x[i] end
   local mean = s / #x
   local v = 0
   for i = 1, #x do v = v + (x[i] - mean) ^ 2 end
   return mean, v / #x
end

return T
