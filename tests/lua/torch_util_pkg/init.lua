-- A package on disk for the torch.include tests.
local pkg = {}
return pkg
