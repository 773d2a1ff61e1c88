#!/usr/bin/env bash
# mps.sh: start, stop and inspect NVIDIA MPS (Multi-Process Service) control daemons, one per group of
# GPUs, and print the environment that makes a process (th, its parallel children) a client of one.
#
#   mps.sh start  [options] [GPUS]   start a control daemon for GPUS
#   mps.sh stop   [options] [GPUS]   stop it, restore the compute modes it changed (idempotent)
#   mps.sh status [options] [GPUS]   one group, or every group found when GPUS is left out
#   mps.sh env    [options] [GPUS]   print `export ...` lines for eval (or: source mps-env.sh)
#   mps.sh help
#
# GPUS: `all` (the default for start/stop/env: every GPU nvidia-smi lists) or a comma-separated list of
# nvidia-smi indices (from 0) and/or UUIDs (GPU-...), e.g. `0,1` or `GPU-5f1c...`. The group is the set
# of UUIDs, so `0,1`, `1,0` and the two UUIDs name the same group.
#
# Modes:
#   --system  (the default for start as root) the daemon serves every user; the GPUs' compute mode is
#             set to EXCLUSIVE_PROCESS (NVIDIA's advice for MPS) after the old one is recorded in the
#             group's state directory, and stop restores it. Needs root.
#   --user    (the default for start otherwise) a daemon of your own, no root, compute mode untouched;
#             only your processes can be its clients.
# stop/status/env find the group in either place unless told which.
#
# Options:
#   --base DIR     where group directories live (default: system /tmp/luatorch-mps; user
#                  $XDG_RUNTIME_DIR/luatorch-mps, else /tmp/luatorch-mps-$UID); also LUATORCH_MPS_BASE
#   --cpu LIST     start: pin the daemon with `taskset -c LIST` (the seed pinned it to core 0)
#   --no-visible   env: leave CUDA_VISIBLE_DEVICES out
#   --unset        env: print `unset ...` lines instead
#   --force        stop: kill the daemon (TERM, then KILL) when `quit` does not end it in time
#   --timeout S    seconds to wait for the daemon to come up or go away (default 20);
#                  also LUATORCH_MPS_TIMEOUT
#
# Layout of a group (KEY = gpus-<first 12 hex digits of sha256 of the sorted UUIDs>):
#   BASE/KEY/pipe   CUDA_MPS_PIPE_DIRECTORY (control socket, nvidia-cuda-mps-control.pid)
#   BASE/KEY/log    CUDA_MPS_LOG_DIRECTORY (control.log, server.log; kept after stop)
#   BASE/KEY/state  what start recorded: mode, uuids, indices, compute_modes, daemon.pid
#
# For tests: LUATORCH_MPS_ASSUME_ROOT=1 (or 0) makes the script act as if it were (or were not) root;
# it changes only the script's decisions, never the process's rights. The tools come from PATH.
#
# Exit status: 0 done; 1 failed (the message says why); 2 bad usage; 3 status/env: no daemon running.

set -u -o pipefail
umask 022

PROG=mps.sh
die() { printf '%s: %s\n' "$PROG" "$*" >&2; exit 1; }
usage_error() { printf '%s: %s\n(see: %s help)\n' "$PROG" "$*" "$PROG" >&2; exit 2; }
note() { printf '%s: %s\n' "$PROG" "$*" >&2; }

usage() { sed -n '2,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }

is_root() {
    case "${LUATORCH_MPS_ASSUME_ROOT:-}" in
        1) return 0 ;;
        0) return 1 ;;
    esac
    [ "$(id -u)" = 0 ]
}

# A pid that names a live control daemon. A pid file can outlive its daemon (and the pid be reused),
# so the process's command line must name the control program when it can be read; /proc covers the
# case of another user's daemon, which `kill -0` cannot probe.
daemon_alive() {
    local pid=$1 cmd stat
    case "$pid" in '' | *[!0-9]*) return 1 ;; esac
    [ -d "/proc/$pid" ] || kill -0 "$pid" 2>/dev/null || return 1
    # A zombie (a dead daemon nobody reaped yet) has ended.
    if stat=$(cat "/proc/$pid/stat" 2>/dev/null); then
        stat=${stat##*) }
        [ "${stat%% *}" != Z ] || return 1
    fi
    if cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) && [ -n "$cmd" ]; then
        case "$cmd" in *nvidia-cuda-mps-control*) return 0 ;; *) return 1 ;; esac
    fi
    return 0
}

read_pid() { local p=""; [ -r "$1" ] && read -r p <"$1" 2>/dev/null; printf '%s' "${p//[[:space:]]/}"; }

# $1 in single quotes, for a shell to read back.
quote() { local q="'\\''"; printf "'%s'" "${1//\'/$q}"; }

need_tool() {
    command -v "$1" >/dev/null 2>&1 || die "$1 not found on PATH ($2)"
}

wait_secs() {
    local t=${TIMEOUT:-${LUATORCH_MPS_TIMEOUT:-20}}
    case "$t" in '' | *[!0-9]*) usage_error "timeout must be a whole number of seconds, got '$t'" ;; esac
    printf '%s' "$t"
}

# ---------------------------------------------------------------------------------------------------
# GPUs as nvidia-smi lists them: GPU_INDEX[i], GPU_UUID[i], GPU_MODE[i].

GPU_INDEX=() GPU_UUID=() GPU_MODE=()
load_gpus() {
    need_tool nvidia-smi "it comes with the NVIDIA driver"
    local out line idx uuid mode
    out=$(timeout 30 nvidia-smi --query-gpu=index,uuid,compute_mode --format=csv,noheader 2>&1) ||
        die "nvidia-smi could not list the GPUs: ${out:-no output}"
    while IFS= read -r line; do
        [ -n "${line//[[:space:]]/}" ] || continue
        IFS=, read -r idx uuid mode <<<"$line"
        idx=${idx//[[:space:]]/} uuid=${uuid//[[:space:]]/} mode=${mode//[[:space:]]/}
        case "$idx" in '' | *[!0-9]*) die "unexpected line from nvidia-smi: $line" ;; esac
        case "$uuid" in GPU-*) ;; *) die "unexpected line from nvidia-smi: $line" ;; esac
        GPU_INDEX+=("$idx") GPU_UUID+=("$uuid") GPU_MODE+=("$mode")
    done <<<"$out"
    [ "${#GPU_UUID[@]}" -gt 0 ] || die "nvidia-smi lists no GPU"
}

gpu_listing() {
    local i s=""
    for i in "${!GPU_UUID[@]}"; do s+="${s:+, }${GPU_INDEX[$i]} ${GPU_UUID[$i]}"; done
    printf '%s' "$s"
}

# SEL: positions (into GPU_*) of the GPUs named by $1, in nvidia-smi's order, each once.
SEL=()
select_gpus() {
    local spec=$1 item i found
    local -A chosen=()
    SEL=()
    [ -n "$spec" ] || usage_error "empty GPU list"
    if [ "$spec" = all ]; then
        SEL=("${!GPU_UUID[@]}")
        return
    fi
    case "$spec" in ,* | *, | *,,*) usage_error "bad GPU list '$spec' (indices or UUIDs separated by commas)" ;; esac
    IFS=, read -r -a items <<<"$spec"
    for item in "${items[@]}"; do
        item=${item//[[:space:]]/}
        found=""
        for i in "${!GPU_UUID[@]}"; do
            if [ "$item" = "${GPU_INDEX[$i]}" ] || [ "${item,,}" = "${GPU_UUID[$i],,}" ]; then
                found=$i
                break
            fi
        done
        [ -n "$found" ] || die "unknown GPU '$item' (nvidia-smi lists: $(gpu_listing))"
        [ -z "${chosen[$found]:-}" ] || usage_error "GPU '$item' is named twice in '$spec'"
        chosen[$found]=1
    done
    for i in "${!GPU_UUID[@]}"; do [ -n "${chosen[$i]:-}" ] && SEL+=("$i"); done
}

sel_uuids() { local i s=""; for i in "${SEL[@]}"; do s+="${s:+,}${GPU_UUID[$i]}"; done; printf '%s' "$s"; }
sel_indices() { local i s=""; for i in "${SEL[@]}"; do s+="${s:+,}${GPU_INDEX[$i]}"; done; printf '%s' "$s"; }

# The group's key: a digest of its sorted UUIDs, so it is the same whatever order or naming (index or
# UUID) the GPUs were given in, differs between groups, and stays short enough for the daemon's socket
# paths (a UNIX socket path has at most 107 bytes).
group_key() {
    local i digest
    digest=$(for i in "${SEL[@]}"; do printf '%s\n' "${GPU_UUID[$i]}"; done | LC_ALL=C sort | sha256sum) ||
        die "sha256sum failed"
    printf 'gpus-%s' "${digest:0:12}"
}

# ---------------------------------------------------------------------------------------------------
# Where groups live.

system_base() { printf '%s' "${BASE:-${LUATORCH_MPS_BASE:-/tmp/luatorch-mps}}"; }
user_base() {
    if [ -n "${BASE:-${LUATORCH_MPS_BASE:-}}" ]; then
        printf '%s' "${BASE:-$LUATORCH_MPS_BASE}"
    elif [ -n "${XDG_RUNTIME_DIR:-}" ] && [ -d "$XDG_RUNTIME_DIR" ] && [ -w "$XDG_RUNTIME_DIR" ]; then
        printf '%s/luatorch-mps' "$XDG_RUNTIME_DIR"
    else
        printf '/tmp/luatorch-mps-%s' "$(id -u)"
    fi
}
base_for() { if [ "$1" = system ]; then system_base; else user_base; fi; }

# GROUP_DIR, GROUP_MODE for the selected GPUs: a group that start recorded, in the base of MODE or,
# with no mode asked, in either; GROUP_DIR is empty when there is none.
GROUP_DIR="" GROUP_MODE=""
find_group() {
    local key dir m hits=()
    key=$(group_key)
    local modes=(system user)
    [ -n "$MODE" ] && modes=("$MODE")
    for m in "${modes[@]}"; do
        dir="$(base_for "$m")/$key"
        if [ -f "$dir/state/mode" ] && [ "$(cat "$dir/state/mode")" = "$m" ]; then
            hits+=("$m:$dir")
        fi
    done
    GROUP_DIR="" GROUP_MODE=""
    if [ "${#hits[@]}" -gt 1 ]; then
        die "GPUs $(sel_indices) have both a system and a user group; say which with --system or --user"
    elif [ "${#hits[@]}" -eq 1 ]; then
        GROUP_MODE=${hits[0]%%:*} GROUP_DIR=${hits[0]#*:}
    fi
}

# The daemon pid of group dir $1 when it is running (the daemon's own pid file first: it is what the
# daemon keeps; ours is the record made at start).
group_daemon_pid() {
    local p
    for p in "$(read_pid "$1/pipe/nvidia-cuda-mps-control.pid")" "$(read_pid "$1/state/daemon.pid")"; do
        if daemon_alive "$p"; then printf '%s' "$p"; return 0; fi
    done
    return 1
}

# Sends the control commands on stdin to the daemon of pipe directory $1; bounded, as a daemon that
# does not answer must not hang the script.
control() {
    CUDA_MPS_PIPE_DIRECTORY=$1 timeout "$(wait_secs)" nvidia-cuda-mps-control
}

# Makes $1 (mode $2) with the right owner and rights. A user's directories must be their own and
# closed to others: anyone who can write the pipe directory can impersonate the daemon.
make_dir() {
    local dir=$1 perm=$2
    mkdir -p -- "$dir" || die "cannot create $dir"
    if [ "$(stat -c %u -- "$dir")" != "$(id -u)" ]; then
        die "$dir belongs to someone else (uid $(stat -c %u -- "$dir")); choose another place with --base"
    fi
    chmod "$perm" -- "$dir" || die "cannot chmod $perm $dir"
}

# ---------------------------------------------------------------------------------------------------

cmd_start() {
    local mode key dir pipe log state i pid p deadline out
    need_tool nvidia-cuda-mps-control "it comes with the NVIDIA driver's compute utilities, e.g. the nvidia-compute-utils package"
    load_gpus
    select_gpus "${GPUS:-all}"
    if [ -n "$MODE" ]; then mode=$MODE; elif is_root; then mode=system; else mode=user; fi
    if [ "$mode" = system ] && ! is_root; then
        die "--system needs root (it sets the GPUs' compute mode); use --user for a daemon of your own"
    fi
    [ -z "$CPUS" ] || need_tool taskset "it comes with util-linux; or leave out --cpu"

    key=$(group_key)
    dir="$(base_for "$mode")/$key"
    pipe=$dir/pipe log=$dir/log state=$dir/state
    if [ "${#pipe}" -gt 86 ]; then
        die "pipe directory $pipe is too long for the daemon's UNIX sockets (${#pipe} characters, at most 86); choose a shorter --base"
    fi

    # One daemon per group, and groups must not share a GPU: two daemons would each take the GPU.
    if pid=$(group_daemon_pid "$dir"); then
        die "an MPS control daemon is already running for GPUs $(sel_indices) (pid $pid, pipe directory $pipe); stop it first: $PROG stop $(sel_indices)"
    fi
    local other ouuid
    for other in "$(base_for "$mode")"/gpus-*; do
        [ -d "$other" ] && [ "$other" != "$dir" ] || continue
        [ -f "$other/state/uuids" ] || continue
        p=$(group_daemon_pid "$other") || continue
        while IFS= read -r ouuid; do
            for i in "${SEL[@]}"; do
                [ "${ouuid,,}" != "${GPU_UUID[$i],,}" ] ||
                    die "GPU ${GPU_INDEX[$i]} (${GPU_UUID[$i]}) already belongs to the MPS group in $other (daemon pid $p); stop that group first"
            done
        done <"$other/state/uuids"
    done
    p=$(read_pid /tmp/nvidia-mps/nvidia-cuda-mps-control.pid)
    if daemon_alive "$p"; then
        note "warning: a control daemon with the default pipe directory /tmp/nvidia-mps is running (pid $p); it may serve these GPUs too"
    fi

    if [ "$mode" = system ]; then
        make_dir "$(base_for system)" 755
        make_dir "$dir" 755
        make_dir "$state" 755
        # Clients of every user reach the daemon's sockets here, and the servers it starts as those
        # users write here; sticky, so that no user can remove another's files.
        make_dir "$pipe" 1777
        make_dir "$log" 1777
    else
        make_dir "$(base_for user)" 700
        make_dir "$dir" 700
        make_dir "$state" 700
        make_dir "$pipe" 700
        make_dir "$log" 700
    fi
    printf '%s\n' "$mode" >"$state/mode"
    sel_uuids | tr , '\n' >"$state/uuids"
    sel_indices | tr , '\n' >"$state/indices"
    rm -f -- "$state/daemon.pid"

    if [ "$mode" = system ]; then
        # The compute modes before this group first took the GPUs. A record left by a start whose stop
        # never ran is kept: the modes now are the ones that start set, not the GPUs' own.
        if [ ! -s "$state/compute_modes" ]; then
            for i in "${SEL[@]}"; do printf '%s %s\n' "${GPU_UUID[$i]}" "${GPU_MODE[$i]}"; done >"$state/compute_modes.new" &&
                mv -f -- "$state/compute_modes.new" "$state/compute_modes" || die "cannot record the compute modes in $state"
        fi
        for i in "${SEL[@]}"; do
            if ! out=$(timeout 60 nvidia-smi -i "${GPU_UUID[$i]}" -c EXCLUSIVE_PROCESS 2>&1); then
                note "cannot set GPU ${GPU_INDEX[$i]} to EXCLUSIVE_PROCESS: $out"
                restore_compute_modes "$state" || true
                die "start failed; the compute modes were put back"
            fi
        done
    fi

    local launch=(nvidia-cuda-mps-control -d)
    [ -z "$CPUS" ] || launch=(taskset -c "$CPUS" "${launch[@]}")
    # The daemon's stdio goes to a file: a daemon holding our stdout open would keep a caller that
    # reads it (a test, $(...)) waiting for as long as it lives.
    if ! CUDA_VISIBLE_DEVICES=$(sel_uuids) CUDA_MPS_PIPE_DIRECTORY=$pipe CUDA_MPS_LOG_DIRECTORY=$log \
        timeout "$(wait_secs)" "${launch[@]}" </dev/null >>"$log/start.out" 2>&1; then
        start_failed "$dir" "nvidia-cuda-mps-control -d failed"
    fi
    deadline=$((SECONDS + $(wait_secs)))
    while :; do
        pid=$(read_pid "$pipe/nvidia-cuda-mps-control.pid")
        daemon_alive "$pid" && break
        [ "$SECONDS" -lt "$deadline" ] || start_failed "$dir" "the daemon did not come up within $(wait_secs) s"
        sleep 0.2
    done
    printf '%s\n' "$pid" >"$state/daemon.pid"
    printf 'started MPS control daemon (pid %s, %s mode) for GPUs %s\n' "$pid" "$mode" "$(sel_indices)"
    printf '  pipe directory: %s\n  log directory:  %s\n' "$pipe" "$log"
    printf 'clients need:    eval "$(%s env %s)"\n' "${BASH_SOURCE[0]}" "$(sel_indices)"
}

# Undoes a start that got no daemon, then fails showing what the daemon said.
start_failed() {
    local dir=$1 why=$2
    [ "$(cat "$dir/state/mode" 2>/dev/null)" = system ] && { restore_compute_modes "$dir/state" || true; }
    rm -rf -- "$dir/state" "$dir/pipe"
    local said
    said=$(tail -n 5 "$dir/log/start.out" "$dir/log/control.log" 2>/dev/null)
    die "$why${said:+; its output:
$said}"
}

# Puts back the compute modes recorded in state dir $1; the record goes once every GPU took its mode.
restore_compute_modes() {
    local state=$1 uuid mode flag failed=0 out
    [ -s "$state/compute_modes" ] || return 0
    while read -r uuid mode; do
        case "${mode,,}" in
            default) flag=DEFAULT ;;
            exclusive_process) flag=EXCLUSIVE_PROCESS ;;
            prohibited) flag=PROHIBITED ;;
            exclusive_thread) flag=EXCLUSIVE_THREAD ;;
            *) note "GPU $uuid: recorded compute mode '$mode' is not one nvidia-smi sets; left as it is"; continue ;;
        esac
        if out=$(timeout 60 nvidia-smi -i "$uuid" -c "$flag" 2>&1); then
            printf 'GPU %s: compute mode restored to %s\n' "$uuid" "$flag"
        else
            note "GPU $uuid: cannot restore compute mode $flag: $out"
            failed=1
        fi
    done <"$state/compute_modes"
    [ "$failed" = 0 ] || return 1
    rm -f -- "$state/compute_modes"
}

cmd_stop() {
    local dir pipe pid deadline quiet
    load_gpus
    select_gpus "${GPUS:-all}"
    find_group
    if [ -z "$GROUP_DIR" ]; then
        printf 'no MPS control daemon started by %s for GPUs %s: nothing to stop\n' "$PROG" "$(sel_indices)"
        return 0
    fi
    dir=$GROUP_DIR pipe=$GROUP_DIR/pipe
    if [ "$GROUP_MODE" = system ] && ! is_root; then
        die "the group of GPUs $(sel_indices) was started in system mode: stop it as root (it restores the compute modes)"
    fi
    if pid=$(group_daemon_pid "$dir"); then
        need_tool nvidia-cuda-mps-control "it comes with the NVIDIA driver's compute utilities"
        # `quit` lets the daemon end its servers once their clients are done; it may wait for them.
        echo quit | control "$pipe" >/dev/null 2>&1 || note "the daemon did not take 'quit' cleanly"
        deadline=$((SECONDS + $(wait_secs)))
        while daemon_alive "$pid" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
        if daemon_alive "$pid"; then
            if [ -z "$FORCE" ]; then
                die "the daemon (pid $pid) is still running $(wait_secs) s after 'quit' (are clients still attached? see $GROUP_DIR/log/control.log); run again with --force to kill it"
            fi
            note "killing the daemon (pid $pid) and its servers"
            kill_tree "$pid"
        fi
        printf 'stopped MPS control daemon (pid %s) for GPUs %s\n' "$pid" "$(sel_indices)"
    fi
    if [ "$GROUP_MODE" = system ]; then
        restore_compute_modes "$dir/state" ||
            die "the compute modes were not all restored; the record stays in $dir/state (run stop again)"
    fi
    rm -rf -- "$dir/state" "$dir/pipe"
    printf 'logs kept in %s\n' "$dir/log"
}

# TERM, then KILL, to pid $1 and its direct children (the MPS servers it started).
kill_tree() {
    local pid=$1 kids deadline
    kids=$(ps -o pid= --ppid "$pid" 2>/dev/null | tr -s ' \n' ' ')
    # shellcheck disable=SC2086
    kill -TERM "$pid" $kids 2>/dev/null
    deadline=$((SECONDS + 5))
    while daemon_alive "$pid" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
    # shellcheck disable=SC2086
    kill -KILL "$pid" $kids 2>/dev/null
    deadline=$((SECONDS + 5))
    while daemon_alive "$pid" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
    ! daemon_alive "$pid" || die "the daemon (pid $pid) survived SIGKILL"
}

# Prints group dir $1; true when its daemon runs.
show_group() {
    local dir=$1 pid running=1
    printf 'group %s (%s mode)\n' "${dir##*/}" "$(cat "$dir/state/mode" 2>/dev/null || echo unknown)"
    printf '  gpus:   %s\n' "$(paste -sd, "$dir/state/indices" 2>/dev/null) ($(paste -sd, "$dir/state/uuids" 2>/dev/null))"
    printf '  pipe:   %s\n  log:    %s\n' "$dir/pipe" "$dir/log"
    if pid=$(group_daemon_pid "$dir"); then
        running=0
        printf '  daemon: running (pid %s)\n' "$pid"
        if command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
            printf '  servers: %s\n' "$(echo get_server_list | control "$dir/pipe" 2>/dev/null | paste -sd' ')"
        fi
    else
        printf '  daemon: not running\n'
    fi
    if [ -s "$dir/state/compute_modes" ]; then
        printf '  compute modes to restore: %s\n' "$(paste -sd, "$dir/state/compute_modes" | sed 's/,/, /g')"
    fi
    return "$running"
}

cmd_status() {
    if [ -n "$GPUS" ]; then
        load_gpus
        select_gpus "$GPUS"
        find_group
        if [ -z "$GROUP_DIR" ]; then
            printf 'no MPS group for GPUs %s\n' "$(sel_indices)"
            return 3
        fi
        show_group "$GROUP_DIR" || return 3
        return 0
    fi
    local m dir any=0 seen=""
    local modes=(system user)
    [ -n "$MODE" ] && modes=("$MODE")
    for m in "${modes[@]}"; do
        for dir in "$(base_for "$m")"/gpus-*; do
            [ -f "$dir/state/mode" ] || continue
            case " $seen " in *" $dir "*) continue ;; esac
            seen+=" $dir"
            if show_group "$dir"; then any=1; fi
        done
    done
    [ -n "$seen" ] || printf 'no MPS group started by %s\n' "$PROG"
    [ "$any" = 1 ] || return 3
}

cmd_env() {
    if [ -n "$UNSET" ]; then
        if [ -n "$NO_VISIBLE" ]; then
            printf 'unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY\n'
        else
            printf 'unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY CUDA_VISIBLE_DEVICES\n'
        fi
        return 0
    fi
    load_gpus
    select_gpus "${GPUS:-all}"
    find_group
    [ -n "$GROUP_DIR" ] ||
        die "no MPS group for GPUs $(sel_indices); start one first: $PROG start $(sel_indices)"
    printf 'export CUDA_MPS_PIPE_DIRECTORY=%s\n' "$(quote "$GROUP_DIR/pipe")"
    printf 'export CUDA_MPS_LOG_DIRECTORY=%s\n' "$(quote "$GROUP_DIR/log")"
    # By UUID: the daemon already limits its clients to the group, and an index list would be read
    # against the daemon's renumbered devices (NVIDIA's MPS guide, CUDA_VISIBLE_DEVICES).
    [ -n "$NO_VISIBLE" ] || printf 'export CUDA_VISIBLE_DEVICES=%s\n' "$(quote "$(paste -sd, "$GROUP_DIR/state/uuids")")"
    if ! group_daemon_pid "$GROUP_DIR" >/dev/null; then
        note "warning: the control daemon of GPUs $(sel_indices) is not running; CUDA will run without MPS"
        return 3
    fi
}

# ---------------------------------------------------------------------------------------------------

MODE="" BASE="" CPUS="" FORCE="" NO_VISIBLE="" UNSET="" TIMEOUT="" GPUS=""
[ $# -gt 0 ] || { usage >&2; exit 2; }
COMMAND=$1
shift
case "$COMMAND" in
    help | -h | --help) usage; exit 0 ;;
    start | stop | status | env) ;;
    *) usage_error "unknown command '$COMMAND' (start, stop, status, env, help)" ;;
esac
while [ $# -gt 0 ]; do
    case "$1" in
        --system | --user)
            [ -z "$MODE" ] || [ "$MODE" = "${1#--}" ] || usage_error "--system and --user exclude each other"
            MODE=${1#--} ;;
        --base) [ $# -ge 2 ] && [ -n "$2" ] || usage_error "--base needs a directory"; BASE=$2; shift ;;
        --base=*) BASE=${1#--base=}; [ -n "$BASE" ] || usage_error "--base needs a directory" ;;
        --cpu) [ $# -ge 2 ] && [ -n "$2" ] || usage_error "--cpu needs a CPU list"; CPUS=$2; shift ;;
        --cpu=*) CPUS=${1#--cpu=} ;;
        --timeout) [ $# -ge 2 ] || usage_error "--timeout needs seconds"; TIMEOUT=$2; shift ;;
        --timeout=*) TIMEOUT=${1#--timeout=} ;;
        --force) FORCE=1 ;;
        --no-visible) NO_VISIBLE=1 ;;
        --unset) UNSET=1 ;;
        -h | --help) usage; exit 0 ;;
        -*) usage_error "unknown option '$1'" ;;
        *)
            [ -z "$GPUS" ] || usage_error "one GPU list expected (comma-separated), got '$GPUS' and '$1'"
            GPUS=$1 ;;
    esac
    shift
done
wait_secs >/dev/null
case "$BASE" in '' | /*) ;; *) BASE=$PWD/$BASE ;; esac
case "$COMMAND:$CPUS:$FORCE:$NO_VISIBLE:$UNSET" in
    start:*:1:*:* | status:*:1:*:* | env:*:1:*:*) usage_error "--force is for stop" ;;
esac
[ -z "$CPUS" ] || [ "$COMMAND" = start ] || usage_error "--cpu is for start"
{ [ -z "$NO_VISIBLE" ] && [ -z "$UNSET" ]; } || [ "$COMMAND" = env ] || usage_error "--no-visible and --unset are for env"

"cmd_$COMMAND"
