-- Lua side of the random numbers: torch.Generator objects and argument forms.
local Random = {}

return Random
