//! `require 'scheduler'` through the real `th`: the same API on threads and on local processes
//! (ordered, unordered and reducing containers, reused and per-task callables, task errors with
//! their traceback, back-pressure, init, `with`, wrong arguments), a worker process dying (the
//! task fails naming it, or runs again with retries), nothing left after shutdown, and workers
//! over ssh to the private sshd (tests/common/sshd.rs). The Lua side is tests/lua/scheduler/.

mod common;

use std::time::Duration;

use common::sshd::Sshd;
use common::{Output, lua_dir, run_th_in, th_path};

fn run(args: &[&str]) -> Output {
    let script = format!("scheduler/{}", args[0]);
    let mut all = vec![script.as_str()];
    all.extend_from_slice(&args[1..]);
    run_th_in(&lua_dir(), &all, "", &[])
}

fn assert_ok(args: &[&str]) {
    let out = run(args);
    assert!(
        out.status == Some(0) && out.stdout.ends_with("ok\n"),
        "{args:?} failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
}

#[test]
fn api_on_threads() {
    assert_ok(&["api.lua", "threads"]);
}

#[test]
fn api_on_processes() {
    assert_ok(&["api.lua", "processes"]);
}

#[test]
fn no_worker_outlives_shutdown() {
    assert_ok(&["cleanup.lua"]);
}

#[test]
fn a_dead_worker_fails_its_task_or_retries_it() {
    assert_ok(&["death.lua"]);
}

#[test]
fn remote_workers_over_ssh() {
    // Without /usr/sbin/sshd the fixture says why and the test passes (not under CI).
    let Some(server) = Sshd::start("scheduler") else { return };
    let th = th_path().display().to_string();
    assert_ok(&["remote.lua", &server.protocol(), &th]);
    if let Err(left) = server.wait_no_sessions(Duration::from_secs(5)) {
        panic!("processes left on the remote side after shutdown: {left:?}");
    }
}
