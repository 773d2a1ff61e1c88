-- Run by torch.include('torch_util_pkg', 'extra.lua') and by include() from a sibling file.
TORCH_UTIL_EXTRA_RUNS = (TORCH_UTIL_EXTRA_RUNS or 0) + 1
return 'extra result'
