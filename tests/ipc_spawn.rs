//! `ipc.spawn` and ipc's small process helpers (getpid, getppid, gettid, fork, waitpid, isOSX,
//! isDevel, flock), through the real `th`: every stdout mode, stdin, arguments and environment,
//! exit codes and signals, `running`, every error path, collection of a child never waited, no
//! child left behind however th ends, and torch-ipc's own test_spawn cases.
//!
//! The Lua side is tests/lua/ipc/spawn_*.lua; each script ends with the line `ok` when every check
//! passed, and prints a `FAILED <check>: <message>` line on stderr for each that did not.

mod common;

use std::time::Duration;

use common::sshd::wait_gone;
use common::{Output, lua_dir, run_th_in};

const GC_MESSAGE: &str = "ipc.spawn being garbage collected before wait was called";

fn run_script(script: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let script = format!("ipc/{script}");
    let mut all = vec![script.as_str()];
    all.extend_from_slice(args);
    run_th_in(&lua_dir(), &all, "", env)
}

fn assert_script_ok(out: &Output) {
    assert!(
        out.status == Some(0) && out.stdout.ends_with("ok\n"),
        "the script failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
}

fn script_ok(script: &str, env: &[(&str, &str)]) -> Output {
    let out = run_script(script, &[], env);
    assert_script_ok(&out);
    out
}

#[test]
fn spawn_stdout_stdin_args_env_exit_codes_signals_and_errors() {
    let out = script_ok("spawn_basic.lua", &[("SPAWN_TEST_VAR", "inherited")]);
    // The child's stderr is th's stderr.
    assert!(out.stderr.contains("spawn-stderr-line\n"), "stderr:\n{}", out.stderr);
    // Every handle in the script was waited.
    assert!(!out.stderr.contains(GC_MESSAGE), "stderr:\n{}", out.stderr);
}

#[test]
fn spawn_collecting_an_unwaited_child_ends_it() {
    let out = script_ok("spawn_gc.lua", &[]);
    assert!(out.stderr.contains(GC_MESSAGE), "stderr:\n{}", out.stderr);
}

/// The pid after "child " on stdout.
fn child_pid(out: &Output) -> i32 {
    out.stdout
        .lines()
        .find_map(|l| l.strip_prefix("child "))
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "no child pid in\n--- stdout\n{}\n--- stderr\n{}",
                out.stdout, out.stderr
            )
        })
}

#[test]
fn spawn_no_child_outlives_th() {
    for (how, status) in [("end", 0), ("error", 1), ("exit", 3)] {
        let out = run_script("spawn_exit.lua", &[how], &[]);
        assert_eq!(
            out.status,
            Some(status),
            "th ended by {how}\n--- stdout\n{}\n--- stderr\n{}",
            out.stdout,
            out.stderr
        );
        let pid = child_pid(&out);
        let gone = wait_gone(pid, Duration::from_secs(10));
        if !gone {
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        assert!(gone, "the child {pid} outlived th ended by {how}");
        assert!(
            out.stderr.contains(GC_MESSAGE),
            "ended by {how}, stderr:\n{}",
            out.stderr
        );
    }
}

#[test]
fn spawn_torch_ipc_test_spawn_cases() {
    let out = run_script("spawn_test_spawn.lua", &[], &[]);
    assert_eq!(
        out.status,
        Some(0),
        "--- stdout\n{}\n--- stderr\n{}",
        out.stdout,
        out.stderr
    );
    for case in [
        "testStdoutAll",
        "testStdoutLine",
        "testStdoutNumber",
        "testStdin",
        "testEnv",
        "testSignalKill",
        "testSignalTerm",
        "testExitCode",
        "testRunning",
        "testCollectGarbage",
        "testErrors",
        "testMisuse",
    ] {
        assert!(
            out.stdout.lines().any(|l| l == format!("PASS {case}")),
            "{case} did not pass\n--- stdout\n{}",
            out.stdout
        );
    }
}

#[test]
fn ipc_pids_fork_waitpid_and_platform() {
    for mode in [None, Some("1"), Some("1yes"), Some("0")] {
        let env: Vec<(&str, &str)> = mode.map(|m| ("CKOIA_DEVEL_MODE", m)).into_iter().collect();
        let out = script_ok("spawn_misc.lua", &env);
        // Output buffered before the fork is written once, by the parent.
        assert_eq!(
            out.stdout.matches("fork-marker-before").count(),
            1,
            "stdout:\n{}",
            out.stdout
        );
    }
}

#[test]
fn ipc_flock() {
    script_ok("spawn_flock.lua", &[]);
}
