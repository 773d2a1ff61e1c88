#!/usr/bin/env python3
"""NumPy's side of `cargo bench --bench tensor_ops`: the same operations, sizes, thread count and
timing rule as the Lua script that benches/tensor_ops.rs runs through `th`.

Usage: numpy_ops.py THREADS REPS
Prints one line per operation: NAME<TAB>DTYPE<TAB>SECONDS (the median of REPS timed runs after
one warm-up run), or NAME<TAB>DTYPE<TAB>n/a<TAB>REASON.
"""

import os
import sys
import time

THREADS = int(sys.argv[1])
REPS = int(sys.argv[2])

# NumPy's bundled OpenBLAS reads its thread count when it is loaded, so set it before the import.
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = str(THREADS)

import numpy as np  # noqa: E402

N = 10_000_000  # elements of the elementwise operations and the sum
M = 1024  # matrix side


def median_time(f):
    f()
    times = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[(REPS - 1) // 2]


def matmul(dt):
    a = np.full((M, M), 0.5, dtype=dt)
    b = np.full((M, M), 0.25, dtype=dt)
    r = np.empty((M, M), dtype=dt)
    return lambda: np.matmul(a, b, out=r)


def add(dt):
    x = np.full(N, 1.5, dtype=dt)
    y = np.full(N, 2.5, dtype=dt)
    r = np.empty(N, dtype=dt)
    return lambda: np.add(x, y, out=r)


def cmul(dt):
    x = np.full(N, 1.5, dtype=dt)
    y = np.full(N, 2.5, dtype=dt)
    r = np.empty(N, dtype=dt)
    return lambda: np.multiply(x, y, out=r)


def total(dt):
    x = np.full(N, 0.5, dtype=dt)
    return lambda: x.sum()


def copy_t(dt):
    src = np.arange(M * M, dtype=dt).reshape(M, M)
    dst = np.empty((M, M), dtype=dt)
    return lambda: np.copyto(dst, src.T)


# Same order as the Lua side: the matrix product last, so that BLAS threads spinning after it
# cannot slow the other operations.
OPS = [("add", add), ("cmul", cmul), ("sum", total), ("copyT", copy_t), ("mm", matmul)]

for name, setup in OPS:
    for dtname, dt in (("float32", np.float32), ("float64", np.float64)):
        try:
            t = median_time(setup(dt))
            print(f"{name}\t{dtname}\t{t:.9f}")
        except Exception as e:  # report, keep going
            print(f"{name}\t{dtname}\tn/a\t{type(e).__name__}: {e}")
        sys.stdout.flush()
