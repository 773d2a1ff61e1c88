//! torch-ipc's process helpers (its README's small helpers): `getpid`, `getppid`, `gettid`,
//! `fork`, `waitpid`, `isOSX` and `isDevel`.
//!
//! `ipc.fork()` is a raw `fork()`, allowed only while this process runs a single thread. `fork`
//! copies just the calling thread, so with `ipc.map` workers, BLAS or transport threads running,
//! the child could block forever on a lock (allocator, Lua state, queue) that another thread held
//! at that instant; in that case it raises an error that says so instead of forking. A plain `th`
//! script is single-threaded, so torch-ipc's fork-then-`waitpid` pattern (test_flock) works.

use std::io::Write;
use std::os::unix::ffi::OsStrExt;

use mlua::{Lua, Result, Table, Value, Variadic};

use crate::args::error;
use crate::calls;

/// The number of threads of this process (`Threads:` in /proc/self/status).
fn thread_count() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
}

/// `ipc.fork() -> pid`: 0 in the child.
fn fork(_: &Lua, (): ()) -> Result<i64> {
    const M: &str = "ipc.fork";
    match thread_count() {
        Some(1) => {}
        Some(n) => {
            return Err(error(
                M,
                format!(
                    "not supported in a process running {n} threads (ipc.map workers, BLAS or transport threads): \
                     fork() copies only the calling thread, so the child could deadlock on a lock another thread \
                     holds. Start a new process with ipc.spawn or parallel.fork instead, or fork before starting \
                     any threads"
                ),
            ));
        }
        None => {
            return Err(error(
                M,
                "cannot count this process's threads (/proc/self/status), so fork is refused",
            ));
        }
    }
    // Output still buffered here would otherwise be written twice, once by each process.
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    unsafe { libc::fflush(std::ptr::null_mut()) };
    match unsafe { libc::fork() } {
        -1 => Err(error(M, std::io::Error::last_os_error())),
        pid => Ok(pid as i64),
    }
}

/// `ipc.waitpid(pid) -> code | nothing`: the exit code of child `pid`, or nothing when a signal
/// ended it.
fn waitpid(_: &Lua, pid: Value) -> Result<Variadic<i64>> {
    const M: &str = "ipc.waitpid";
    let pid = match crate::args::number(&pid) {
        Some(n) if n.fract() == 0.0 && n.abs() <= i32::MAX as f64 => n as libc::pid_t,
        _ => {
            return Err(error(
                M,
                format!("expected a process id, got {}", crate::args::type_name(&pid)),
            ));
        }
    };
    loop {
        let mut status = 0;
        if unsafe { libc::waitpid(pid, &mut status, libc::WUNTRACED | libc::WCONTINUED) } < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(error(M, e));
        }
        if libc::WIFEXITED(status) {
            return Ok(Variadic::from_iter([libc::WEXITSTATUS(status) as i64]));
        }
        if libc::WIFSIGNALED(status) {
            return Ok(Variadic::new());
        }
        // Stopped or continued: keep waiting for the end.
    }
}

pub fn register(lua: &Lua, ipc: &Table) -> Result<()> {
    calls::add(lua, ipc, "getpid", getpid)?;
    calls::add(lua, ipc, "getppid", getppid)?;
    calls::add(lua, ipc, "gettid", gettid)?;
    calls::add(lua, ipc, "fork", fork)?;
    calls::add(lua, ipc, "waitpid", waitpid)?;
    calls::add(lua, ipc, "isOSX", is_osx)?;
    calls::add(lua, ipc, "isDevel", is_devel)?;
    Ok(())
}

/// `ipc.getpid() -> pid`
fn getpid(_: &Lua, (): ()) -> Result<i64> {
    Ok(std::process::id() as i64)
}

/// `ipc.getppid() -> pid`
fn getppid(_: &Lua, (): ()) -> Result<i64> {
    Ok(unsafe { libc::getppid() } as i64)
}

/// `ipc.gettid() -> id`: pthread_self, as torch-ipc: an address, exact in a Lua number.
fn gettid(_: &Lua, (): ()) -> Result<i64> {
    Ok(unsafe { libc::pthread_self() } as i64)
}

/// `ipc.isOSX() -> bool`
fn is_osx(_: &Lua, (): ()) -> Result<bool> {
    Ok(cfg!(target_os = "macos"))
}

/// `ipc.isDevel() -> bool`: macOS, or CKOIA_DEVEL_MODE set to 1.
fn is_devel(_: &Lua, (): ()) -> Result<bool> {
    let devel = std::env::var_os("CKOIA_DEVEL_MODE").is_some_and(|v| v.as_bytes().starts_with(b"1"));
    Ok(cfg!(target_os = "macos") || devel)
}
