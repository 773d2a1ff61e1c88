//! `require 'nccl'` through the real `th`: loading with and without the NCCL library, what a
//! missing library's errors list, wrong arguments to every function, CPU tensors, communicators
//! on a machine without a GPU, unique ids carried by parallel, ipc and torch.save, and (on a GPU
//! machine) every collective on a 1-rank communicator.
//!
//! The Lua side is tests/lua/nccl/*.lua. The unique-id tests need the NCCL library (found the
//! usual way, or named by LUATORCH_NCCL; .ci/run fetches it): without it they print why and pass,
//! except under CI, where they fail. The GPU script skips, saying why, without cutorch or a device.

mod common;

use std::process::Command;
use std::time::Duration;

use common::{Output, TIMEOUT, lua_dir, run_cmd, th_path};

/// The GPU script makes many communicators and waits out one timeout on purpose.
const GPU_TIMEOUT: Duration = Duration::from_secs(300);

/// Runs `th nccl/<script> args...` from tests/lua with `LUATORCH_NCCL` as `lib` says, killing it
/// after TIMEOUT.
fn run(script: &str, args: &[&str], lib: Lib) -> Output {
    run_for(script, args, lib, TIMEOUT)
}

fn run_for(script: &str, args: &[&str], lib: Lib, timeout: Duration) -> Output {
    let mut cmd = Command::new(th_path());
    cmd.current_dir(lua_dir()).arg(format!("nccl/{script}")).args(args);
    match lib {
        Lib::Set(path) => {
            cmd.env("LUATORCH_NCCL", path);
        }
        Lib::Unset => {
            cmd.env_remove("LUATORCH_NCCL");
        }
        Lib::Inherit => {}
    }
    let out = run_cmd(&mut cmd, timeout);
    assert!(
        out.status.is_some(),
        "th nccl/{script} did not finish within {timeout:?}"
    );
    out
}

/// What `LUATORCH_NCCL` the script gets: this value, none, or the test's own.
#[derive(Clone, Copy)]
enum Lib<'a> {
    Set(&'a str),
    Unset,
    Inherit,
}

/// The script passed: exit 0 and `ok` as its last line.
fn assert_ok(out: &Output) {
    out.assert_ok();
    assert!(out.stdout.ends_with("ok\n"), "no `ok` at the end:\n{}", out.stdout);
}

const MISSING: &str = "/nonexistent/luatorch-test/libnccl.so.2";

#[test]
fn loads_without_the_library_and_says_what_is_missing() {
    assert_ok(&run("load.lua", &["absent", MISSING], Lib::Set(MISSING)));
}

#[test]
fn a_library_that_is_not_nccl() {
    // libm is on every glibc system and has none of NCCL's functions.
    assert_ok(&run("load.lua", &["notnccl", "libm.so.6"], Lib::Set("libm.so.6")));
}

#[test]
fn the_error_lists_every_place_searched() {
    let out = run("load.lua", &["default"], Lib::Unset);
    assert_ok(&out);
    if let Some(line) = out.stdout.lines().find(|l| l.starts_with("SKIP")) {
        println!("{line}");
    }
}

#[test]
fn wrong_arguments_cpu_tensors_and_no_gpu() {
    // The checks come before the library is needed: the same with and without it.
    assert_ok(&run("errors.lua", &[], Lib::Set(MISSING)));
    assert_ok(&run("errors.lua", &[], Lib::Inherit));
}

/// Whether th finds the NCCL library in this environment, and if not, why.
fn library() -> Result<String, String> {
    let mut cmd = Command::new(th_path());
    cmd.args([
        "-e",
        "local ok, s = require('nccl').available() print(ok and 'found' or 'missing', s)",
    ]);
    let out = run_cmd(&mut cmd, TIMEOUT);
    match out.stdout.split_once(char::is_whitespace) {
        Some(("found", s)) => Ok(s.trim().to_string()),
        Some(("missing", s)) => Err(s.trim().to_string()),
        _ => panic!(
            "unexpected output\n--- stdout\n{}\n--- stderr\n{}",
            out.stdout, out.stderr
        ),
    }
}

#[test]
fn unique_ids_travel_through_parallel_ipc_and_files() {
    match library() {
        Ok(_) => assert_ok(&run("uniqueid.lua", &[], Lib::Inherit)),
        Err(why) if std::env::var_os("CI").is_some() => {
            panic!("no NCCL library under CI (.ci/run fetches it and sets LUATORCH_NCCL): {why}")
        }
        Err(why) => println!("skipped: no NCCL library ({why})"),
    }
}

#[test]
fn every_collective_on_a_gpu() {
    let out = run_for("gpu.lua", &[], Lib::Inherit, GPU_TIMEOUT);
    if let Some(line) = out.stdout.lines().find(|l| l.starts_with("SKIP:")) {
        assert_eq!(out.status, Some(0), "{}\n{}", out.stdout, out.stderr);
        println!("skipped: {line}");
        return;
    }
    assert_ok(&out);
}
