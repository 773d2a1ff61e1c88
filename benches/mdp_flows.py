#!/usr/bin/env python3
"""MDP 3.6 against luatorch's mdp, side by side in one run.

The flow of MDP's parallel tutorial, PCANode(100 -> 10) + SFA2Node(10 -> 10), trained on
    tutorial: 10 chunks of 50x100      large: 100 chunks of 1000x100
MDP plain (Flow.train) and with ProcessScheduler(n_processes=2); ours (benches/mdp_flows.lua)
plain and with scheduler.processes(2) and scheduler.threads(2). "cold" = create the scheduler,
train, shut it down (MDP's figures in the reference note); "warm" = train with running workers.
Times are medians.

Run it with a venv's Python holding MDP 3.6 (python3 -m venv mdpvenv && mdpvenv/bin/pip install
'numpy<1.24' mdp==3.6):
    mdpvenv/bin/python benches/mdp_flows.py [--th CMD] [--reps-tutorial 30] [--reps 3]
--th is the th to run (default: target/release/th if built, else th on PATH).
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np
import mdp

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CASES = [('tutorial', 10, 50), ('large', 100, 1000)]


def flow_of(cls):
    return cls([mdp.nodes.PCANode(input_dim=100, output_dim=10),
                mdp.nodes.SFA2Node(input_dim=10, output_dim=10)])


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def timed(f, reps):
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        out.append(time.perf_counter() - t)
    return median(out)


def run_mdp(reps_tut, reps):
    res = {}
    np.random.seed(0)
    for name, n, rows in CASES:
        chunks = [np.random.random((rows, 100)) for _ in range(n)]
        data = [chunks, chunks]
        r = reps_tut if name == 'tutorial' else reps
        flow_of(mdp.Flow).train(data)  # warm-up
        res[(name, 'plain')] = timed(lambda: flow_of(mdp.Flow).train(data), r)

        def cold():
            s = mdp.parallel.ProcessScheduler(n_processes=2)
            try:
                flow_of(mdp.parallel.ParallelFlow).train(data, scheduler=s)
            finally:
                s.shutdown()
        res[(name, 'processes2_cold')] = timed(cold, reps)
        s = mdp.parallel.ProcessScheduler(n_processes=2)
        try:
            flow_of(mdp.parallel.ParallelFlow).train(data, scheduler=s)
            res[(name, 'processes2_warm')] = timed(
                lambda: flow_of(mdp.parallel.ParallelFlow).train(data, scheduler=s), reps)
        finally:
            s.shutdown()
    return res


def run_ours(th, reps_tut, reps):
    cmd = th + [os.path.join(HERE, 'mdp_flows.lua'), str(reps_tut), str(reps)]
    out = subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout
    res = {}
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == 'RESULT':
            res[(parts[1], parts[2])] = float(parts[3])
    return res


def fmt(t):
    return '%.4f' % t if t < 1 else '%.3f' % t


def main():
    ap = argparse.ArgumentParser()
    default_th = os.path.join(ROOT, 'target', 'release', 'th')
    ap.add_argument('--th', default=default_th if os.path.exists(default_th) else 'th')
    ap.add_argument('--reps-tutorial', type=int, default=30)
    ap.add_argument('--reps', type=int, default=3)
    ap.add_argument('--rounds', type=int, default=2,
                    help='alternating rounds of ours and MDP; each column keeps its best round')
    a = ap.parse_args()
    th = a.th.split()
    ours, theirs = {}, {}
    for r in range(a.rounds):
        for dst, res in ((ours, run_ours(th, a.reps_tutorial, a.reps)),
                         (theirs, run_mdp(a.reps_tutorial, a.reps))):
            for k, v in res.items():
                dst[k] = min(dst.get(k, v), v)
        print('round %d done' % (r + 1), file=sys.stderr)
    print('median seconds, best of %d alternating rounds (ours / MDP; < 1: ours is faster)' % a.rounds)
    cols = [('plain', 'plain'), ('processes2_cold', 'processes2_cold'),
            ('processes2_warm', 'processes2_warm'), ('threads2_cold', 'processes2_cold'),
            ('threads2_warm', 'processes2_warm')]
    print('%-9s %-16s %10s %10s %8s' % ('case', 'ours', 'ours', 'MDP', 'ratio'))
    for name, _, _ in CASES:
        for ocol, mcol in cols:
            o, m = ours.get((name, ocol)), theirs.get((name, mcol))
            if o is None or m is None:
                continue
            print('%-9s %-16s %10s %10s %8.3f   (MDP: %s)' % (name, ocol, fmt(o), fmt(m), o / m, mcol))
    sys.stdout.flush()


if __name__ == '__main__':
    main()
