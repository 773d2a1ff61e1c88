#!/usr/bin/env python3
"""The peers' side of examples/bench_cluster.lua: ipyparallel 9 and Dask's LocalCluster doing what
the luatorch cluster does there, with the same engine count and the same timing rules, on
loopback. benches/cluster_compare.sh runs both sides and prints the ratios.

Usage: cluster_peers.py ENGINES ROUNDS [PEERS]
  PEERS: a comma-separated subset of ipyparallel,dask (default both, in that order).
Needs the venv described in benches/cluster_compare.sh (ipyparallel>=9,<10, dask[distributed],
numpy, psutil).

Prints one line per measurement, `peer=NAME test=TEST value=NUMBER`, and comment lines starting
with '#'. Tests and timing rules (the Lua side uses the same):
  start_ms            the cluster started until all ENGINES engines answer (once; informative)
  roundtrip_us        one blocking apply of an empty function; the median of ROUNDS calls after
                      WARMUP calls
  map1_ms, map1_tasks_per_s      a map of 10^4 small integers through the identity, chunksize 1
  map100_ms, map100_tasks_per_s  the same with chunksize 100
                      each the best of MAP_REPS runs after one 100-item warm-up map (the machine
                      is shared, so the least disturbed run is the fairest estimate for every side)
  push64_ms           a 64 MiB float32 array sent to every engine, blocking until all hold it; the
                      best of PUSH_REPS pushes after one warm-up push
MAP_REPS and PUSH_REPS come from the environment (default 3).
"""

import os
import signal
import sys
import time

# The engines do no arithmetic; one thread each keeps the two sides' process counts alike.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

N_MAP = 10_000
PUSH_BYTES = 64 << 20
WARMUP = 20
MAP_REPS = int(os.environ.get("MAP_REPS", "3"))
PUSH_REPS = int(os.environ.get("PUSH_REPS", "3"))
START_TIMEOUT = 120


def empty():
    pass


def identity(x):
    return x


def identity_chunk(chunk):
    return [x for x in chunk]


def median(v):
    v = sorted(v)
    return v[(len(v) - 1) // 2]


def emit(peer, test, value):
    print(f"peer={peer} test={test} value={value:.6g}", flush=True)


def roundtrip(peer, rounds, call):
    for _ in range(WARMUP):
        call()
    per = []
    for _ in range(rounds):
        t = time.perf_counter()
        call()
        per.append(time.perf_counter() - t)
    emit(peer, "roundtrip_us", median(per) * 1e6)


def maps(peer, run_map):
    items = list(range(N_MAP))
    for k in (1, 100):
        assert run_map(list(range(100)), k) == list(range(100))
        best = float("inf")
        for _ in range(MAP_REPS):
            t = time.perf_counter()
            out = run_map(items, k)
            best = min(best, time.perf_counter() - t)
            # Checked outside the timed span, as the Lua side does.
            assert out == items, f"{peer}: map with chunksize {k} returned the wrong list"
        emit(peer, f"map{k}_ms", best * 1e3)
        emit(peer, f"map{k}_tasks_per_s", N_MAP / best)


def push(peer, do_push):
    arr = np.arange(PUSH_BYTES // 4, dtype=np.float32)
    do_push(arr)
    best = float("inf")
    for _ in range(PUSH_REPS):
        t = time.perf_counter()
        do_push(arr)
        best = min(best, time.perf_counter() - t)
    emit(peer, "push64_ms", best * 1e3)


def bench_ipyparallel(engines, rounds):
    import ipyparallel as ipp

    print(f"# ipyparallel {ipp.__version__}", flush=True)
    t = time.perf_counter()
    cluster = ipp.Cluster(n=engines, controller_ip="127.0.0.1", log_level=40)
    try:
        rc = cluster.start_and_connect_sync()
        rc.wait_for_engines(engines, timeout=START_TIMEOUT)
        emit("ipyparallel", "start_ms", (time.perf_counter() - t) * 1e3)
        lview = rc.load_balanced_view()
        dview = rc[:]
        roundtrip("ipyparallel", rounds, lambda: lview.apply_sync(empty))
        # map_sync splits the list into chunks itself (chunksize= of LoadBalancedView.map).
        maps("ipyparallel", lambda items, k: list(lview.map_sync(identity, items, chunksize=k)))
        push("ipyparallel", lambda arr: dview.push({"t": arr}, block=True))
        rc.close()
    finally:
        cluster.stop_cluster_sync()


def bench_dask(engines, rounds):
    import dask
    import distributed

    print(f"# dask {dask.__version__} distributed {distributed.__version__}", flush=True)
    t = time.perf_counter()
    with distributed.LocalCluster(
        n_workers=engines,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=40,
    ) as cluster, distributed.Client(cluster) as client:
        client.wait_for_workers(engines, timeout=START_TIMEOUT)
        emit("dask", "start_ms", (time.perf_counter() - t) * 1e3)
        roundtrip("dask", rounds, lambda: client.submit(empty, pure=False).result())

        def run_map(items, k):
            # Dask's map has no chunksize: chunksize 1 is one task per item, chunksize k is one
            # task per slice of k items, flattened afterwards (what map_sync does for ipyparallel).
            if k == 1:
                return client.gather(client.map(identity, items, pure=False))
            chunks = [items[i:i + k] for i in range(0, len(items), k)]
            return [x for part in client.gather(client.map(identity_chunk, chunks, pure=False)) for x in part]

        maps("dask", run_map)

        def do_push(arr):
            # hash=False: a fresh key each time, so the data really travels (a hashed key would find
            # the previous push's copy already there). scatter returns once every worker holds it.
            fut = client.scatter(arr, broadcast=True, hash=False)
            distributed.wait(fut)
            del fut

        push("dask", do_push)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    # A timeout's SIGTERM unwinds through the finally/with blocks, so the engines are stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    engines, rounds = int(sys.argv[1]), int(sys.argv[2])
    peers = sys.argv[3].split(",") if len(sys.argv) > 3 else ["ipyparallel", "dask"]
    benches = {"ipyparallel": bench_ipyparallel, "dask": bench_dask}
    load = os.getloadavg()
    print(f"# engines={engines} rounds={rounds} cpus={os.cpu_count()} load={load[0]:.2f},{load[1]:.2f},{load[2]:.2f}",
          flush=True)
    for p in peers:
        if p not in benches:
            sys.exit(f"cluster_peers.py: unknown peer {p!r} (known: {', '.join(benches)})")
        benches[p](engines, rounds)


if __name__ == "__main__":
    main()
