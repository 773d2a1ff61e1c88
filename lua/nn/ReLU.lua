-- nn.ReLU([ip]): max(0, x), a Threshold(0, 0).

require 'nn.Threshold'
local ReLU, parent = torch.class('nn.ReLU', 'nn.Threshold')

function ReLU:__init(p)
   parent.__init(self, 0, 0, p)
end

return ReLU
