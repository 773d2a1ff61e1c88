#!/usr/bin/env python3
"""PyTorch's side of examples/bench_cuda_elementwise.lua: c = a + b and a.sum() over 2^LOG2 float32
elements on the GPU, timed as the th side is (median of REPS runs after a warm-up, synchronizing
around each).

Usage: cuda_elementwise_torch.py LOG2 REPS
Prints `add=<median seconds> sum=<median seconds>`, or a line saying why it cannot run.
"""

import time

from torch_cuda_peer import cuda_torch, int_arg, median

LOG2 = int_arg(1, 28)
REPS = int_arg(2, 20)
torch = cuda_torch()

n = 1 << LOG2
a = torch.empty(n, device="cuda").uniform_(-1, 1)
b = torch.empty(n, device="cuda").uniform_(-1, 1)
c = torch.empty(n, device="cuda")


def timed(f):
    f()
    torch.cuda.synchronize()
    times = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        f()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return median(times)


add = timed(lambda: torch.add(a, b, out=c))
total = timed(lambda: a.sum())
print(f"add={add:.9f} sum={total:.9f}")
