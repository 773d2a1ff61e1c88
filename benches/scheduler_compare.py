#!/usr/bin/env python3
"""The scheduler against Python's pools, side by side, several rounds on this machine:

    benches/scheduler_compare.py TH ROUNDS [WORKERS EMPTY_TASKS TENSOR_TASKS RUNS]

Each round runs examples/bench_scheduler.lua with TH, then benches/scheduler_peers.py (all pools in
the first round, multiprocessing.Pool alone after), with the Python of $PY (default: /work/clvenv's
when it has NumPy, so that the tensor tasks sum NumPy arrays; else python3, summing lists). Defaults:
2 workers, 10^5 empty tasks, 10^4 tensor tasks, median of 3 runs. Prints every line, then a table
of ours / mp.Pool.map per round (the same kind of task: empty or tensor) with the load average
when the round began; under 1 is ours ahead. The futures executors' rows, 100 times slower than
the pool's at these counts, are in the first round's lines.
"""

import os
import re
import subprocess
import sys


def python():
    if os.environ.get("PY"):
        return os.environ["PY"]
    venv = "/work/clvenv/bin/python"
    if os.path.exists(venv) and subprocess.run([venv, "-c", "import numpy"], capture_output=True).returncode == 0:
        return venv
    return "python3"


def lines(cmd):
    print("==", " ".join(cmd), flush=True)
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    values = {}
    for line in out.splitlines():
        print(line.rstrip("\t"), flush=True)
        m = re.match(r"^([^\t]+)\t([0-9.e+-]+)\t?$", line)
        if m:
            values[m.group(1)] = float(m.group(2))
    return values


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    th, rounds = sys.argv[1], int(sys.argv[2])
    workers, n_empty, n_tensor, runs = (sys.argv[3:7] + ["2", "100000", "10000", "3"][len(sys.argv[3:7]):])
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    py = python()
    table = []
    for r in range(rounds):
        load = open("/proc/loadavg").read().split()[0]
        ours = lines([th, os.path.join(root, "examples/bench_scheduler.lua"), workers, n_empty, n_tensor, runs, n_empty])
        peers = lines([py, os.path.join(here, "scheduler_peers.py"), workers, n_empty, n_tensor, runs,
                       "all" if r == 0 else "pool"])
        table.append((load, ours, peers))
    rows = [name for name in table[0][1] if name.startswith("scheduler.")]
    print("\n# ours / mp.Pool.map (same task kind), per round; load average at each round's start")
    print("%-34s %s" % ("", " ".join("%7s" % ("r%d" % (i + 1)) for i in range(rounds))))
    print("%-34s %s" % ("load", " ".join("%7s" % t[0] for t in table)))
    for name in rows:
        kind = "tensor" if "tensor" in name else "empty"
        ratios = []
        for _, ours, peers in table:
            peer = peers.get("mp.Pool.map " + kind)
            ratios.append("%7.2f" % (ours[name] / peer) if peer and name in ours else "    n/a")
        print("%-34s %s" % (name, " ".join(ratios)))


if __name__ == "__main__":
    main()
