#!/usr/bin/env bash
# The luatorch cluster against ipyparallel 9 and Dask's LocalCluster, one after the other in one
# run on this machine, the same engine count for all, loopback only:
#
#    benches/cluster_compare.sh TH_DIR ENGINES ROUNDS
#
# TH_DIR holds the built th and thcluster (e.g. target/release). Runs benches/cluster_peers.py
# (ipyparallel, then Dask), then examples/bench_cluster.lua, then benches/cluster_memory.lua
# (10^6 tasks; MEMORY=0 skips it), and prints every measurement line, then a table of
# luatorch/peer ratios per test and the issue's goals (per-task overhead at most a fifth of
# ipyparallel's and below Dask's). Times: a ratio under 1 is luatorch ahead; tasks/s: over 1.
# MAP_REPS and PUSH_REPS (default 3) reach both sides; STEP_TIMEOUT (s, default 1800) bounds
# each side; LOGDIR (default: a temporary directory) keeps each side's full output.
#
# The peers run in a venv, /work/clvenv unless $CLVENV names another:
#    python3 -m venv /work/clvenv
#    /work/clvenv/bin/pip install "ipyparallel>=9,<10" "dask[distributed]" numpy psutil
# (measured with Python 3.11.7, ipyparallel 9.2.0, dask/distributed 2026.8.0, numpy 2.4.6,
# psutil 7.2.2, pyzmq 27.3.0). Without it the luatorch side runs alone and the peers show n/a.
set -u
if [ $# -ne 3 ]; then
   sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
   exit 2
fi
TH_DIR=$(realpath "$1")
ENGINES=$2
ROUNDS=$3
CLVENV=${CLVENV:-/work/clvenv}
STEP_TIMEOUT=${STEP_TIMEOUT:-1800}
cd "$(dirname "$0")/.." || exit 1
LOGDIR=${LOGDIR:-$(mktemp -d /tmp/cluster-compare.XXXXXX)}
mkdir -p "$LOGDIR"
lines=$LOGDIR/lines.txt
: >"$lines"
status=0

# Runs one side with its output in LOGDIR/NAME.log, shown as it comes; the measurement lines are
# collected for the table.
side() {
   local name=$1
   shift
   echo "== $name: $*"
   timeout -k 10 "$STEP_TIMEOUT" "$@" 2>&1 | tee "$LOGDIR/$name.log"
   local rc=${PIPESTATUS[0]}
   grep -E '^peer=[^ ]+ test=[^ ]+ value=' "$LOGDIR/$name.log" >>"$lines"
   if [ "$rc" -ne 0 ]; then
      echo "== $name: exit $rc (log: $LOGDIR/$name.log)"
      # A luatorch side killed by the timeout could not stop its cluster itself.
      local profile
      profile=$(sed -n 's/^# engines=.* profile=\([^ ]*\) .*/\1/p' "$LOGDIR/$name.log" | tail -n 1)
      if [ -n "$profile" ] && [ -x "$TH_DIR/thcluster" ]; then
         timeout -k 5 60 "$TH_DIR/thcluster" stop --profile "$profile" >/dev/null 2>&1
      fi
      [ $status -eq 0 ] && status=$rc
   fi
}

echo "# $(uname -n) cpus=$(nproc) load=$(cut -d' ' -f1-3 /proc/loadavg) engines=$ENGINES rounds=$ROUNDS"
if [ -x "$CLVENV/bin/python" ]; then
   "$CLVENV/bin/python" -c 'import ipyparallel, distributed, numpy, psutil' 2>/dev/null ||
      echo "# $CLVENV lacks a package: $CLVENV/bin/pip install \"ipyparallel>=9,<10\" \"dask[distributed]\" numpy psutil"
   side ipyparallel "$CLVENV/bin/python" benches/cluster_peers.py "$ENGINES" "$ROUNDS" ipyparallel
   side dask "$CLVENV/bin/python" benches/cluster_peers.py "$ENGINES" "$ROUNDS" dask
else
   echo "# no venv at $CLVENV: the peers are skipped. To create it:"
   echo "#    python3 -m venv $CLVENV"
   echo "#    $CLVENV/bin/pip install \"ipyparallel>=9,<10\" \"dask[distributed]\" numpy psutil"
fi
if [ -x "$TH_DIR/th" ]; then
   # thcluster is looked for next to th (and on PATH, so TH_DIR goes first there).
   PATH="$TH_DIR:$PATH" side luatorch "$TH_DIR/th" examples/bench_cluster.lua "$ENGINES" "$ROUNDS"
   if [ "${MEMORY:-1}" != 0 ]; then
      PATH="$TH_DIR:$PATH" side luatorch-memory "$TH_DIR/th" benches/cluster_memory.lua "$ENGINES"
   fi
else
   echo "# no th at $TH_DIR/th: build it with cargo build --release --locked"
   status=1
fi

echo
echo "load after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
awk '
   {
      for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
      v[f["peer"], f["test"]] = f["value"]
      if (!(f["test"] in seen)) { seen[f["test"]] = 1; order[++n] = f["test"] }
   }
   function show(x) { return x == "" ? "n/a" : sprintf("%.4g", x) }
   function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "n/a" : sprintf("%.3f", a / b) }
   # op is "<=" or "<": the ratio luatorch/peer against limit.
   function goal(test, peer, op, limit,   a, b, r, ok) {
      a = v["luatorch", test]; b = v[peer, test]
      printf "  %-13s luatorch/%-11s %-2s %-4s ", test, peer, op, limit
      if (a == "" || b == "" || b + 0 == 0) { print "n/a"; return }
      r = a / b; ok = (op == "<" ? r < limit : r <= limit)
      printf "%.3f %s\n", r, (ok ? "met" : "NOT met")
   }
   END {
      printf "%-38s %12s %12s %12s %10s %10s\n", "test", "luatorch", "ipyparallel", "dask", "lt/ipp", "lt/dask"
      for (i = 1; i <= n; i++) {
         t = order[i]
         l = v["luatorch", t]; p = v["ipyparallel", t]; d = v["dask", t]
         printf "%-38s %12s %12s %12s %10s %10s\n", t, show(l), show(p), show(d), ratio(l, p), ratio(l, d)
      }
      print ""
      print "goals (per-task overhead):"
      goal("roundtrip_us", "ipyparallel", "<=", 0.2)
      goal("map1_ms", "ipyparallel", "<=", 0.2)
      goal("roundtrip_us", "dask", "<", 1)
      goal("map1_ms", "dask", "<", 1)
   }
' "$lines"
echo "logs: $LOGDIR"
exit $status
