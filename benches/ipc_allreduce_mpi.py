"""Peer for benches/ipc_allreduce.rs: MPI Allreduce (sum) of N float32 across the ranks of one
machine with mpi4py on Open MPI. Run: mpirun -n 4 python3 benches/ipc_allreduce_mpi.py [N] [reps]
Prints `mpi.allreduce <median seconds>` from rank 0: the slowest rank's median, each repetition
timed after a barrier."""
import sys
import time

import numpy as np
from mpi4py import MPI

n = int(sys.argv[1]) if len(sys.argv) > 1 else 16 * 1024 * 1024
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 10
comm = MPI.COMM_WORLD
send = np.full(n, comm.rank + 1, dtype=np.float32)
recv = np.empty_like(send)
comm.Allreduce(send, recv, op=MPI.SUM)  # warm up (buffers, connections)
times = []
for _ in range(reps):
    comm.Barrier()
    t = time.perf_counter()
    comm.Allreduce(send, recv, op=MPI.SUM)
    times.append(time.perf_counter() - t)
expected = comm.size * (comm.size + 1) / 2
assert recv[0] == expected and recv[-1] == expected, (recv[0], expected)
# the slowest rank's time is the collective's time
worst = comm.reduce(sorted(times)[len(times) // 2], op=MPI.MAX, root=0)
if comm.rank == 0:
    print(f"mpi.allreduce {worst:.9f}")
