#!/usr/bin/env python3
"""PyTorch's side of examples/bench_cuda_small_ops.lua: the same rounds of small operations with
temporaries ((x + 1) * 2, a transposed copy, a sum along a dimension, a host read every 16
rounds), timed the same way (median of 5 timings of ROUNDS rounds, in microseconds per round).

Usage: cuda_small_ops_torch.py ELEMENTS ROUNDS
Prints `us=<median>`, or a line saying why it cannot run.
"""

import time

from torch_cuda_peer import cuda_torch, int_arg, median

N = int_arg(1, 65536)
ROUNDS = int_arg(2, 2000)
torch = cuda_torch()

SIDE = 256
x = torch.empty(N // SIDE, SIDE, device="cuda").uniform_()


def rounds(n):
    total = 0.0
    for i in range(1, n + 1):
        y = torch.add(x, 1).mul_(2)
        z = y.t().contiguous().sum(1, keepdim=True)
        if i % 16 == 0:
            total += z[0, 0].item()
    return total


rounds(50)
torch.cuda.synchronize()
times = []
for _ in range(5):
    t0 = time.perf_counter()
    rounds(ROUNDS)
    torch.cuda.synchronize()
    times.append((time.perf_counter() - t0) / ROUNDS * 1e6)
print(f"us={median(times):.3f}")
