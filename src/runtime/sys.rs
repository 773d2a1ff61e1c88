//! The native half of `sys`: clocks, sleeping, terminals. `lua/sys/init.lua` builds the API.

use std::time::Duration;

use mlua::{Lua, Result, Table, Value};

use crate::calls;

/// Wall-clock time in seconds since the epoch (gettimeofday, as Torch's sys.clock).
pub fn clock() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64()
}

fn number_arg(fname: &str, pos: usize, v: &Value) -> Result<f64> {
    match v {
        Value::Integer(i) => Ok(*i as f64),
        Value::Number(n) => Ok(*n),
        Value::String(s) => s
            .to_str()
            .ok()
            .and_then(|s| s.trim().parse::<f64>().ok())
            .ok_or_else(|| mlua::Error::runtime(format!("{fname}: bad argument #{pos} (number expected, got string)"))),
        other => Err(mlua::Error::runtime(format!(
            "{fname}: bad argument #{pos} (number expected, got {})",
            other.type_name()
        ))),
    }
}

/// Sleeps `secs` seconds; negative, NaN or absurd durations sleep not at all or as long as allowed.
fn sleep_secs(secs: f64) {
    if secs.is_nan() || secs <= 0.0 {
        return;
    }
    let d = Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX);
    std::thread::sleep(d);
}

/// Columns of the terminal on `fd`, or nil when it is not a terminal.
fn term_width(fd: i32) -> Option<u16> {
    // SAFETY: winsize is plain data that TIOCGWINSZ fills in; a bad fd makes ioctl fail, not crash.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) };
    (r == 0 && ws.ws_col > 0).then_some(ws.ws_col)
}

fn fd_arg(fname: &str, v: Option<Value>) -> Result<i32> {
    match v {
        None | Some(Value::Nil) => Ok(1),
        Some(v) => {
            let n = number_arg(fname, 1, &v)?;
            if n.fract() != 0.0 || !(0.0..=i32::MAX as f64).contains(&n) {
                return Err(mlua::Error::runtime(format!(
                    "{fname}: bad argument #1 (file descriptor expected)"
                )));
            }
            Ok(n as i32)
        }
    }
}

pub fn open(lua: &Lua) -> Result<Table> {
    let t = lua.create_table()?;
    calls::add(lua, &t, "clock", sys_clock)?;
    calls::add(lua, &t, "usleep", sys_usleep)?;
    calls::add(lua, &t, "sleep", sys_sleep)?;
    calls::add(lua, &t, "isatty", sys_isatty)?;
    calls::add(lua, &t, "termwidth", sys_termwidth)?;
    calls::add(lua, &t, "prefix", sys_prefix)?;
    Ok(t)
}

// The Lua functions are named sys_<name>: `clock` is the Rust one above.

/// `sys.clock() -> seconds`
fn sys_clock(_: &Lua, (): ()) -> Result<f64> {
    Ok(clock())
}

/// `sys.usleep([usec])`: sleeps `usec` microseconds (1 without).
fn sys_usleep(_: &Lua, usec: Option<Value>) -> Result<()> {
    let usec = match usec {
        None | Some(Value::Nil) => 1.0,
        Some(v) => number_arg("sys.usleep", 1, &v)?,
    };
    sleep_secs(usec / 1e6);
    Ok(())
}

/// `sys.sleep(secs)`
fn sys_sleep(_: &Lua, secs: Value) -> Result<()> {
    let secs = number_arg("sys.sleep", 1, &secs)?;
    sleep_secs(secs);
    Ok(())
}

/// `sys.isatty([fd]) -> bool` (fd 1 without one)
fn sys_isatty(_: &Lua, fd: Option<Value>) -> Result<bool> {
    let fd = fd_arg("sys.isatty", fd)?;
    // SAFETY: isatty only inspects the descriptor.
    Ok(unsafe { libc::isatty(fd) } == 1)
}

/// `sys.termwidth([fd]) -> columns | nil` (fd 1 without one)
fn sys_termwidth(_: &Lua, fd: Option<Value>) -> Result<Option<u16>> {
    Ok(term_width(fd_arg("sys.termwidth", fd)?))
}

/// `sys.prefix() -> dir | nil`: the install prefix, `<prefix>/bin/th`'s `<prefix>`.
fn sys_prefix(lua: &Lua, (): ()) -> Result<Value> {
    let dir = super::paths::execdir().and_then(|d| d.parent().map(|p| p.to_path_buf()));
    match dir {
        Some(d) => {
            use std::os::unix::ffi::OsStrExt;
            Ok(Value::String(lua.create_string(d.as_os_str().as_bytes())?))
        }
        None => Ok(Value::Nil),
    }
}
