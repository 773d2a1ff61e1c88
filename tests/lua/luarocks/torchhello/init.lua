require 'nn'
local tds = require 'tds'
local moses = require 'moses'

torchhello = {}

torch.include('torchhello', 'Doubler.lua')

-- A file the rock installs next to its Lua files (as image installs its assets).
function torchhello.greeting()
   local dir = paths.dirname(paths.thisfile())
   local f = assert(io.open(paths.concat(dir, 'assets', 'greeting.txt')))
   local text = f:read('*l')
   f:close()
   return text
end

function torchhello.count(words)
   local counts = tds.Hash()
   moses.each(words, function(_, w) counts[w] = (counts[w] or 0) + 1 end)
   return counts
end

return torchhello
