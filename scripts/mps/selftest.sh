#!/usr/bin/env bash
# selftest.sh: mps.sh and cutorch.mps() against the real NVIDIA MPS on GPU 0.
#
#   scripts/mps/selftest.sh            user mode: a daemon of our own, compute mode untouched
#   scripts/mps/selftest.sh --system   then system mode too (root): EXCLUSIVE_PROCESS while it runs,
#                                      the old compute mode restored by stop (it changes a GPU setting
#                                      for the duration; leave it out where that is not allowed)
#
# For each mode: start a daemon for GPU 0, run th as its client (cutorch.mps().active must be true and
# one device visible), see the client's MPS server in `get_server_list`, stop the daemon, and check
# that the compute mode is what it was and that no MPS process of ours is left. Prints PASS/FAIL
# lines, then `ok` when all passed; `SKIP: why` (status 0) where it cannot run. Every wait is
# bounded. th is $TH, else target/release/th of this checkout, else th on PATH.

set -u -o pipefail
here=$(cd "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
MPS=$here/mps.sh
TH=${TH:-}
if [ -z "$TH" ]; then
    if [ -x "$repo/target/release/th" ]; then TH=$repo/target/release/th; else TH=$(command -v th || true); fi
fi

with_system=""
for a in "$@"; do
    case "$a" in
        --system) with_system=1 ;;
        *) echo "usage: $0 [--system]" >&2; exit 2 ;;
    esac
done

skip() { echo "SKIP: $*"; exit 0; }
command -v nvidia-smi >/dev/null 2>&1 || skip "no nvidia-smi"
command -v nvidia-cuda-mps-control >/dev/null 2>&1 || skip "no nvidia-cuda-mps-control"
[ -n "$TH" ] && [ -x "$TH" ] || skip "no th (set TH=...)"
timeout 30 nvidia-smi -i 0 --query-gpu=uuid --format=csv,noheader >/dev/null 2>&1 || skip "nvidia-smi sees no GPU 0"
[ -n "$with_system" ] && [ "$(id -u)" != 0 ] && skip "--system needs root"

failures=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }

# MPS processes (control daemons, servers) as "pid command" lines.
mps_procs() { ps -eo pid=,args= | awk '$2 ~ /nvidia-cuda-mps-(control|server)/ {print $1, $2}' | sort; }
compute_mode() { timeout 30 nvidia-smi -i 0 --query-gpu=compute_mode --format=csv,noheader 2>/dev/null | tr -d ' '; }

before_procs=$(mps_procs)
if [ -n "$before_procs" ]; then
    skip "MPS processes already run here (this test would share the GPU with them):
$before_procs"
fi

work=$(mktemp -d /tmp/mpsst.XXXXXX) || { echo "FAIL mktemp"; exit 1; }
started=()
cleanup() {
    local m
    for m in "${started[@]}"; do
        [ -n "$m" ] || continue
        LUATORCH_MPS_BASE=$work/$m timeout 120 "$MPS" stop --"$m" --force --timeout 20 0 >/dev/null 2>&1
    done
    rm -rf -- "$work"
}
trap cleanup EXIT

# One client of the daemon: prints what cutorch sees, then holds its CUDA context until $work/release
# exists (bounded), so that the server can be looked at while it has a client.
client_lua='require "cutorch"
local m = cutorch.mps()
print(m and m.active)
print(cutorch.getDeviceCount())
local t = torch.CudaTensor(1000):fill(2)
print(t:sum())
io.stdout:flush()
for _ = 1, 300 do
   local f = io.open(os.getenv("MPS_SELFTEST_RELEASE"))
   if f then f:close() break end
   os.execute("sleep 0.1")
end'

run_mode() {
    local mode=$1
    local base=$work/$mode mode_before mode_during out pid pipe servers envs n
    echo "== $mode mode"
    mode_before=$(compute_mode)
    export LUATORCH_MPS_BASE=$base
    out=$(timeout 120 "$MPS" start --"$mode" --timeout 30 0 2>&1)
    if [ $? -ne 0 ]; then fail "$mode: start: $out"; return; fi
    started+=("$mode")
    pass "$mode: start"
    envs=$(timeout 60 "$MPS" env --"$mode" 0) || { fail "$mode: env"; return; }
    pipe=$(sed -n "s/^export CUDA_MPS_PIPE_DIRECTORY='\(.*\)'$/\1/p" <<<"$envs")
    pid=$(cat "$pipe/nvidia-cuda-mps-control.pid" 2>/dev/null)
    check "$mode: the daemon's pid file names a live process ($pid)" test -n "$pid" -a -d "/proc/$pid"
    mode_during=$(compute_mode)
    if [ "$mode" = system ]; then
        check "$mode: compute mode while running is Exclusive_Process (was $mode_before)" test "$mode_during" = Exclusive_Process
    else
        check "$mode: compute mode untouched ($mode_during)" test "$mode_during" = "$mode_before"
    fi

    rm -f "$work/release" "$work/client.out"
    (
        eval "$envs"
        MPS_SELFTEST_RELEASE=$work/release timeout 120 "$TH" -e "$client_lua" >"$work/client.out" 2>"$work/client.err"
    ) &
    local client=$!
    for _ in $(seq 1 600); do
        n=$(wc -l <"$work/client.out" 2>/dev/null || echo 0)
        [ "$n" -ge 3 ] && break
        kill -0 "$client" 2>/dev/null || break
        sleep 0.1
    done
    check "$mode: th sees the daemon (cutorch.mps().active)" test "$(sed -n 1p "$work/client.out")" = true
    check "$mode: th sees one device" test "$(sed -n 2p "$work/client.out")" = 1
    check "$mode: a kernel runs under MPS (sum 2000)" test "$(sed -n 3p "$work/client.out")" = 2000
    servers=$(echo get_server_list | CUDA_MPS_PIPE_DIRECTORY=$pipe timeout 20 nvidia-cuda-mps-control 2>&1)
    check "$mode: get_server_list shows a server ($servers)" grep -Eq '^[0-9]+$' <<<"$servers"
    echo "   apps on the GPU: $(timeout 30 nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader 2>&1 | paste -sd';')"
    touch "$work/release"
    wait "$client"
    local rc=$?
    check "$mode: th exited cleanly (status $rc)" test "$rc" -eq 0
    [ -s "$work/client.err" ] && echo "   th stderr: $(head -c 600 "$work/client.err")"

    out=$(timeout 120 "$MPS" stop --"$mode" --timeout 60 0 2>&1)
    rc=$?
    check "$mode: stop ($(tr '\n' ' ' <<<"$out"))" test "$rc" -eq 0
    local left
    for _ in $(seq 1 100); do
        left=$(mps_procs)
        [ -z "$left" ] && break
        sleep 0.2
    done
    check "$mode: no MPS process left${left:+ ($left)}" test -z "$left"
    check "$mode: compute mode back to $mode_before ($(compute_mode))" test "$(compute_mode)" = "$mode_before"
    out=$(timeout 60 "$MPS" stop --"$mode" 0 2>&1)
    rc=$?
    check "$mode: stop again is a no-op ($out)" test "$rc" -eq 0
    started=("${started[@]/$mode/}")
    unset LUATORCH_MPS_BASE
}

run_mode user
[ -n "$with_system" ] && run_mode system

if [ "$failures" -eq 0 ]; then echo ok; else echo "$failures check(s) failed"; exit 1; fi
