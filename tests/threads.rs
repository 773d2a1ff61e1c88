//! `require 'threads'` (torch/threads' API) through the real `th`: the pool's jobs, end callbacks,
//! async use and specific mode; both serializations; errors with the worker's traceback; every
//! wrong argument; Mutex, Condition, Thread and safe; and no thread left once a pool is terminated
//! or collected. The Lua side is tests/lua/threads/*.lua, each ending with the line `ok`.

mod common;

use common::{Output, lua_dir, run_th_in};

fn run(script: &str) -> Output {
    run_th_in(&lua_dir(), &[&format!("threads/{script}")], "", &[])
}

fn assert_ok(script: &str) -> Output {
    let out = run(script);
    assert!(
        out.status == Some(0) && out.stdout.ends_with("ok\n"),
        "{script} failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
    out
}

#[test]
fn pool_jobs_end_callbacks_async_specific_yield() {
    assert_ok("pool_basic.lua");
}

#[test]
fn pool_copies_or_shares_tensors_by_serialization() {
    assert_ok("pool_serialize.lua");
}

#[test]
fn pool_errors_carry_the_worker_traceback_and_wrong_arguments_are_named() {
    assert_ok("pool_errors.lua");
}

#[test]
fn mutex_condition_thread_and_safe() {
    assert_ok("sync.lua");
}

#[test]
fn no_thread_outlives_a_terminated_or_collected_pool() {
    assert_ok("pool_gc.lua");
}

#[test]
fn an_end_callback_failing_at_exit_is_reported_not_fatal() {
    let out = assert_ok("gc_error.lua");
    assert!(
        out.stderr.contains("while a pool was collected") && out.stderr.contains("error from the end callback"),
        "stderr: {}",
        out.stderr
    );
}

#[test]
fn worker_states_collect_their_garbage() {
    assert_ok("worker_gc.lua");
}
