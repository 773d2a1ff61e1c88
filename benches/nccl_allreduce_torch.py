#!/usr/bin/env python3
"""Peer of benches/nccl_allreduce.lua for benches/nccl.rs: allReduce (sum, in place) of MiB
mebibytes of float32 through torch.distributed with the NCCL backend, one rank on cuda:0, timed
from the call to torch.cuda.synchronize(); the median of REPS after 5 warm-up calls.

Run: python3 benches/nccl_allreduce_torch.py [MiB] [reps]      (defaults 256, 20)
Prints `torch.allreduce <median seconds>`, or `SKIP: <why>`."""
import os
import socket
import sys
import time

try:
    import torch
    import torch.distributed as dist
except ImportError as e:
    print(f"SKIP: no torch ({e})")
    sys.exit(0)
if not torch.cuda.is_available():
    print("SKIP: torch sees no CUDA device")
    sys.exit(0)

mib = int(sys.argv[1]) if len(sys.argv) > 1 else 256
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
n = mib * 1024 * 1024 // 4

# One rank still rendezvous through a store: a free loopback port.
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
os.environ["MASTER_ADDR"] = "127.0.0.1"
os.environ["MASTER_PORT"] = str(port)
torch.cuda.set_device(0)
dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda:0"))

t = torch.ones(n, dtype=torch.float32, device="cuda")
for _ in range(5):
    dist.all_reduce(t)
torch.cuda.synchronize()
times = []
for _ in range(reps):
    start = time.perf_counter()
    dist.all_reduce(t)
    torch.cuda.synchronize()
    times.append(time.perf_counter() - start)
assert t.max().item() == 1 and t.min().item() == 1, "the allReduce changed the data"
dist.destroy_process_group()

times.sort()
print(f"nccl {'.'.join(map(str, torch.cuda.nccl.version()))}")
print(f"torch.allreduce {times[(reps + 1) // 2 - 1]:.6f}")
