#!/bin/bash
# allReduce (sum) of float32 across two "hosts": two network namespaces on this machine joined by
# a bridge (the tests' recipe), 2 and 4 processes split evenly between them, at 4 B, 4 KiB,
# 4 MiB and 64 MiB. Ours: ipc.StaticTree on its socket path (LUATORCH_TREE_SHM=0, as between
# machines; benches/ipc_allreduce_netns.lua), against mpi4py's Allreduce on Open MPI with
# `--mca btl tcp,self` (so that MPI goes through TCP too), launched into the namespaces by an rsh
# agent. As benches/ipc_allreduce.rs does, the programs alternate for ROUNDS rounds and each keeps
# its best median (the slowest rank's).
#
#    benches/ipc_allreduce_netns.sh [path/to/th]
#
# Needs root and `ip netns` (iproute2); prints why and exits 0 without them. Environment:
# IPC_ALLREDUCE_ROWS=4,4096 picks sizes in bytes; ROUNDS (default 3); LUATORCH_TREE_ALGO=ring or
# tree forces our large-leaf algorithm (default: chosen by size); PROCS="2 4".
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
th=${1:-$root/target/release/th}
rounds=${ROUNDS:-3}
procs=${PROCS:-"2 4"}
sizes=${IPC_ALLREDUCE_ROWS:-4,4096,4194304,67108864}
tag=ltb$$

skip() { echo "ipc_allreduce_netns: skipped: $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
command -v ip >/dev/null && ip netns list >/dev/null 2>&1 || skip "ip netns is not available"
[ -x "$th" ] || skip "no th at $th (cargo build --release)"
# A /24 no route of this machine uses.
net=
for k in $(seq 0 199); do
   c=10.98.$((($$ + k) % 200 + 20))
   ip route | grep -q "^$c\." || { net=$c; break; }
done
[ -n "$net" ] || skip "no free 10.98.x.0/24 here"

work=$(mktemp -d /tmp/ipc_allreduce_netns.XXXXXX)
down() {
   for i in 1 2; do
      p=$(ip netns pids $tag-h$i 2>/dev/null); [ -n "$p" ] && kill $p 2>/dev/null
      ip netns del $tag-h$i 2>/dev/null
   done
   for i in 1 2; do
      for _ in $(seq 50); do ip link show $tag-v$i >/dev/null 2>&1 || break; sleep 0.1; done
      ip link del $tag-v$i 2>/dev/null
   done
   ip link del $tag-br 2>/dev/null
   rm -rf "$work"
}
trap down EXIT
ip link add $tag-br type bridge && ip addr add $net.1/24 dev $tag-br && ip link set $tag-br up || skip "cannot make a bridge"
for i in 1 2; do
   ip netns add $tag-h$i &&
      ip link add $tag-v$i type veth peer name eth0 netns $tag-h$i &&
      ip link set $tag-v$i master $tag-br && ip link set $tag-v$i up &&
      ip -n $tag-h$i addr add $net.$((i + 1))/24 dev eth0 && ip -n $tag-h$i link set eth0 up &&
      ip -n $tag-h$i link set lo up || skip "cannot make network namespace $tag-h$i"
done
host() { echo $net.$(($1 + 1)); }

# mpirun's rsh agent: runs the daemon in the namespace of the address asked for, under a host
# name of its own (Open MPI tells nodes apart by name).
cat >"$work/agent" <<EOF
#!/bin/bash
while [ "\${1#-}" != "\$1" ]; do shift; done
h=\$1; shift
case \$h in $(host 1)) i=1 ;; $(host 2)) i=2 ;; *) echo "agent: unknown host \$h" >&2; exit 1 ;; esac
exec ip netns exec $tag-h\$i unshare --uts sh -c "hostname h\$i; \$*"
EOF
chmod +x "$work/agent"
python=
for p in /usr/bin/python3 python3; do
   if $p -c 'import mpi4py, numpy' 2>/dev/null; then python=$p; break; fi
done

reps() { if [ "$1" -le 65536 ]; then echo 500; elif [ "$1" -le 8388608 ]; then echo 30; else echo 6; fi; }
port=$((20000 + $$ % 20000))
cpus=$(nproc)

# ours NODES FLOATS REPS: the slowest node's median, in seconds (empty on failure).
ours() {
   local nodes=$1 floats=$2 reps=$3 half=$(($1 / 2)) pids=() k ns
   port=$((port + 1))
   for k in $(seq 1 "$nodes"); do
      if [ "$k" -le "$half" ]; then ns=1; else ns=2; fi
      # One CPU per rank, as the rankfile gives MPI's ranks below: the two "hosts" share this
      # machine's CPUs, where real hosts would not, and two ranks woken onto one CPU cost both
      # sides alike. OURS_PIN=0 leaves ours to the kernel's placement.
      pin=; [ "${OURS_PIN:-1}" = 1 ] && pin="taskset -c $(((k - 1) % cpus))"
      LUATORCH_TREE_SHM=0 timeout 300 ip netns exec $tag-h$ns $pin "$th" "$here/ipc_allreduce_netns.lua" \
         "$k" "$nodes" "$(host 1)" "$port" "$(host $ns)" "$floats" "$reps" >"$work/ours.$k" 2>&1 &
      pids+=($!)
   done
   for k in "${pids[@]}"; do wait "$k"; done
   sed -n 's/^ours.allreduce //p' "$work/ours.1"
   grep -q '^ours.allreduce' "$work/ours.1" || cat "$work"/ours.* >&2
}

# mpi NODES FLOATS REPS
mpi() {
   local nodes=$1 floats=$2 reps=$3 half=$(($1 / 2))
   [ -n "$python" ] || return
   printf '%s slots=%d\n%s slots=%d\n' "$(host 1)" "$half" "$(host 2)" "$half" >"$work/hosts"
   # Each "host" sees all the CPUs and would bind its first rank to CPU 0 (two busy-polling
   # ranks on one CPU: milliseconds per message): spread them as on one machine instead.
   : >"$work/ranks"
   for r in $(seq 0 $((nodes - 1))); do
      echo "rank $r=$(host $((r / half + 1))) slot=$((r % cpus))" >>"$work/ranks"
   done
   # Ranks that outnumber the CPUs yield while they poll (what mpirun does by itself on one host,
   # where it sees the oversubscription: here each "host" thinks it has every CPU).
   local yield=0
   [ "$nodes" -le "$cpus" ] || yield=1
   timeout 300 mpirun --allow-run-as-root --oversubscribe -n "$nodes" --hostfile "$work/hosts" --rankfile "$work/ranks" \
      --mca mpi_yield_when_idle $yield \
      --mca plm_rsh_agent "$work/agent" --mca btl tcp,self \
      --mca btl_tcp_if_include $net.0/24 --mca oob_tcp_if_include $net.0/24 \
      "$python" "$here/ipc_allreduce_mpi.py" "$floats" "$reps" >"$work/mpi.out" 2>&1
   sed -n 's/^mpi.allreduce //p' "$work/mpi.out"
   grep -q '^mpi.allreduce' "$work/mpi.out" || tail -5 "$work/mpi.out" >&2
}

min() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "") print b; else if (b == "" || a + 0 <= b + 0) print a; else print b }'; }
show() { awk -v t="$1" 'BEGIN { if (t == "") print "-"; else if (t < 1e-3) printf "%.1f us", t * 1e6; else printf "%.2f ms", t * 1e3 }'; }

echo "allReduce (sum) of float32 between two network namespaces (TCP): the slowest rank's median, best of $rounds rounds"
echo "ours: LUATORCH_TREE_SHM=0, LUATORCH_TREE_ALGO=${LUATORCH_TREE_ALGO:-auto}; mpi: --mca btl tcp,self"
printf '%8s %5s %12s %12s %8s %s\n' size procs ours mpi4py ours/mpi "load average"
[ -n "$python" ] || echo "(no python3 with mpi4py and numpy: apt-get install openmpi-bin python3-mpi4py python3-numpy)"
for bytes in ${sizes//,/ }; do
   for p in $procs; do
      floats=$((bytes / 4)); [ "$floats" -ge 1 ] || floats=1
      r=$(reps "$bytes")
      best_ours= best_mpi=
      for _ in $(seq "$rounds"); do
         best_ours=$(min "$best_ours" "$(ours "$p" "$floats" "$r")")
         best_mpi=$(min "$best_mpi" "$(mpi "$p" "$floats" "$r")")
      done
      ratio=$(awk -v a="$best_ours" -v b="$best_mpi" 'BEGIN { if (a == "" || b == "") print "-"; else printf "%.2f", a / b }')
      size=$(awk -v b="$bytes" 'BEGIN { if (b >= 1048576) printf "%d MiB", b / 1048576; else if (b >= 1024) printf "%d KiB", b / 1024; else printf "%d B", b }')
      printf '%8s %5s %12s %12s %8s %s\n' "$size" "$p" "$(show "$best_ours")" "$(show "$best_mpi")" "$ratio" \
         "$(cut -d' ' -f1-3 /proc/loadavg)"
   done
done
echo "goal: ours/mpi at most 1.00 on every row"
