-- Lua side of the maths: the tensor operators and the torch.* function forms of the math methods.
local Math = {}

return Math
