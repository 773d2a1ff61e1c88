//! The in-process half of `ipc` through the real `th`: map and map_extended, workqueue, channel,
//! mutex, marshal, sharedtable, BackgroundTask and BackgroundTaskPool, the `regress` harness, wrong
//! arguments to every call, and torch-ipc's own test cases for these modules.
//!
//! The Lua side is tests/lua/ipc/threads_*.lua (our cases, ending with the line `ok`) and
//! tests/lua/ipc/test_*.lua (torch-ipc's cases as regress files). Each is a regress table: a
//! failing case is reported as `test[<name>] failed - <traceback>` on stdout and the script exits 1.

mod common;

use common::{Output, lua_dir, run_th_in};

fn run_script(script: &str, args: &[&str]) -> Output {
    let script = format!("ipc/{script}");
    let mut all = vec![script.as_str()];
    all.extend_from_slice(args);
    run_th_in(&lua_dir(), &all, "", &[])
}

fn fail_text(out: &Output) -> String {
    format!(
        "the script failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status, out.stdout, out.stderr
    )
}

/// `(passed, total)` from regress's summary line `<k> of <n> tests passed in [...]`.
fn summary(out: &Output) -> Option<(usize, usize)> {
    let line = out.stdout.lines().find(|l| l.contains(" tests passed in ["))?;
    let mut words = line.split_whitespace();
    let passed = words.next()?.parse().ok()?;
    let total = words.nth(1)?.parse().ok()?;
    Some((passed, total))
}

/// A threads_*.lua script: every case passed and the script ended with `ok`.
fn threads_ok(script: &str) -> Output {
    let out = run_script(script, &[]);
    assert!(
        out.status == Some(0) && out.stdout.ends_with("ok\n") && summary(&out).is_some_and(|(p, n)| p == n && n > 0),
        "{}",
        fail_text(&out)
    );
    out
}

/// A torch-ipc test_*.lua file: every case passed; returns the number of cases.
fn upstream_ok(script: &str) -> usize {
    let out = run_script(script, &[]);
    let counts = summary(&out);
    assert!(
        out.status == Some(0) && counts.is_some_and(|(p, n)| p == n && n > 0),
        "{}",
        fail_text(&out)
    );
    counts.map_or(0, |(_, n)| n)
}

#[test]
fn map_threads_order_errors_checkerrors_clean_states_closures_tensors() {
    threads_ok("threads_map.lua");
}

#[test]
fn workqueue_names_direction_items_writeup_drain_close_and_lone_reads() {
    threads_ok("threads_workqueue.lua");
}

#[test]
fn channel_states_items_close_wakes_readers_and_channels_in_channels() {
    threads_ok("threads_channel.lua");
}

#[test]
fn mutex_recursion_exclusion_barriers_and_a_holder_that_ended() {
    threads_ok("threads_mutex.lua");
}

#[test]
fn marshal_reads_threads_upvalues_and_close() {
    threads_ok("threads_marshal.lua");
}

#[test]
fn sharedtable_copies_length_nesting_move_size_and_writers() {
    threads_ok("threads_sharedtable.lua");
}

#[test]
fn background_task_and_pool() {
    threads_ok("threads_background.lua");
}

#[test]
fn worker_and_background_task_states_collect_their_garbage() {
    threads_ok("threads_collect.lua");
}

#[test]
fn wrong_arguments_name_the_call_and_other_threads_keep_working() {
    threads_ok("threads_badinput.lua");
}

#[test]
fn regress_harness_assertions_and_runs() {
    let out = threads_ok("threads_regress.lua");
    // The should* assertions warn without failing their case.
    assert!(out.stdout.contains("warning: "), "{}", fail_text(&out));
}

#[test]
fn regress_reports_each_failure_and_raises_at_the_end() {
    let out = run_script("threads_regress.lua", &["fail"]);
    let text = fail_text(&out);
    assert_eq!(out.status, Some(1), "{text}");
    assert!(
        out.stdout.contains("Running tests for file [ipc/threads_regress.lua]:"),
        "{text}"
    );
    assert!(out.stdout.contains("test[truthyIsNotTrue] failed - "), "{text}");
    assert!(out.stdout.contains("one is not true"), "{text}");
    assert!(out.stdout.contains("test[errorsInWorkers] failed - "), "{text}");
    assert!(out.stdout.contains("failed inside a worker"), "{text}");
    assert!(!out.stdout.contains("test[passes] failed"), "{text}");
    assert_eq!(summary(&out), Some((1, 3)), "{text}");
    assert!(
        out.stderr
            .contains("regress: 2 of 3 tests failed in [ipc/threads_regress.lua]: errorsInWorkers, truthyIsNotTrue"),
        "{text}"
    );
    assert!(!out.stdout.contains("not reached"), "{text}");
}

#[test]
fn torch_ipc_test_map() {
    assert_eq!(upstream_ok("test_map.lua"), 14);
}

#[test]
fn torch_ipc_test_workqueue() {
    assert_eq!(upstream_ok("test_workqueue.lua"), 16);
}

#[test]
fn torch_ipc_test_channel() {
    assert_eq!(upstream_ok("test_channel.lua"), 9);
}

#[test]
fn torch_ipc_test_mutex() {
    assert_eq!(upstream_ok("test_mutex.lua"), 1);
}

#[test]
fn torch_ipc_test_sharedtable() {
    assert_eq!(upstream_ok("test_sharedtable.lua"), 13);
}

#[test]
fn torch_ipc_test_marshal() {
    assert_eq!(upstream_ok("test_marshal.lua"), 6);
}

#[test]
fn torch_ipc_test_background_task() {
    assert_eq!(upstream_ok("test_BackgroundTask.lua"), 5);
}

#[test]
fn torch_ipc_test_background_task_pool() {
    assert_eq!(upstream_ok("test_BackgroundTaskPool.lua"), 4);
}

#[test]
fn clients_travel_between_threads() {
    threads_ok("threads_clients.lua");
}
