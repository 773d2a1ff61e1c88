#!/usr/bin/env bash
# The GPU checks of cunn, cudnn, NCCL 1.x scripts, several workers per GPU, MPS and the
# data-parallel trainer, in one go for a GPU machine lent for a short while:
#    benches/gpu_issue20.sh TH LOGDIR [SEED]
# SEED is a folder holding the scripts of CCorfield/Torch-parallel-nccl-MPS-Example (not part of
# this repository); their steps are skipped without it. Each step's output goes to
# LOGDIR/<step>.log and a summary line to stdout; each step is stopped after STEP_TIMEOUT seconds
# (default 120). The exit status is that of the first failed check.
set -u
TH=$(realpath "$1")
LOG=$(realpath -m "$2")
SEED=${3:-}
mkdir -p "$LOG"
REPO=$(cd "$(dirname "$0")/.." && pwd)
export LUATORCH_CUDA_CACHE=${LUATORCH_CUDA_CACHE:-/tmp/luatorch-kernels}
STEP_TIMEOUT=${STEP_TIMEOUT:-120}
status=0
step() {
   local name=$1 kind=$2 dir=$3
   shift 3
   local t0=$SECONDS
   (cd "$dir" && timeout -k 5 "$STEP_TIMEOUT" "$@") >"$LOG/$name.log" 2>&1
   local rc=$?
   echo "$name: exit $rc in $((SECONDS - t0)) s; last line: $(tail -n 1 "$LOG/$name.log" | cut -c1-200)"
   if [ "$kind" = check ] && [ $rc -ne 0 ] && [ $status -eq 0 ]; then status=$rc; fi
}
nvidia-smi -L >"$LOG/nvidia-smi.log" 2>&1
nvidia-smi --query-gpu=index,uuid,compute_mode --format=csv,noheader >>"$LOG/nvidia-smi.log" 2>&1
CUDNN_LIB=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9 2>/dev/null | head -1)
echo "cudnn: ${CUDNN_LIB:-none}" >>"$LOG/nvidia-smi.log"

# Warm the kernel cache once (NVRTC), so later steps do not each pay the compile.
step warm check "$REPO" "$TH" -e "require 'cutorch'; print(torch.CudaTensor(4):fill(1):sum())"
step cuda-suite check "$REPO/tests/lua/cuda" "$TH" run_all.lua
step cunn-suite check "$REPO/tests/lua/cuda" "$TH" cunn_modules.lua
step cudnn-suite check "$REPO/tests/lua/cuda" env CUDNN_PATH="$CUDNN_LIB" REQUIRE_CUDNN=1 "$TH" cudnn_modules.lua
if ! tail -n 1 "$LOG/cudnn-suite.log" | grep -q '^ok$'; then
   # cuDNN's own log of every call (cuDNN 8.x and 9.x), to see the call that failed.
   step cudnn-debug bench "$REPO/tests/lua/cuda" env CUDNN_PATH="$CUDNN_LIB" CUDNN_LOGLEVEL_DBG=3 CUDNN_LOGINFO_DBG=1 \
      CUDNN_LOGDEST_DBG=stderr LUATORCH_CUDNN_VERBOSE=1 "$TH" cudnn_modules.lua
   tail -n 150 "$LOG/cudnn-debug.log" >"$LOG/cudnn-debug-tail.log"
   rm -f "$LOG/cudnn-debug.log"
fi
step nccl-suite check "$REPO/tests/lua/nccl" "$TH" gpu.lua
step nccl1-ffi check "$REPO/tests/lua/nccl" "$TH" v1_ffi.lua 4

if [ -n "$SEED" ] && [ -d "$SEED" ]; then
   S=$(mktemp -d)
   cp "$SEED"/*.lua "$S"/
   step seed-parallel-nccl check "$S" "$TH" parallel-nccl.lua
   grep -c "should be" "$LOG/seed-parallel-nccl.log" >>"$LOG/seed-parallel-nccl.log"
   # Train.lua hard-codes two GPUs: with one, numGPUs = 1 (two workers sharing the GPU).
   sed -i 's/^\(\s*local numGPUs\s*=\s*\)2/\11/' "$S/Train.lua"
   step seed-train check "$S" "$TH" Train.lua
   step seed-test check "$S" "$TH" Test.lua
   # Unchanged, on one GPU: the children told to use GPU 2 fail; the parent must say so, not hang.
   cp "$SEED/Train.lua" "$S/Train2.lua"
   step seed-train-unchanged bench "$S" "$TH" Train2.lua
fi

step mps-selftest check "$REPO" env TH="$TH" scripts/mps/selftest.sh

step bench-dp-gpu bench "$REPO" "$TH" examples/bench_data_parallel.lua --steps-small 300 --steps-conv 60 --dir /tmp --extra "--timeout 30"
# The same under MPS (a daemon of our own for GPU 0).
if scripts/mps/mps.sh start --user 0 >"$LOG/mps-start.log" 2>&1; then
   step bench-dp-gpu-mps bench "$REPO" bash -c "eval \"\$(scripts/mps/mps.sh env --user 0)\"; \"$TH\" examples/bench_data_parallel.lua --steps-small 300 --steps-conv 60 --dir /tmp --extra '--timeout 30'"
   if [ -n "$SEED" ] && [ -d "$SEED" ]; then
      step seed-parallel-nccl-mps check "$S" bash -c "eval \"\$(cd $REPO && scripts/mps/mps.sh env --user 0)\"; \"$TH\" parallel-nccl.lua"
   fi
   scripts/mps/mps.sh stop --user 0 >>"$LOG/mps-start.log" 2>&1
else
   echo "mps start failed: $(tail -n 2 "$LOG/mps-start.log")"
fi
step bench-dp-cpu bench "$REPO" "$TH" examples/bench_data_parallel.lua --cpu --steps-small 300 --steps-conv 60 --dir /tmp
exit $status
