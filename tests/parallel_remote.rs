//! `parallel` children forked through ssh, to a private sshd on 127.0.0.1 (tests/common/sshd.rs): fork,
//! nfork, addremote/sfork, calibrate, data both ways, join/yield, child errors, failed forks, and no
//! process left behind on the remote side after close() or after the parent is killed.
//!
//! Each test starts its own sshd; without /usr/sbin/sshd the tests print why and pass (not under CI).
//! The Lua side of each test is tests/lua/parallel/remote_*.lua.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::sshd::{self, Sshd};
use common::{Output, TIMEOUT, run_th, th_path};

/// Time allowed for the remote side to empty once the parent th has exited.
const CLEANUP: Duration = Duration::from_secs(5);

macro_rules! sshd_or_skip {
    ($name:expr) => {
        match Sshd::start($name) {
            Some(server) => server,
            None => return,
        }
    };
}

/// Runs `th parallel/<script> PROTOCOL TH extra...` from tests/lua.
fn run_remote(server: &Sshd, script: &str, extra: &[&str]) -> Output {
    let script = format!("parallel/{script}");
    let protocol = server.protocol();
    let th = th_path().display().to_string();
    let mut args = vec![script.as_str(), protocol.as_str(), th.as_str()];
    args.extend_from_slice(extra);
    run_th(&args)
}

/// The script exited 0 with "ok" as its last line.
fn assert_script_ok(out: &Output) {
    out.assert_ok();
    assert!(
        out.stdout.ends_with("ok\n"),
        "the script did not finish\n--- stdout\n{}\n--- stderr\n{}",
        out.stdout,
        out.stderr
    );
}

/// Nothing the sessions started is still running.
fn assert_no_sessions(server: &Sshd) {
    if let Err(left) = server.wait_no_sessions(CLEANUP) {
        panic!("processes left on the remote side {CLEANUP:?} after the parent exited: {left:?}");
    }
}

#[test]
fn fixture_logs_in_and_cleans_up() {
    let server = sshd_or_skip!("fixture");
    assert_eq!(server.host(), "testhost");
    assert!(server.protocol().starts_with("ssh -F "), "{}", server.protocol());
    let out = server.ssh("echo hi");
    assert_eq!(out.status, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout, "hi\n");
    // The other host aliases reach the same server.
    for host in &sshd::HOSTS[1..] {
        let cmd = format!("{} {host} echo {host}", server.protocol());
        let out = sshd::run_cmd(Command::new("sh").arg("-c").arg(&cmd), Duration::from_secs(20));
        assert_eq!(out.status, Some(0), "{cmd}: {}", out.stderr);
        assert_eq!(out.stdout.trim(), *host);
    }
    // A process left running by a session is listed, and dropping the server kills it.
    let out = server.ssh("sleep 60 </dev/null >/dev/null 2>&1 & echo $!");
    assert_eq!(out.status, Some(0), "{}", out.stderr);
    let pid: i32 = out.stdout.trim().parse().expect("a pid");
    let listed = server.session_pids();
    assert!(listed.iter().any(|&(p, _)| p == pid), "{pid} not in {listed:?}");
    let dir = server.dir.clone();
    drop(server);
    assert!(
        sshd::wait_gone(pid, Duration::from_secs(5)),
        "sleep {pid} survived the fixture"
    );
    assert!(!dir.exists(), "{} survived the fixture", dir.display());
}

#[test]
fn fork_over_ssh_exchanges_data_both_ways() {
    let server = sshd_or_skip!("fork");
    assert_script_ok(&run_remote(&server, "remote_fork.lua", &[]));
    assert_no_sessions(&server);
}

#[test]
fn exec_join_yield_and_noblock_over_ssh() {
    let server = sshd_or_skip!("exec");
    assert_script_ok(&run_remote(&server, "remote_exec.lua", &[]));
    assert_no_sessions(&server);
}

#[test]
fn nfork_with_remote_entries() {
    let server = sshd_or_skip!("nfork");
    assert_script_ok(&run_remote(&server, "remote_nfork.lua", &[]));
    assert_no_sessions(&server);
}

#[test]
fn sfork_spreads_over_remotes_and_warns_when_oversubscribing() {
    let server = sshd_or_skip!("sfork");
    let out = run_remote(&server, "remote_sfork.lua", &[]);
    assert_script_ok(&out);
    let warning = "WARNING: forking more processes than cores available";
    let (before, after) = out.stdout.split_once("-- sfork(3) done\n").expect("the marker line");
    assert!(!before.contains(warning), "warned while cores were left:\n{before}");
    assert!(
        after.contains(warning) || out.stderr.contains(warning),
        "no warning when oversubscribing\n--- stdout\n{}\n--- stderr\n{}",
        out.stdout,
        out.stderr
    );
    assert_no_sessions(&server);
}

#[test]
fn calibrate_sets_remote_speeds() {
    let server = sshd_or_skip!("calibrate");
    let out = run_remote(&server, "remote_calibrate.lua", &[]);
    assert_script_ok(&out);
    assert!(out.stdout.contains("calibrating remote machines"), "{}", out.stdout);
    assert_no_sessions(&server);
}

#[test]
fn remote_child_failures_raise_in_the_parent() {
    let server = sshd_or_skip!("error");
    let out = run_remote(&server, "remote_error.lua", &[]);
    assert_script_ok(&out);
    assert!(out.stdout.contains("closing session"), "{}", out.stdout);
    assert_no_sessions(&server);
}

#[test]
fn remote_child_failure_after_a_join_raises_at_the_next_call() {
    let server = sshd_or_skip!("error-after-yield");
    assert_script_ok(&run_remote(&server, "remote_error_after_yield.lua", &[]));
    assert_no_sessions(&server);
}

#[test]
fn close_leaves_no_remote_process() {
    let server = sshd_or_skip!("close");
    let out = run_remote(&server, "remote_close.lua", &[]);
    assert_script_ok(&out);
    assert!(out.stdout.contains("closing session"), "{}", out.stdout);
    let pids: Vec<i32> = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("pids: "))
        .expect("the pids line")
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 5, "{pids:?}");
    for pid in pids {
        assert!(
            !sshd::is_alive(pid),
            "{pid} ({}) still runs after close",
            sshd::cmdline(pid)
        );
    }
    assert_no_sessions(&server);
}

#[test]
fn killed_parent_leaves_no_remote_process() {
    let server = sshd_or_skip!("orphan");
    let mut parent = Command::new(th_path())
        .arg("parallel/remote_orphan.lua")
        .arg(server.protocol())
        .arg(th_path())
        .current_dir(common::lua_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn th");
    let (tx, rx) = mpsc::channel();
    let stdout = parent.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(common::printed_line(line));
        }
    });
    let stderr = parent.stderr.take().unwrap();
    let stderr_reader = std::thread::spawn(move || {
        BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<_>>()
            .join("\n")
    });
    let deadline = Instant::now() + TIMEOUT;
    let (remote, ssh) = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => {
                let Some(rest) = line.strip_prefix("remote pid ") else {
                    continue;
                };
                let (remote, ssh) = rest.split_once(" ssh ").expect("remote pid N ssh M");
                break (remote.parse::<i32>().unwrap(), ssh.parse::<i32>().unwrap());
            }
            Err(_) => {
                let _ = parent.kill();
                let _ = parent.wait();
                panic!(
                    "the parent did not report its remote child within {TIMEOUT:?}\n--- stderr\n{}",
                    stderr_reader.join().unwrap()
                );
            }
        }
    };
    assert!(sshd::is_alive(remote), "the remote th {remote} runs before the kill");
    let sessions = server.session_pids();
    assert!(
        sessions.iter().any(|&(pid, _)| pid == remote),
        "the remote th {remote} is not among the session processes {sessions:?}"
    );
    parent.kill().expect("SIGKILL the parent");
    let killed_at = Instant::now();
    parent.wait().unwrap();
    // The design promises 2 s; allow 1 s more for a loaded machine.
    let bound = Duration::from_secs(3);
    assert!(
        sshd::wait_gone(remote, bound),
        "the remote th {remote} ({}) still runs {bound:?} after its parent was killed",
        sshd::cmdline(remote)
    );
    let took = killed_at.elapsed();
    assert!(sshd::wait_gone(ssh, bound), "the ssh client {ssh} still runs");
    if let Err(left) = server.wait_no_sessions(bound) {
        panic!("processes left on the remote side after the parent was killed: {left:?}");
    }
    println!("remote th gone {took:?} after the parent was killed");
}

#[test]
fn unreachable_host_fails_fork_quickly() {
    let server = sshd_or_skip!("unreachable");
    let closed = sshd::free_port().to_string();
    let out = run_remote(&server, "remote_unreachable.lua", &[&closed]);
    assert_script_ok(&out);
    println!("{}", out.stdout);
    assert_no_sessions(&server);
}

#[test]
fn failing_remote_command_fails_fork_clearly() {
    let server = sshd_or_skip!("badlua");
    let out = run_remote(&server, "remote_badlua.lua", &[]);
    assert_script_ok(&out);
    println!("{}", out.stdout);
    assert_no_sessions(&server);
}
