//! `ipc.spawn`: a child program with pipes to its stdin and stdout (torch-ipc's `ipc.spawn`,
//! as its README describes it).
//!
//! `ipc.spawn{file=, args=, env=}` starts `file` (looked up in this process's `PATH` unless it holds
//! a `/`) with `argv[0] = file` followed by the args (strings, or numbers as Lua prints them). A
//! non-empty `env` list of `"NAME=value"` strings replaces the environment; without one the child
//! inherits ours. stdin and stdout are pipes, stderr is inherited. As with `posix_spawnp`, the
//! search uses this process's `PATH` even when `env` gives the child another one. Unlike torch-ipc,
//! an args or env item that is not a string or number, or an env item without `NAME=`, raises
//! instead of cutting the list short or passing a malformed entry.
//!
//! Methods: `stdin(str)` writes, `stdin()` closes; `stdout('*l' | '*a' | n)` reads a line, all, or
//! one read of up to n bytes, returning nothing at end of file; `stdoutFileId()`, `pid()`,
//! `running()` (does not reap); `wait(['TERM'|'KILL'])` signals, closes stdin, drains stdout (or
//! closes it after a signal), reaps and returns the exit code, 0 for a child ended by a signal.
//! After `wait` every method raises "spawn was already closed".
//!
//! Lines are read a byte at a time, as torch-ipc did, so no output sits in a hidden buffer: what
//! `poll` on `stdoutFileId()` reports is exactly what `stdout` will return.
//!
//! Collecting a handle that was never waited sends SIGTERM, closes both pipes and reaps the child;
//! unlike torch-ipc, a child still alive after [`TERM_GRACE`] gets SIGKILL, so the collector never
//! stalls on a program that ignores SIGTERM. A process made by `ipc.fork` does not own its parent's
//! children: collecting a copied handle there only closes the copied pipes.
//!
//! `os.exit` ends the process without collecting anything, so the children still running then
//! would outlive it; an exit handler gives each of them the same SIGTERM (then SIGKILL) and reaps
//! it. torch-ipc left them running.

use std::ffi::{OsStr, OsString};
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, MutexGuard, Once};
use std::time::{Duration, Instant};

use mlua::{Lua, Result, Table, UserData, UserDataMethods, Value, Variadic};

use crate::args::error;

/// How long a collected child has to exit after SIGTERM before it gets SIGKILL.
pub const TERM_GRACE: Duration = Duration::from_secs(3);

/// Largest single read `stdout(n)` asks for: a pipe never returns more at once anyway.
const MAX_READ: usize = 1 << 20;

const GC_MESSAGE: &str = "ipc.spawn being garbage collected before wait was called, sending SIGTERM to child process";

/// Children not reaped yet, with the process that started each (a forked copy inherits the list).
static LIVE: Mutex<Vec<(u32, libc::pid_t)>> = Mutex::new(Vec::new());
static AT_EXIT: Once = Once::new();

fn live() -> MutexGuard<'static, Vec<(u32, libc::pid_t)>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Removes the oldest entry for `pid` (a newer child may already have been given the same pid).
fn forget(pid: u32) {
    let mut live = live();
    if let Some(at) = live.iter().position(|&(_, p)| p == pid as libc::pid_t) {
        live.remove(at);
    }
}

/// SIGTERM, then SIGKILL after TERM_GRACE, to the children this process still has at exit.
extern "C" fn end_children_at_exit() {
    let me = std::process::id();
    let mut pids: Vec<libc::pid_t> = std::mem::take(&mut *live())
        .into_iter()
        .filter_map(|(owner, pid)| (owner == me).then_some(pid))
        .collect();
    for &pid in &pids {
        let _ = writeln!(std::io::stderr(), "{GC_MESSAGE}");
        unsafe { libc::kill(pid, libc::SIGTERM) };
    }
    let reaped = |pid: libc::pid_t| {
        let mut status = 0;
        unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) != 0 }
    };
    let deadline = Instant::now() + TERM_GRACE;
    let mut pause = Duration::from_millis(1);
    while !pids.is_empty() && Instant::now() < deadline {
        pids.retain(|&pid| !reaped(pid));
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
    for pid in pids {
        let mut status = 0;
        unsafe {
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, &mut status, 0);
        }
    }
}

struct Running {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
}

/// The userdata behind `ipc.spawn`; `run` is `None` once `wait` reaped the child.
struct Spawn {
    run: Option<Running>,
    /// The process that started the child (a forked copy must not signal or reap it).
    owner: u32,
}

const CLOSED: &str = "spawn was already closed";

impl Spawn {
    fn running(&mut self, method: &str) -> Result<&mut Running> {
        self.run.as_mut().ok_or_else(|| error(method, CLOSED))
    }
}

fn os_error(method: &str, e: std::io::Error) -> mlua::Error {
    error(method, e)
}

/// `read` that retries when a signal interrupts it.
fn read_some(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match r.read(buf) {
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

fn signal_child(child: &Child, sig: libc::c_int) -> std::io::Result<()> {
    // The child is not reaped before `wait` or drop, so its pid cannot have been reused.
    if unsafe { libc::kill(child.id() as libc::pid_t, sig) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The exit code torch-ipc reports: WEXITSTATUS, so 0 for a child ended by a signal.
fn exit_code(status: std::process::ExitStatus) -> i64 {
    status.code().map(i64::from).unwrap_or(0)
}

impl UserData for Spawn {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method_mut("stdin", |lua, this, args: Variadic<Value>| {
            const M: &str = "ipc.spawn:stdin";
            let run = this.running(M)?;
            if args.is_empty() {
                // Closing twice is harmless.
                run.stdin = None;
                return Ok(());
            }
            let data = match lua.coerce_string(args[0].clone())? {
                Some(s) => s,
                None => {
                    return Err(error(
                        M,
                        format!("expected a string to write, got {}", args[0].type_name()),
                    ));
                }
            };
            let pipe = run.stdin.as_mut().ok_or_else(|| error(M, "stdin was already closed"))?;
            pipe.write_all(&data.as_bytes()).map_err(|e| os_error(M, e))
        });

        methods.add_method_mut("stdout", |lua, this, what: Value| {
            const M: &str = "ipc.spawn:stdout";
            let run = this.running(M)?;
            let pipe = run
                .stdout
                .as_mut()
                .ok_or_else(|| error(M, "stdout was already closed"))?;
            let mut out = Variadic::new();
            match &what {
                Value::Integer(_) | Value::Number(_) => {
                    let n = crate::args::number(&what).unwrap_or(f64::NAN);
                    if n.is_nan() || n < 1.0 {
                        return Err(error(M, format!("expected a positive number of bytes, got {n}")));
                    }
                    let mut buf = vec![0u8; (n as usize).min(MAX_READ)];
                    let got = read_some(pipe, &mut buf).map_err(|e| os_error(M, e))?;
                    if got > 0 {
                        out.push(lua.create_string(&buf[..got])?);
                    }
                }
                Value::Nil | Value::String(_) => {
                    let line = match &what {
                        Value::String(s) => s.as_bytes().starts_with(b"*l"),
                        _ => true,
                    };
                    let mut data = Vec::new();
                    if line {
                        let mut byte = [0u8; 1];
                        loop {
                            if read_some(pipe, &mut byte).map_err(|e| os_error(M, e))? == 0 {
                                break;
                            }
                            if byte[0] == b'\n' {
                                // An empty line is still a line.
                                out.push(lua.create_string(&data)?);
                                return Ok(out);
                            }
                            data.push(byte[0]);
                        }
                    } else {
                        loop {
                            match pipe.read_to_end(&mut data) {
                                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                                Err(e) => return Err(os_error(M, e)),
                                Ok(_) => break,
                            }
                        }
                    }
                    if !data.is_empty() {
                        out.push(lua.create_string(&data)?);
                    }
                }
                other => {
                    return Err(error(
                        M,
                        format!("expected '*l', '*a' or a number of bytes, got {}", other.type_name()),
                    ));
                }
            }
            Ok(out)
        });

        methods.add_method_mut("stdoutFileId", |_, this, ()| {
            const M: &str = "ipc.spawn:stdoutFileId";
            let run = this.running(M)?;
            let pipe = run
                .stdout
                .as_ref()
                .ok_or_else(|| error(M, "stdout was already closed"))?;
            Ok(pipe.as_raw_fd() as i64)
        });

        methods.add_method_mut(
            "pid",
            |_, this, ()| Ok(this.running("ipc.spawn:pid")?.child.id() as i64),
        );

        methods.add_method_mut("running", |_, this, ()| {
            const M: &str = "ipc.spawn:running";
            let run = this.running(M)?;
            // WNOWAIT leaves an exited child a zombie, so `wait` still reaps it and its pid stays ours.
            let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
            let rc = unsafe {
                libc::waitid(
                    libc::P_PID,
                    run.child.id() as libc::id_t,
                    &mut info,
                    libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
                )
            };
            if rc != 0 {
                return Err(os_error(M, std::io::Error::last_os_error()));
            }
            Ok(unsafe { info.si_pid() } == 0)
        });

        methods.add_method_mut("wait", |_, this, sig: Value| {
            const M: &str = "ipc.spawn:wait";
            let signal = match &sig {
                Value::Nil => None,
                Value::String(s) if &*s.as_bytes() == b"KILL" => Some(libc::SIGKILL),
                Value::String(s) if &*s.as_bytes() == b"TERM" => Some(libc::SIGTERM),
                Value::String(s) => {
                    return Err(error(
                        M,
                        format!("unknown signal '{}' (expected 'TERM' or 'KILL')", s.display()),
                    ));
                }
                other => {
                    return Err(error(
                        M,
                        format!("unknown signal (expected 'TERM' or 'KILL', got {})", other.type_name()),
                    ));
                }
            };
            let run = this.running(M)?;
            if let Some(sig) = signal {
                signal_child(&run.child, sig).map_err(|e| os_error(M, e))?;
            }
            run.stdin = None;
            if signal.is_some() {
                run.stdout = None;
            } else if let Some(mut pipe) = run.stdout.take() {
                // Read what is left so that a child blocked writing to us can finish.
                let mut sink = [0u8; 8192];
                while read_some(&mut pipe, &mut sink).map_err(|e| os_error(M, e))? > 0 {}
            }
            let status = run.child.wait().map_err(|e| os_error(M, e))?;
            forget(run.child.id());
            this.run = None;
            Ok(exit_code(status))
        });
    }
}

impl Drop for Spawn {
    fn drop(&mut self) {
        let Some(mut run) = self.run.take() else { return };
        // Closing our pipe ends first lets a child blocked on them see EOF or EPIPE.
        run.stdin = None;
        run.stdout = None;
        if std::process::id() != self.owner {
            return;
        }
        forget(run.child.id());
        if let Ok(Some(_)) = run.child.try_wait() {
            return;
        }
        let _ = writeln!(std::io::stderr(), "{GC_MESSAGE}");
        let _ = signal_child(&run.child, libc::SIGTERM);
        let deadline = Instant::now() + TERM_GRACE;
        let mut pause = Duration::from_millis(1);
        while Instant::now() < deadline {
            match run.child.try_wait() {
                Ok(Some(_)) | Err(_) => return,
                Ok(None) => {}
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(50));
        }
        let _ = run.child.kill();
        let _ = run.child.wait();
    }
}

/// `file` as `posix_spawnp` would find it through this process's PATH (used when the child gets
/// its own environment, which `Command` would otherwise search instead). `None`: not found there.
fn search_path(file: &OsStr) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find_map(|dir| {
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        let candidate = dir.join(file);
        let meta = std::fs::metadata(&candidate).ok()?;
        (meta.is_file() && meta.permissions().mode() & 0o111 != 0).then_some(candidate)
    })
}

/// The strings of a Lua list (numbers converted as Lua prints them).
fn string_list(lua: &Lua, t: &Table, field: &str) -> Result<Vec<OsString>> {
    (1..=t.raw_len())
        .map(|i| {
            let v: Value = t.raw_get(i)?;
            let type_name = v.type_name();
            match v {
                Value::String(_) | Value::Integer(_) | Value::Number(_) => {
                    let s = lua.coerce_string(v)?.expect("strings and numbers convert");
                    Ok(OsStr::from_bytes(&s.as_bytes()).to_os_string())
                }
                _ => Err(error(
                    "ipc.spawn",
                    format!("{field}[{i}]: expected a string or a number, got {type_name}"),
                )),
            }
        })
        .collect()
}

/// `ipc.spawn{file=, args=, env=} -> spawn`
fn spawn(lua: &Lua, args: Variadic<Value>) -> Result<mlua::AnyUserData> {
    const M: &str = "ipc.spawn";
    let opt = match args.as_slice() {
        [Value::Table(t)] => t.clone(),
        _ => return Err(error(M, "expected a single table argument")),
    };
    let file = match opt.get::<Value>("file")? {
        Value::String(s) => OsStr::from_bytes(&s.as_bytes()).to_os_string(),
        other => return Err(error(M, format!("file: expected a string, got {}", other.type_name()))),
    };
    let argv = match opt.get::<Value>("args")? {
        Value::Nil => Vec::new(),
        Value::Table(t) => string_list(lua, &t, "args")?,
        other => {
            return Err(error(
                M,
                format!("args: expected a table, or nil, got {}", other.type_name()),
            ));
        }
    };
    let env = match opt.get::<Value>("env")? {
        Value::Nil => Vec::new(),
        Value::Table(t) => string_list(lua, &t, "env")?,
        other => {
            return Err(error(
                M,
                format!("env: expected a table, or nil, got {}", other.type_name()),
            ));
        }
    };

    let by_path = !file.as_bytes().contains(&b'/');
    // An empty env list inherits this process's environment, as in torch-ipc.
    let program = match (env.is_empty(), by_path) {
        (false, true) => search_path(&file)
            .map(PathBuf::into_os_string)
            .unwrap_or_else(|| file.clone()),
        _ => file.clone(),
    };
    let mut cmd = Command::new(&program);
    cmd.arg0(&file)
        .args(&argv)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if !env.is_empty() {
        cmd.env_clear();
        for entry in &env {
            let bytes = entry.as_bytes();
            let eq = bytes
                .iter()
                .position(|&b| b == b'=')
                .filter(|&at| at > 0)
                .ok_or_else(|| {
                    error(
                        M,
                        format!(
                            "env: expected \"NAME=value\" strings, got {:?}",
                            entry.to_string_lossy()
                        ),
                    )
                })?;
            cmd.env(OsStr::from_bytes(&bytes[..eq]), OsStr::from_bytes(&bytes[eq + 1..]));
        }
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| error(M, format!("cannot start '{}': {e}", file.to_string_lossy())))?;
    AT_EXIT.call_once(|| unsafe {
        libc::atexit(end_children_at_exit);
    });
    live().push((std::process::id(), child.id() as libc::pid_t));
    let run = Running {
        stdin: child.stdin.take(),
        stdout: child.stdout.take(),
        child,
    };
    lua.create_userdata(Spawn {
        run: Some(run),
        owner: std::process::id(),
    })
}

pub fn register(lua: &Lua, ipc: &Table) -> Result<()> {
    crate::calls::add(lua, ipc, "spawn", spawn)
}
