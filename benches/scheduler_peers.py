#!/usr/bin/env python3
"""Python's side of examples/bench_scheduler.lua: per-task overhead of Python's pools on the same
tasks, worker counts and timing rule (seconds per task, the median of RUNS runs, each measure
after one untimed run of the same work, pools started beforehand).

Usage: scheduler_peers.py WORKERS EMPTY_TASKS TENSOR_TASKS RUNS [all|pool]
Prints one line per measure: NAME<TAB>SECONDS_PER_TASK. `pool` measures multiprocessing.Pool only
(the futures executors take minutes at 10^5 tasks; benches/scheduler_compare.py runs them once).
  empty: tasks that return their argument (an integer); tensor: tasks that sum a 100-element
  float64 array (NumPy when it is installed, else a list of floats) and return the sum.
  Each pool is measured the way its documentation presents it: Pool.map and Executor.map hand the
  whole list at once (map chunks it), apply_async and submit one task per call, collected in order.
  With `all`, MDP's ProcessScheduler too when mdp imports (2,000 tasks: it takes milliseconds each).
"""

import concurrent.futures as cf
import multiprocessing as mp
import os
import sys
import time

try:
    import numpy as np
except ImportError:  # pragma: no cover
    np = None

try:
    # MDP 3.6 (`pip install mdp 'numpy<1.24'`: it still reads numpy.typeDict).
    import mdp.parallel as mdp_parallel
except Exception:  # pragma: no cover
    mdp_parallel = None

# MDP's process workers unpickle the callable by module name: it must live in an importable
# module, so main() reaches it through `import scheduler_peers`, not __main__.
if mdp_parallel is not None:

    class MdpIdentity(mdp_parallel.TaskCallable):
        def __call__(self, data):
            return data


def identity(x):
    return x


def tsum(x):
    return float(x.sum()) if np is not None else sum(x)


def median(v):
    v = sorted(v)
    return v[(len(v) - 1) // 2]


def timed(runs, n, f):
    f()
    per = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        per.append((time.perf_counter() - t) / n)
    return median(per)


def main():
    workers, n_empty, n_tensor, runs = (int(a) for a in sys.argv[1:5])
    which = sys.argv[5] if len(sys.argv) > 5 else "all"
    data = list(range(n_empty))
    arrays = [np.full(100, float(i)) if np is not None else [float(i)] * 100 for i in range(n_tensor)]
    ctx = mp.get_context("fork")
    with ctx.Pool(workers) as pool:
        pool.map(identity, range(100))
        print("mp.Pool.map empty\t%.3e" % timed(runs, n_empty, lambda: pool.map(identity, data)))
        print("mp.Pool.apply_async empty\t%.3e" % timed(
            runs, n_empty, lambda: [r.get() for r in [pool.apply_async(identity, (x,)) for x in data]]))
        print("mp.Pool.map tensor\t%.3e" % timed(runs, n_tensor, lambda: pool.map(tsum, arrays)))
    if which == "pool":
        return
    with cf.ProcessPoolExecutor(workers, mp_context=ctx) as ex:
        list(ex.map(identity, range(100)))
        print("futures.Process.submit empty\t%.3e" % timed(
            runs, n_empty, lambda: [f.result() for f in [ex.submit(identity, x) for x in data]]))
        print("futures.Process.map empty\t%.3e" % timed(runs, n_empty, lambda: list(ex.map(identity, data))))
        print("futures.Process.map tensor\t%.3e" % timed(runs, n_tensor, lambda: list(ex.map(tsum, arrays))))
    with cf.ThreadPoolExecutor(workers) as ex:
        list(ex.map(identity, range(100)))
        print("futures.Thread.submit empty\t%.3e" % timed(
            runs, n_empty, lambda: [f.result() for f in [ex.submit(identity, x) for x in data]]))
        print("futures.Thread.map tensor\t%.3e" % timed(runs, n_tensor, lambda: list(ex.map(tsum, arrays))))
    mdp_row(workers, runs)


def mdp_row(workers, runs):
    """MDP's ProcessScheduler, add_task then get_results, as its documentation shows: 2,000
    tasks (it takes milliseconds per task, so 10^5 would take hours)."""
    if mdp_parallel is None:
        print("# mdp.parallel.ProcessScheduler: skipped (mdp does not import here)")
        return
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import scheduler_peers

    n = 2000
    s = mdp_parallel.ProcessScheduler(n_processes=workers, verbose=False, source_paths=[here])
    try:

        def run():
            for i in range(n):
                s.add_task(i, scheduler_peers.MdpIdentity())
            assert len(s.get_results()) == n

        print("mdp.ProcessScheduler add_task empty\t%.3e" % timed(runs, n, run))
    finally:
        s.shutdown()


if __name__ == "__main__":
    main()
