#!/usr/bin/env python3
"""Python's side of `cargo bench --bench parallel`: multiprocessing doing what the Lua script that
benches/parallel.rs runs through `th` does, with the same counts and timing rules.

Usage: parallel_peers.py ROUND_TRIPS BATCH TRANSFERS FORKS [MEASURE,...]
Prints one line per measure: NAME<TAB>SECONDS, or NAME<TAB>n/a<TAB>REASON.
  roundtrip       per round: parent send('') (join), child recv + send('!') (ack), parent send(dict),
                  child recv + send(it back); the median batch of BATCH rounds, after 10 warm-up batches
  transfer_pipe   per 64 MiB: Pipe.send_bytes, child recv_bytes (a fresh bytes), 1-byte ack; median
  transfer_shm    per 64 MiB: a fresh SharedMemory segment, the data copied in, its name sent, the
                  child attaches and acks, the segment unlinked; median
  transfer_shm_reuse  the same with one segment made beforehand and reused (its pages already mapped)
  fork8, spawn8   8 processes started until all have answered a join over their Pipe; median
"""

import multiprocessing as mp
import sys
import time
from multiprocessing import resource_tracker, shared_memory

BIG = 64 << 20


def median(v):
    v = sorted(v)
    return v[(len(v) - 1) // 2]


def roundtrip_child(conn):
    while conn.recv() != "break":
        conn.send("!")
        conn.send(conn.recv())


def roundtrip(ctx, rounds, batch):
    parent, child = ctx.Pipe()
    p = ctx.Process(target=roundtrip_child, args=(child,))
    p.start()
    t = {"a": 1, "b": "x", "c": [1, 2, 3]}
    per, warm = [], 10
    for b in range(warm + rounds // batch):
        t0 = time.perf_counter()
        for _ in range(batch):
            parent.send("")
            parent.recv()
            parent.send(t)
            r = parent.recv()
        dt = time.perf_counter() - t0
        if b >= warm:
            per.append(dt / batch)
    assert r == t
    parent.send("break")
    p.join()
    return median(per)


def pipe_child(conn):
    while True:
        data = conn.recv_bytes()
        if len(data) < 16:
            break
        conn.send_bytes(b"k")
        del data


def transfer_pipe(ctx, n):
    parent, child = ctx.Pipe()
    p = ctx.Process(target=pipe_child, args=(child,))
    p.start()
    data = bytes(bytearray(range(256)) * (BIG // 256))
    per = []
    for i in range(n + 1):
        t0 = time.perf_counter()
        parent.send_bytes(data)
        assert parent.recv_bytes() == b"k"
        if i > 0:
            per.append(time.perf_counter() - t0)
    parent.send_bytes(b"stop")
    p.join()
    return median(per)


def shm_child(conn):
    # The parent owns the segments and shares its resource tracker with this forked child: an
    # attach must not register them again (Python < 3.13 would, and its unregister would drop the
    # parent's entry).
    resource_tracker.register = lambda name, rtype: None
    while True:
        name = conn.recv()
        if name is None:
            break
        seg = shared_memory.SharedMemory(name=name)
        view = seg.buf
        conn.send_bytes(b"k")
        view.release()
        seg.close()


def transfer_shm(ctx, n, reuse):
    parent, child = ctx.Pipe()
    p = ctx.Process(target=shm_child, args=(child,))
    p.start()
    data = bytes(bytearray(range(256)) * (BIG // 256))
    kept = shared_memory.SharedMemory(create=True, size=BIG) if reuse else None
    per = []
    for i in range(n + 1):
        t0 = time.perf_counter()
        seg = kept or shared_memory.SharedMemory(create=True, size=BIG)
        seg.buf[:] = data
        parent.send(seg.name)
        assert parent.recv_bytes() == b"k"
        if i > 0:
            per.append(time.perf_counter() - t0)
        if not reuse:
            seg.close()
            seg.unlink()
    if kept:
        kept.close()
        kept.unlink()
    parent.send(None)
    p.join()
    return median(per)


def join_child(conn):
    conn.recv()
    conn.send("!")


def start8(ctx, runs):
    per = []
    for _ in range(runs):
        t0 = time.perf_counter()
        procs = []
        for _ in range(8):
            parent, child = ctx.Pipe()
            p = ctx.Process(target=join_child, args=(child,))
            p.start()
            procs.append((p, parent))
        for _, parent in procs:
            parent.send("")
            parent.recv()
        per.append(time.perf_counter() - t0)
        for p, _ in procs:
            p.join()
    return median(per)


def main():
    rounds, batch, transfers, forks = (int(a) for a in sys.argv[1:5])
    only = set(sys.argv[5].split(",")) if len(sys.argv) > 5 else None
    fork, spawn = mp.get_context("fork"), mp.get_context("spawn")
    measures = [
        ("roundtrip", lambda: roundtrip(fork, rounds, batch)),
        ("transfer_pipe", lambda: transfer_pipe(fork, transfers)),
        ("transfer_shm", lambda: transfer_shm(fork, transfers, False)),
        ("transfer_shm_reuse", lambda: transfer_shm(fork, transfers, True)),
        ("fork8", lambda: start8(fork, forks)),
        ("spawn8", lambda: start8(spawn, forks)),
    ]
    for name, f in measures:
        if only is not None and name not in only:
            continue
        try:
            print(f"{name}\t{f():.9f}", flush=True)
        except Exception as e:  # noqa: BLE001 - a failed measure is reported, the others still run
            print(f"{name}\tn/a\t{' '.join(str(e).split())}", flush=True)


if __name__ == "__main__":
    main()
