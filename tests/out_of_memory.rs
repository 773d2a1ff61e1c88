//! Running out of memory is a Lua error the script can catch, never an abort: `th` under an
//! address-space limit (as `ulimit -v` sets it), for a storage, a serialization buffer, many
//! small tensors (Rust's small allocations, caught by the allocator's reserve), Lua tables and
//! strings (Lua's own heap).

mod common;

use std::os::unix::process::CommandExt;
use std::process::Command;

/// Runs the case under a limit of `gib` GiB of address space.
fn run_case(case: &str, gib: u64) -> common::Output {
    let mut cmd = Command::new(common::th_path());
    cmd.current_dir(common::lua_dir())
        .args(["memory/out_of_memory.lua", case]);
    let limit = gib << 30;
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let r = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &r) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    common::run_cmd(&mut cmd, common::TIMEOUT)
}

fn assert_case(case: &str, gib: u64) {
    let out = run_case(case, gib);
    assert!(
        out.status == Some(0) && out.stdout.ends_with("ok\n"),
        "{case}: status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
}

#[test]
fn a_serialization_buffer_past_the_limit_is_an_error() {
    assert_case("serialize", 4);
}

#[test]
fn a_storage_past_the_limit_is_an_error() {
    assert_case("storage", 2);
}

#[test]
fn many_small_tensors_end_in_an_error() {
    assert_case("tensors", 1);
}

#[test]
fn lua_tables_past_the_limit_are_an_error() {
    assert_case("tables", 1);
}

#[test]
fn lua_strings_past_the_limit_are_an_error() {
    assert_case("strings", 1);
}
