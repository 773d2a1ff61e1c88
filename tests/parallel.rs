//! `parallel` with local children, through the real `th`: fork/nfork/sfork/run, exec, join/yield,
//! send/receive of every kind of value (big tensors through shared memory included), sync, close,
//! parallel.print, every error path, and no child left behind when the parent exits, raises or is
//! killed with SIGKILL.
//!
//! Local children are reached through a pipe of their own (the fast path) unless
//! LUATORCH_PARALLEL_FAST=0, which puts them on ZeroMQ as remote children are: the protocol's
//! checks run both ways (the `_on_zeromq` tests).
//!
//! The Lua side of each test is tests/lua/parallel/local_*.lua; each script ends with the line `ok`
//! when every check passed. A check the implementation does not meet yet fails the script after
//! the others ran, with a `FAILED <check>: <message>` line on stderr for each.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::sshd::{cmdline, is_alive, wait_gone};
use common::stranger::greeting;
use common::{Output, TIMEOUT, lua_dir, run_th, th_path};

/// How long the children of a parent that went away may take to end. The design promises 2 s; the
/// rest is slack for a loaded machine.
const CHILDREN_GONE: Duration = Duration::from_secs(10);

/// The environment that turns the fast path off.
const ZEROMQ: &[(&str, &str)] = &[("LUATORCH_PARALLEL_FAST", "0")];

/// Runs `th parallel/<script> extra...` from tests/lua.
fn run_local(script: &str, extra: &[&str]) -> Output {
    run_local_env(script, extra, &[])
}

fn run_local_env(script: &str, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let script = format!("parallel/{script}");
    let mut args = vec![script.as_str()];
    args.extend_from_slice(extra);
    common::run_th_in(&lua_dir(), &args, "", env)
}

/// The script exited 0 with "ok" as its last line.
fn assert_script_ok(out: &Output) {
    assert!(
        out.status == Some(0) && out.stdout.ends_with("ok\n"),
        "the script failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
}

/// Runs a script that must pass.
fn script_ok(script: &str) -> Output {
    let out = run_local(script, &[]);
    assert_script_ok(&out);
    out
}

/// Runs a script that must pass with local children on ZeroMQ.
fn script_ok_on_zeromq(script: &str) -> Output {
    let out = run_local_env(script, &[], ZEROMQ);
    assert_script_ok(&out);
    out
}

/// The numbers after `prefix` on the first line of `stdout` that starts with it.
fn pids_after(stdout: &str, prefix: &str) -> Vec<i32> {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no line starting with {prefix:?} in\n{stdout}"))
        .split_whitespace()
        .map(|p| p.parse().expect("a pid"))
        .collect()
}

/// Shared-memory segments left by process `pid` (named luatorch-<run>-<pid>-<n>-<nonce>).
fn segments_of(pid: i32) -> Vec<String> {
    let needle = format!("-{pid}-");
    std::fs::read_dir("/dev/shm")
        .map(|dir| {
            dir.flatten()
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter(|n| n.starts_with("luatorch-") && n.contains(&needle))
                .collect()
        })
        .unwrap_or_default()
}

/// Panics unless every pid is gone (or a zombie: PID 1 in a container may not reap) within
/// CHILDREN_GONE; kills the survivors first so that a failure leaves nothing running.
fn assert_all_gone(pids: &[i32], after: &str) {
    let left: Vec<(i32, String)> = pids
        .iter()
        .filter(|&&pid| !wait_gone(pid, CHILDREN_GONE))
        .map(|&pid| (pid, cmdline(pid)))
        .collect();
    for (pid, _) in &left {
        let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
    }
    assert!(left.is_empty(), "still running {CHILDREN_GONE:?} {after}: {left:?}");
}

#[test]
fn fork_nfork_sfork_run_ids_and_nested_children() {
    script_ok("local_fork.lua");
}

#[test]
fn exec_functions_and_strings_with_args_and_join_yield() {
    script_ok("local_exec.lua");
}

#[test]
fn send_receive_tables_tensors_storages_functions_noblock_and_groups() {
    script_ok("local_data.lua");
}

#[test]
fn big_tensors_go_through_shared_memory_both_ways() {
    let out = script_ok("local_big.lua");
    let pids = pids_after(&out.stdout, "pids ");
    assert_eq!(pids.len(), 2, "{pids:?}");
    for pid in pids {
        let left = segments_of(pid);
        assert!(left.is_empty(), "segments of {pid} left after th exited: {left:?}");
    }
}

#[test]
fn sync_waits_for_the_code_and_ends_children() {
    script_ok("local_sync.lua");
}

#[test]
fn pipes_round_trips_grandchildren_big_messages_killed_children_and_no_leftovers() {
    script_ok("local_pipes.lua");
}

#[test]
fn round_trips_grandchildren_big_messages_and_killed_children_on_zeromq() {
    script_ok_on_zeromq("local_pipes.lua");
}

#[test]
fn fork_nfork_sfork_run_ids_and_nested_children_on_zeromq() {
    script_ok_on_zeromq("local_fork.lua");
}

#[test]
fn exec_functions_and_strings_with_args_and_join_yield_on_zeromq() {
    script_ok_on_zeromq("local_exec.lua");
}

#[test]
fn send_receive_every_kind_of_value_on_zeromq() {
    script_ok_on_zeromq("local_data.lua");
}

#[test]
fn sync_waits_for_the_code_and_ends_children_on_zeromq() {
    script_ok_on_zeromq("local_sync.lua");
}

#[test]
fn child_failures_misuse_and_bad_arguments_raise_in_the_parent_on_zeromq() {
    script_ok_on_zeromq("local_errors.lua");
}

#[test]
fn child_failures_misuse_and_bad_arguments_raise_in_the_parent() {
    let out = script_ok("local_errors.lua");
    assert!(
        out.stdout.contains("<parallel#000>\tclosing session\n"),
        "{}",
        out.stdout
    );
}

#[test]
fn close_ends_every_child_and_print_prefixes_the_id() {
    let out = script_ok("local_close.lua");
    let s = &out.stdout;
    assert!(s.starts_with("<parallel#000>\tfrom the parent\t42\n"), "{s}");
    assert!(s.contains("<parallel#002>\tfrom child\t2\n"), "{s}");
    assert!(s.contains("<parallel#001>\tfrom the grandchild\n"), "{s}");
    let (_, rest) = s.split_once("-- before close\n").expect("the marker before close");
    let (during, after) = rest.split_once("-- after close\n").expect("the marker after close");
    assert_eq!(during, "<parallel#000>\tclosing session\n");
    assert_eq!(after.matches("<parallel#000>\tclosing session\n").count(), 3, "{after}");
}

/// A `th` running a script whose stdout lines are read as they come.
struct Running {
    process: Child,
    lines: mpsc::Receiver<String>,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Running {
    fn start_env(args: &[&str], env: &[(&str, &str)]) -> Running {
        let mut process = Command::new(th_path())
            .args(args)
            .envs(env.iter().copied())
            .current_dir(lua_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn th");
        let (tx, lines) = mpsc::channel();
        let stdout = process.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(common::printed_line(line));
            }
        });
        let mut err = process.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = err.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        });
        Running {
            process,
            lines,
            stderr: Some(stderr),
        }
    }

    /// The numbers after `prefix` on the first stdout line that starts with it.
    fn wait_line(&mut self, prefix: &str) -> Vec<i32> {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            match self
                .lines
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(line) => {
                    if line.starts_with(prefix) {
                        return pids_after(&line, prefix);
                    }
                }
                Err(_) => {
                    let _ = self.process.kill();
                    let _ = self.process.wait();
                    panic!("th printed no {prefix:?} line within {TIMEOUT:?}");
                }
            }
        }
    }

    /// Waits for th to exit (at most TIMEOUT); its exit code and stderr. The stderr reader ends when
    /// the pipe closes, which the children (who inherit it) may delay: it is read only if th exited.
    fn wait_exit(mut self) -> (Option<i32>, String) {
        let deadline = Instant::now() + TIMEOUT;
        let status = loop {
            if let Some(status) = self.process.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.process.kill();
                let _ = self.process.wait();
                panic!("th did not exit within {TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let reader = self.stderr.take().expect("read once");
        let deadline = Instant::now() + CHILDREN_GONE;
        while !reader.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        let stderr = if reader.is_finished() {
            reader.join().unwrap_or_default()
        } else {
            "(stderr still open: a child holds it)".to_string()
        };
        (status.code(), stderr)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// Starts local_orphan.lua in `mode`: the pids of its two children and the grandchild, which the
/// script saw running before it printed them.
fn orphan(mode: &str) -> (Running, Vec<i32>) {
    orphan_env(mode, &[])
}

fn orphan_env(mode: &str, env: &[(&str, &str)]) -> (Running, Vec<i32>) {
    let mut th = Running::start_env(&["parallel/local_orphan.lua", mode], env);
    let pids = th.wait_line("pids ");
    assert_eq!(pids.len(), 3, "{pids:?}");
    (th, pids)
}

#[test]
fn children_die_with_a_parent_killed_by_sigkill() {
    let (mut th, pids) = orphan("sleep");
    for &pid in &pids {
        assert!(is_alive(pid), "{pid} runs before the parent is killed");
    }
    th.process.kill().expect("SIGKILL th");
    th.process.wait().unwrap();
    assert_all_gone(&pids, "after the parent was killed with SIGKILL");
}

#[test]
fn children_die_with_a_parent_killed_by_sigkill_on_zeromq() {
    let (mut th, pids) = orphan_env("sleep", ZEROMQ);
    for &pid in &pids {
        assert!(is_alive(pid), "{pid} runs before the parent is killed");
    }
    th.process.kill().expect("SIGKILL th");
    th.process.wait().unwrap();
    assert_all_gone(&pids, "after the parent was killed with SIGKILL");
}

#[test]
fn children_die_with_a_parent_stopped_by_ctrl_c() {
    let (mut th, pids) = orphan("sleep");
    for &pid in &pids {
        assert!(is_alive(pid), "{pid} runs before the parent gets SIGINT");
    }
    let pid = nix::unistd::Pid::from_raw(th.process.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).expect("SIGINT th");
    th.process.wait().unwrap();
    assert_all_gone(&pids, "after the parent got SIGINT");
}

#[test]
fn children_end_with_a_parent_that_exits_without_close() {
    let (th, pids) = orphan("exit");
    let (status, stderr) = th.wait_exit();
    assert_eq!(status, Some(0), "{stderr}");
    assert_all_gone(&pids, "after the parent exited without close()");
}

#[test]
fn children_end_with_a_parent_that_raises() {
    let (th, pids) = orphan("error");
    let (status, stderr) = th.wait_exit();
    assert_all_gone(&pids, "after the parent raised an error");
    assert_eq!(status, Some(1), "{stderr}");
    assert!(stderr.contains("the parent fails on purpose"), "{stderr}");
}

/// Runs local_shm_signal.lua, ends it with `signal`, and checks that no segment of the parent or
/// its child is left once both are gone.
fn no_segments_left_after(signal: nix::sys::signal::Signal) {
    no_segments_left_after_env(signal, &[]);
}

fn no_segments_left_after_env(signal: nix::sys::signal::Signal, env: &[(&str, &str)]) {
    let mut th = Running::start_env(&["parallel/local_shm_signal.lua"], env);
    let pids = th.wait_line("pids ");
    assert_eq!(pids.len(), 2, "{pids:?}");
    for &pid in &pids {
        assert!(!segments_of(pid).is_empty(), "{pid} made segments");
    }
    let pid = nix::unistd::Pid::from_raw(th.process.id() as i32);
    nix::sys::signal::kill(pid, signal).expect("signal th");
    th.process.wait().unwrap();
    assert_all_gone(&pids, &format!("after the parent got {signal}"));
    for &pid in &pids {
        let left = segments_of(pid);
        assert!(left.is_empty(), "segments of {pid} left after {signal}: {left:?}");
    }
}

#[test]
fn a_parent_ended_by_sigterm_leaves_no_shared_memory() {
    no_segments_left_after(nix::sys::signal::Signal::SIGTERM);
}

#[test]
fn a_parent_ended_by_sigint_leaves_no_shared_memory() {
    no_segments_left_after(nix::sys::signal::Signal::SIGINT);
}

#[test]
fn a_parent_ended_by_sighup_leaves_no_shared_memory() {
    no_segments_left_after(nix::sys::signal::Signal::SIGHUP);
}

/// Nobody can clean up after SIGKILL but the children, which the kernel tells (PDEATHSIG).
#[test]
fn a_parent_killed_by_sigkill_leaves_no_shared_memory() {
    no_segments_left_after(nix::sys::signal::Signal::SIGKILL);
}

#[test]
fn a_parent_killed_by_sigkill_leaves_no_shared_memory_on_zeromq() {
    no_segments_left_after_env(nix::sys::signal::Signal::SIGKILL, ZEROMQ);
}

#[test]
fn a_killed_childs_segments_go_when_its_death_is_noticed() {
    script_ok("local_shm_death.lua");
}

/// A process whose pid is free now.
fn dead_pid() -> i32 {
    let mut p = Command::new("true").spawn().expect("spawn true");
    let pid = p.id() as i32;
    p.wait().unwrap();
    pid
}

/// Segments of a run killed all at once (nobody could remove them) go when the next run starts;
/// those of a run whose top still lives stay.
#[test]
fn a_new_run_removes_segments_of_runs_that_are_over() {
    let (dead_sender, dead_top) = (dead_pid(), dead_pid());
    let me = std::process::id();
    let over = format!("/dev/shm/luatorch-0123456789ab_{dead_top}-{dead_sender}-0-abcdef");
    let live = format!("/dev/shm/luatorch-0123456789ab_{me}-{dead_sender}-0-abcdef");
    std::fs::write(&over, b"left behind").unwrap();
    std::fs::write(&live, b"still in use").unwrap();
    let out = run_th(&["-e", "require 'parallel'; parallel.fork(); parallel.close()"]);
    let over_left = std::fs::metadata(&over).is_ok();
    let live_left = std::fs::metadata(&live).is_ok();
    let _ = std::fs::remove_file(&over);
    let _ = std::fs::remove_file(&live);
    out.assert_ok();
    assert!(!over_left, "a segment of a run that is over stayed: {over}");
    assert!(live_left, "a segment of a run whose top lives was removed: {live}");
}

/// The parent's abstract unix socket (`@luatorch-<pid>-<nonce>`), as any local user can find it.
fn parent_socket(pid: i32) -> String {
    let table = std::fs::read_to_string("/proc/net/unix").expect("/proc/net/unix");
    let needle = format!("@luatorch-{pid}-");
    table
        .lines()
        .filter_map(|l| l.split_whitespace().nth(7))
        .find(|p| p.starts_with(&needle))
        .unwrap_or_else(|| panic!("no socket {needle}* in /proc/net/unix"))
        .trim_start_matches('@')
        .to_string()
}

fn rss_kib(pid: i32) -> u64 {
    common::stranger::status_figure(pid, "VmRSS")
}

/// Connects to `name` and writes `head`, then up to `total` bytes of filler; how many bytes went
/// out before the parent cut the connection. A parent that neither reads nor closes fails the test.
fn stranger_writes(name: &str, head: &[u8], total: usize) -> usize {
    use std::io::Write;
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixStream};
    let addr = SocketAddr::from_abstract_name(name.as_bytes()).expect("abstract address");
    let mut s = UnixStream::connect_addr(&addr).expect("connect to the parent's socket");
    s.set_write_timeout(Some(TIMEOUT)).unwrap();
    let mut sent = 0;
    if s.write_all(head).is_err() {
        return sent;
    }
    sent += head.len();
    let chunk = vec![0x5Au8; 1 << 20];
    while sent < total {
        match s.write(&chunk) {
            Ok(n) => sent += n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock || e.kind() == std::io::ErrorKind::TimedOut => {
                panic!("the parent neither read nor closed a stranger's connection ({sent} bytes in)")
            }
            Err(_) => return sent,
        }
    }
    sent
}

/// Strangers that speak ZeroMQ to a parent's socket without the run's token: one with no
/// authentication (NULL) sending a 200 MB message, one with PLAIN announcing a 200 MB hello. Each
/// is cut off after its greeting or first frame header, and the parent's memory does not grow.
/// (On the fast path a parent has no socket at all: local_pipes.lua checks that.)
#[test]
fn strangers_on_the_parents_socket_cannot_make_it_buffer() {
    const BIG: usize = 200 << 20;
    let flag = common::temp_dir("stranger").join("go");
    let mut th = Running::start_env(&["parallel/local_stranger.lua", flag.to_str().unwrap()], ZEROMQ);
    let pid = th.wait_line("pids ")[0];
    let name = parent_socket(pid);
    let before = rss_kib(pid);

    let mut null = greeting("NULL");
    // READY with Socket-Type DEALER, then a message frame of BIG bytes.
    let mut ready = vec![0x05];
    ready.extend_from_slice(b"READY");
    ready.push(11);
    ready.extend_from_slice(b"Socket-Type");
    ready.extend_from_slice(&6u32.to_be_bytes());
    ready.extend_from_slice(b"DEALER");
    null.extend([0x04, ready.len() as u8]);
    null.extend(ready);
    null.push(0x02);
    null.extend((BIG as u64).to_be_bytes());
    let sent_null = stranger_writes(&name, &null, BIG);

    let mut plain = greeting("PLAIN");
    plain.push(0x06);
    plain.extend((BIG as u64).to_be_bytes());
    let sent_plain = stranger_writes(&name, &plain, BIG);

    let grown = rss_kib(pid).saturating_sub(before);
    std::fs::write(&flag, b"go").unwrap();
    let (status, stderr) = th.wait_exit();
    assert_eq!(status, Some(0), "{stderr}");
    assert!(
        sent_null < 64 << 20,
        "a NULL stranger wrote {sent_null} bytes before it was cut off"
    );
    assert!(
        sent_plain < 64 << 20,
        "a PLAIN stranger wrote {sent_plain} bytes before it was cut off"
    );
    assert!(grown < 64 << 10, "the parent grew by {grown} KiB while strangers wrote");
}

/// 200 strangers of this user on the parent's socket, each holding an unfinished PLAIN hello as
/// large as a frame may be: past the bound the oldest are ended at once, no thread is started
/// for them, the parent's memory grows by a few KiB each, and its child still answers.
#[test]
fn many_strangers_cost_the_parent_a_bounded_few_kib() {
    use std::io::{Read, Write};
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixStream};
    const STRANGERS: usize = 200;
    const HELD_AT_MOST: usize = 128;
    let flag = common::temp_dir("strangers").join("go");
    let mut th = Running::start_env(&["parallel/local_stranger.lua", flag.to_str().unwrap()], ZEROMQ);
    let pid = th.wait_line("pids ")[0];
    let name = parent_socket(pid);
    let addr = SocketAddr::from_abstract_name(name.as_bytes()).expect("abstract address");
    let (before, threads) = (
        common::stranger::status_figure(pid, "VmHWM"),
        common::stranger::status_figure(pid, "Threads"),
    );
    let mut hello = greeting("PLAIN");
    let announced: u64 = 8 << 10;
    hello.push(0x06);
    hello.extend(announced.to_be_bytes());
    hello.resize(hello.len() + announced as usize - 1, b'x');
    let mut held: Vec<UnixStream> = (0..STRANGERS)
        .map(|_| {
            let mut s = UnixStream::connect_addr(&addr).expect("connect to the parent's socket");
            s.set_write_timeout(Some(TIMEOUT)).unwrap();
            let _ = s.write_all(&hello);
            s
        })
        .collect();
    // Those past the bound are ended while the rest wait out the handshake's time limit (10 s):
    // wait until that many have ended, reading each one's end.
    let deadline = std::time::Instant::now() + TIMEOUT;
    let mut ended = [false; STRANGERS];
    let mut buf = [0u8; 4096];
    while ended.iter().filter(|e| **e).count() < STRANGERS - HELD_AT_MOST {
        assert!(
            std::time::Instant::now() < deadline,
            "strangers past the bound were not ended"
        );
        for (s, e) in held.iter_mut().zip(ended.iter_mut()).filter(|(_, e)| !**e) {
            s.set_read_timeout(Some(std::time::Duration::from_millis(1))).unwrap();
            while let Ok(n) = s.read(&mut buf) {
                if n == 0 {
                    *e = true;
                    break;
                }
            }
        }
    }
    let grown = common::stranger::status_figure(pid, "VmHWM").saturating_sub(before);
    assert_eq!(
        common::stranger::status_figure(pid, "Threads"),
        threads,
        "no thread per stranger"
    );
    std::fs::write(&flag, b"go").unwrap();
    let (status, stderr) = th.wait_exit();
    assert_eq!(status, Some(0), "{stderr}");
    assert!(
        grown < 16 << 10,
        "{STRANGERS} strangers made the parent's peak grow by {grown} KiB"
    );
}
