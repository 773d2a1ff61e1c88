-- nn.Clamp(min_value, max_value): y = x clamped to [min_value, max_value]; a HardTanh with those
-- bounds.

require 'nn.HardTanh'
local Clamp, parent = torch.class('nn.Clamp', 'nn.HardTanh')

function Clamp:__init(min_value, max_value)
   parent.__init(self, min_value, max_value)
end

return Clamp
