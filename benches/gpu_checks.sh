#!/usr/bin/env bash
# Every GPU check and GPU benchmark of cutorch and nccl in one go, for a machine with a GPU and a
# th built elsewhere (a GPU machine lent for a short while: one call does it all):
#    benches/gpu_checks.sh [TH [LOGDIR]]
# TH defaults to target/release/th, LOGDIR to ./gpu-logs. Each step's output goes to LOGDIR/<step>.log
# and a summary line to stdout; the benchmarks' peers (PyTorch) run when python3 has torch.
# The exit status is that of the first failed check (benchmarks do not fail it). Each step is
# stopped after STEP_TIMEOUT seconds (default 300), so one hang cannot take the machine's lease.
set -u
TH=$(realpath "${1:-target/release/th}")
LOG=${2:-gpu-logs}
mkdir -p "$LOG"
status=0
STEP_TIMEOUT=${STEP_TIMEOUT:-300}
step() {
   local name=$1 kind=$2
   shift 2
   local t0=$SECONDS
   timeout -k 10 "$STEP_TIMEOUT" "$@" >"$LOG/$name.log" 2>&1
   local rc=$?
   echo "$name: exit $rc in $((SECONDS - t0)) s; last line: $(tail -n 1 "$LOG/$name.log")"
   if [ "$kind" = check ] && [ $rc -ne 0 ] && [ $status -eq 0 ]; then status=$rc; fi
}
nvidia-smi -L >"$LOG/nvidia-smi.log" 2>&1
step cuda-suite check "$TH" tests/lua/cuda/run_all.lua
step cuda-nogpu check env CUDA_VISIBLE_DEVICES= MOCK_CUDA_DEVICES=0 "$TH" tests/lua/cuda/nogpu.lua
step nccl-suite check "$TH" tests/lua/nccl/gpu.lua
# cudnn against nn (REQUIRE_CUDNN=1: fail unless a libcudnn was found and used; set VIRTUAL_ENV or
# CUDNN_PATH so that the pip wheel's is found).
step cudnn-suite check env REQUIRE_CUDNN=${REQUIRE_CUDNN:-0} "$TH" tests/lua/cuda/cudnn_modules.lua
step data-parallel check "$TH" examples/cuda_data_parallel.lua 1 300
step bench-mm bench "$TH" examples/bench_cuda_mm.lua 8192 20
step bench-ipc bench "$TH" examples/bench_cuda_ipc.lua 256 20
step bench-small-ops bench "$TH" examples/bench_cuda_small_ops.lua 65536 2000
step bench-elementwise bench "$TH" examples/bench_cuda_elementwise.lua 28 20
# The allreduce pair alternates three times (each side keeps its best median).
for round in 1 2 3; do
   step "bench-allreduce-th-$round" bench "$TH" benches/nccl_allreduce.lua 256 20
   step "bench-allreduce-torch-$round" bench python3 benches/nccl_allreduce_torch.py 256 20
done
exit $status
