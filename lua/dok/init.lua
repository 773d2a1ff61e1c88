-- dok: the helpers of torch/dok that packages still call (image, and scripts written against it):
-- dok.unpack (named or positional arguments with defaults), dok.usage (their help text) and
-- dok.error. The documentation browser itself is not included.

require 'xlua'

dok = dok or {}

dok.unpack = xlua.unpack
dok.usage = xlua.usage

-- error(message[, domain]): raises '<domain> message', as xlua.error does.
function dok.error(message, domain)
   if domain then message = '<' .. tostring(domain) .. '> ' .. tostring(message) end
   error(message, 2)
end

return dok
