//! `ipc.flock(path, noBlock)` (torch-ipc's): takes `flock(LOCK_EX)` on `path`
//! (created, mode 0600, unless `noBlock`), returning nil when the file is missing or not
//! accessible, or, with `noBlock`, when another holder has it. A blocking request for a file the
//! calling thread already holds raises instead of deadlocking, since a second open of the same
//! file conflicts with the first.

use std::collections::HashSet;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::sync::Mutex;

use mlua::{Lua, Result, Table, UserData, UserDataMethods, Value};

use crate::args::error;

fn errno(method: &str) -> mlua::Error {
    error(method, std::io::Error::last_os_error())
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

/// `ipc.flock(path, [noBlock]) -> lock | nil`
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
    crate::calls::add(lua, ipc, "flock", flock)
}
