#!/usr/bin/env python3
"""PyTorch's side of examples/bench_cuda_mm.lua: an N x N float32 torch.mm on the GPU, timed as
the th side is (median of REPS products after a warm-up, synchronizing around each).

Usage: cuda_mm_torch.py N REPS
Prints `seconds=<median>`, or a line saying why it cannot run.
"""

import time

from torch_cuda_peer import cuda_torch, int_arg, median

N = int_arg(1, 8192)
REPS = int_arg(2, 20)
torch = cuda_torch()

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
print(f"seconds={median(times):.9f}")
