# Sourced, not run: sets this shell's MPS client environment (CUDA_MPS_PIPE_DIRECTORY,
# CUDA_MPS_LOG_DIRECTORY, CUDA_VISIBLE_DEVICES by UUID) for the group of GPUs started by mps.sh.
#
#   source scripts/mps/mps-env.sh [--user|--system] [--no-visible] [GPUS]   # GPUS defaults to all
#   source scripts/mps/mps-env.sh --unset                                   # back to no MPS
#
# The same as: eval "$(scripts/mps/mps.sh env ...)". Needs bash (for BASH_SOURCE). Sets nothing when
# mps.sh finds no group; returns mps.sh's status (3: the group's daemon is not running).
__luatorch_mps_out=$("$(dirname -- "${BASH_SOURCE[0]}")/mps.sh" env "$@")
__luatorch_mps_rc=$?
[ -z "$__luatorch_mps_out" ] || eval "$__luatorch_mps_out"
unset __luatorch_mps_out
return "$__luatorch_mps_rc" 2>/dev/null || exit "$__luatorch_mps_rc"
