//! torch-ipc's small helpers (reference/parallel_ipc.md B.13): `getpid`, `getppid`, `gettid`,
//! `fork`, `waitpid`, `isOSX`, `isDevel` and the advisory file lock `flock`.
//!
//! `ipc.fork()` is a raw `fork()`, allowed only while this process runs a single thread. `fork`
//! copies just the calling thread, so with `ipc.map` workers, BLAS or transport threads running,
//! the child could block forever on a lock (allocator, Lua state, queue) that another thread held
//! at that instant; in that case it raises an error that says so instead of forking. A plain `th`
//! script is single-threaded, so torch-ipc's fork-then-`waitpid` pattern (test_flock) works.
//!
//! `ipc.flock(path, noBlock)` takes `flock(LOCK_EX)` on `path` (created, mode 0600, unless
//! `noBlock`), returning nil when the file is missing or not accessible, or, with `noBlock`, when
//! another holder has it. A blocking request for a file the calling thread already holds raises
//! instead of deadlocking, since a second open of the same file conflicts with the first.

use std::collections::HashSet;
use std::ffi::CString;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::sync::Mutex;

use mlua::{Lua, Result, Table, UserData, UserDataMethods, Value, Variadic};

use crate::torch::args::error;

fn errno(method: &str) -> mlua::Error {
    error(method, std::io::Error::last_os_error())
}

/// The number of threads of this process (`Threads:` in /proc/self/status).
fn thread_count() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
}

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
        -1 => Err(errno(M)),
        pid => Ok(pid as i64),
    }
}

/// The exit code of child `pid`, or nothing when a signal ended it.
fn waitpid(_: &Lua, pid: Value) -> Result<Variadic<i64>> {
    const M: &str = "ipc.waitpid";
    let pid = match crate::torch::args::number(&pid) {
        Some(n) if n.fract() == 0.0 && n.abs() <= i32::MAX as f64 => n as libc::pid_t,
        _ => {
            return Err(error(
                M,
                format!("expected a process id, got {}", crate::torch::args::type_name(&pid)),
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

/// (device, inode) of every file a thread of this process holds through `ipc.flock`, with the
/// holder: a blocking lock of a file the same thread holds would never return.
static HELD: Mutex<Option<HashSet<(u64, u64, libc::pthread_t)>>> = Mutex::new(None);

fn held() -> std::sync::MutexGuard<'static, Option<HashSet<(u64, u64, libc::pthread_t)>>> {
    HELD.lock().unwrap_or_else(|p| p.into_inner())
}

struct FileLock {
    fd: libc::c_int,
    key: (u64, u64, libc::pthread_t),
    /// The process that took the lock: a forked copy closes its descriptor without unlocking.
    owner: u32,
}

impl FileLock {
    fn close(&mut self) -> std::io::Result<()> {
        if self.fd < 0 {
            return Ok(());
        }
        let fd = std::mem::replace(&mut self.fd, -1);
        let mut result = Ok(());
        if std::process::id() == self.owner {
            if let Some(set) = held().as_mut() {
                set.remove(&self.key);
            }
            if unsafe { libc::flock(fd, libc::LOCK_UN) } != 0 {
                result = Err(std::io::Error::last_os_error());
            }
        }
        unsafe { libc::close(fd) };
        result
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

impl UserData for FileLock {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method_mut("close", |_, this, ()| {
            this.close().map_err(|e| error("ipc.flock:close", e))
        });
    }
}

fn flock(lua: &Lua, (path, no_block): (Value, Option<bool>)) -> Result<Value> {
    const M: &str = "ipc.flock";
    let no_block = no_block.unwrap_or(false);
    let path = match &path {
        Value::String(s) => {
            CString::new(s.as_bytes().to_vec()).map_err(|_| error(M, "the file name holds a NUL byte"))?
        }
        other => return Err(error(M, format!("expected a file name, got {}", other.type_name()))),
    };
    let mut flags = libc::O_RDWR | libc::O_CLOEXEC;
    if !no_block {
        flags |= libc::O_CREAT;
    }
    let fd = unsafe { libc::open(path.as_ptr(), flags, 0o600 as libc::c_uint) };
    if fd < 0 {
        let e = std::io::Error::last_os_error();
        return match e.raw_os_error() {
            Some(libc::ENOENT) | Some(libc::EACCES) => Ok(Value::Nil),
            _ => Err(error(
                M,
                format!("{}: {e}", std::ffi::OsStr::from_bytes(path.as_bytes()).display()),
            )),
        };
    }
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        let e = errno(M);
        unsafe { libc::close(fd) };
        return Err(e);
    }
    let key = (st.st_dev, st.st_ino, unsafe { libc::pthread_self() });
    if !no_block && held().as_ref().is_some_and(|set| set.contains(&key)) {
        unsafe { libc::close(fd) };
        return Err(error(
            M,
            format!(
                "this thread already holds the lock on {} (waiting for it would never end)",
                std::ffi::OsStr::from_bytes(path.as_bytes()).display()
            ),
        ));
    }
    let op = if no_block {
        libc::LOCK_EX | libc::LOCK_NB
    } else {
        libc::LOCK_EX
    };
    loop {
        if unsafe { libc::flock(fd, op) } == 0 {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        unsafe { libc::close(fd) };
        if no_block && e.raw_os_error() == Some(libc::EWOULDBLOCK) {
            return Ok(Value::Nil);
        }
        return Err(error(M, e));
    }
    held().get_or_insert_with(HashSet::new).insert(key);
    let lock = FileLock {
        fd,
        key,
        owner: std::process::id(),
    };
    Ok(Value::UserData(lua.create_userdata(lock)?))
}

pub fn register(lua: &Lua, ipc: &Table) -> Result<()> {
    ipc.set("getpid", lua.create_function(|_, ()| Ok(std::process::id() as i64))?)?;
    ipc.set(
        "getppid",
        lua.create_function(|_, ()| Ok(unsafe { libc::getppid() } as i64))?,
    )?;
    // pthread_self, as torch-ipc: an address, exact in a Lua number.
    ipc.set(
        "gettid",
        lua.create_function(|_, ()| Ok(unsafe { libc::pthread_self() } as i64))?,
    )?;
    ipc.set("fork", lua.create_function(fork)?)?;
    ipc.set("waitpid", lua.create_function(waitpid)?)?;
    ipc.set("isOSX", lua.create_function(|_, ()| Ok(cfg!(target_os = "macos")))?)?;
    ipc.set(
        "isDevel",
        lua.create_function(|_, ()| {
            let devel = std::env::var_os("CKOIA_DEVEL_MODE").is_some_and(|v| v.as_bytes().starts_with(b"1"));
            Ok(cfg!(target_os = "macos") || devel)
        })?,
    )?;
    ipc.set("flock", lua.create_function(flock)?)?;
    Ok(())
}
