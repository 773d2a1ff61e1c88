#!/usr/bin/env python3
"""PyTorch's side of examples/bench_cuda_mm.lua: an N x N float32 torch.mm on the GPU, timed as
the th side is (median of REPS products after a warm-up, synchronizing around each).

Usage: cuda_mm_torch.py N REPS
Prints `seconds=<median>`, or a line saying why it cannot run.
"""

import sys
import time

N = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
REPS = int(sys.argv[2]) if len(sys.argv) > 2 else 20

try:
    import torch
except ImportError:
    print("PyTorch is not installed")
    sys.exit(0)
if not torch.cuda.is_available():
    print("PyTorch sees no CUDA device")
    sys.exit(0)

# The same arithmetic as cuBLAS's default in th: full float32, no TF32.
torch.backends.cuda.matmul.allow_tf32 = False
a = torch.empty(N, N, device="cuda").uniform_(-1, 1)
b = torch.empty(N, N, device="cuda").uniform_(-1, 1)
c = torch.empty(N, N, device="cuda")
torch.mm(a, b, out=c)
torch.cuda.synchronize()
times = []
for _ in range(REPS):
    t0 = time.perf_counter()
    torch.mm(a, b, out=c)
    torch.cuda.synchronize()
    times.append(time.perf_counter() - t0)
times.sort()
print(f"seconds={times[(len(times) + 1) // 2 - 1]:.9f}")
