//! Starting child processes: a local `th` (fork+exec of this binary, or the program the caller
//! names), or a remote one through `ssh`-like protocols. Either way the child reads how to reach
//! its parent from its stdin, which the parent then keeps open: when the parent goes, the pipe
//! closes and the child ends (for a remote child this is the only news it gets, see
//! `link::watch_stdin`). Local processes also die with the parent through PDEATHSIG.

use std::io::{Read, Write};
use std::os::fd::RawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};

/// Lua the child runs: `require 'parallel'` reads the bootstrap line and serves its parent.
pub const CHILD_CHUNK: &str = "require([[parallel]])._child()";

/// Keeps the last bytes a process wrote to stderr (for error messages), passing everything on.
pub type StderrTail = Arc<Mutex<Vec<u8>>>;
const TAIL_BYTES: usize = 4096;

pub struct Spec {
    /// Remote host, or None for a local child.
    pub host: Option<String>,
    /// Remote shell command (`ssh -Y` by default).
    pub protocol: Option<String>,
    /// Program to run (`th` found through PATH remotely; this binary locally).
    pub program: Option<String>,
    /// Seconds ssh may take to connect.
    pub connect_timeout: u32,
    /// The parent's `package.path` and `package.cpath`, which a local child takes before it
    /// requires `parallel`: a stock LuaJIT child finds our modules only where its parent did.
    pub search_paths: Option<(Vec<u8>, Vec<u8>)>,
    /// The Lua the child runs once started (`CHILD_CHUNK` for parallel's children; a cluster's
    /// engines run their own).
    pub chunk: &'static str,
}

pub struct Launched {
    pub process: Child,
    pub stdin: ChildStdin,
    pub stderr: Option<StderrTail>,
}

/// Quotes a word for a POSIX shell.
pub(crate) fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// Whether the protocol's program is ssh (we then add options that keep it from prompting or
/// waiting forever).
fn is_ssh(program: &str) -> bool {
    std::path::Path::new(program).file_name().is_some_and(|n| n == "ssh")
}

/// `s` as a Lua long string, its brackets long enough that nothing in `s` closes it.
pub(crate) fn long_string(s: &[u8]) -> Vec<u8> {
    let mut level = 0;
    while s
        .windows(level + 2)
        .any(|w| w[0] == b']' && w[level + 1] == b']' && w[1..=level].iter().all(|&c| c == b'='))
    {
        level += 1;
    }
    let eq = "=".repeat(level);
    // A newline right after the opening bracket would be dropped: a leading one gets its own.
    let lead = if s.first() == Some(&b'\n') { "\n" } else { "" };
    [format!("[{eq}[{lead}").as_bytes(), s, format!("]{eq}]").as_bytes()].concat()
}

/// What a local child runs: the parent's search paths, then `CHILD_CHUNK`.
fn local_chunk(spec: &Spec) -> Vec<u8> {
    let mut chunk = Vec::new();
    if let Some((path, cpath)) = &spec.search_paths {
        for (key, value) in [("path", path), ("cpath", cpath)] {
            chunk.extend_from_slice(format!("package.{key}=").as_bytes());
            chunk.extend_from_slice(&long_string(value));
            chunk.push(b' ');
        }
    }
    chunk.extend_from_slice(spec.chunk.as_bytes());
    chunk
}

fn command(spec: &Spec) -> Result<Command> {
    let Some(host) = &spec.host else {
        let program = match &spec.program {
            Some(p) => std::path::PathBuf::from(p),
            // The very binary this process runs, even if its file was replaced since.
            None if std::path::Path::new("/proc/self/exe").exists() => std::path::PathBuf::from("/proc/self/exe"),
            None => std::env::current_exe().map_err(|e| Error::io(format!("cannot find the th binary: {e}")))?,
        };
        let mut cmd = Command::new(program);
        cmd.arg("-e").arg(std::ffi::OsStr::from_bytes(&local_chunk(spec)));
        return Ok(cmd);
    };
    let protocol = spec.protocol.as_deref().unwrap_or("ssh -Y");
    let mut words = protocol.split_whitespace();
    let program = words.next().ok_or_else(|| Error::argument("the protocol is empty"))?;
    let mut cmd = Command::new(program);
    cmd.args(words);
    if is_ssh(program) {
        cmd.args(["-o", "BatchMode=yes", "-o"])
            .arg(format!("ConnectTimeout={}", spec.connect_timeout))
            .args(["-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3"]);
    }
    // The remote program goes to the remote shell as written (it may carry options), as in the
    // original.
    let remote_th = spec.program.as_deref().unwrap_or("th");
    cmd.arg(host)
        .arg(format!("exec {remote_th} -e {}", shell_quote(spec.chunk)));
    Ok(cmd)
}

/// The fields of /proc/PID/stat after the command's name (state first, then the parent's pid,
/// ...); None when there is no such process. The name is skipped by its last ')', since it may
/// hold spaces and parentheses.
pub fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// Makes the process `cmd` starts end with this one: SIGTERM when this process dies (SIGTERM,
/// not SIGKILL: a child removes its run's shared memory before it ends, see sweep.rs; srun
/// cancels its step), and a process group of its own, so that Ctrl-C at the terminal reaches only
/// this process (which takes its children along if it dies of it).
pub(crate) fn die_with_parent(cmd: &mut Command) {
    let parent = nix::unistd::getpid();
    // SAFETY: only async-signal-safe calls between fork and exec (prctl, getppid, setpgid).
    unsafe {
        cmd.pre_exec(move || {
            nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGTERM)?;
            // The parent may have died before prctl: then nobody would kill us.
            if nix::unistd::getppid() != parent {
                return Err(std::io::Error::other("parent gone"));
            }
            nix::unistd::setpgid(nix::unistd::Pid::from_raw(0), nix::unistd::Pid::from_raw(0))?;
            Ok(())
        });
    }
}

/// Starts the child and hands it the bootstrap line.
pub fn spawn(spec: &Spec, bootstrap_line: &str) -> Result<Launched> {
    spawn_with(spec, bootstrap_line, None)
}

/// `spawn`, the child also inheriting descriptor `keep` (close-on-exec here, so that no other
/// process this one starts, at the same time or later, gets it).
pub fn spawn_with(spec: &Spec, bootstrap_line: &str, keep: Option<RawFd>) -> Result<Launched> {
    let mut cmd = command(spec)?;
    cmd.stdin(Stdio::piped());
    if spec.host.is_some() {
        cmd.stderr(Stdio::piped());
    }
    die_with_parent(&mut cmd);
    if let Some(fd) = keep {
        // SAFETY: fcntl is async-signal-safe; it touches only the forked child's descriptor table.
        unsafe {
            cmd.pre_exec(move || {
                if libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let mut process = cmd.spawn().map_err(|e| {
        let what = cmd.get_program().to_string_lossy().into_owned();
        Error::io(format!("cannot start {what}: {e}"))
    })?;
    let mut stdin = process.stdin.take().ok_or_else(|| Error::io("no stdin pipe"))?;
    let stderr = process.stderr.take().map(|mut err| {
        let tail: StderrTail = Arc::default();
        let keep = tail.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let _ = std::io::stderr().write_all(&buf[..n]);
                let mut t = keep.lock().unwrap_or_else(|e| e.into_inner());
                t.extend_from_slice(&buf[..n]);
                let excess = t.len().saturating_sub(TAIL_BYTES);
                t.drain(..excess);
            }
        });
        tail
    });
    // A child that died at once closes the pipe; that shows up as its exit status later.
    let _ = stdin.write_all(bootstrap_line.as_bytes());
    let _ = stdin.flush();
    Ok(Launched { process, stdin, stderr })
}

/// What a finished process's status says, for error messages.
pub fn describe_status(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(s)) => {
            let name = nix::sys::signal::Signal::try_from(s).map(|s| s.as_str()).unwrap_or("?");
            format!("was killed by signal {s} ({name})")
        }
        _ => "ended".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_commands_quote_and_bound_ssh() {
        let spec = Spec {
            host: Some("node1".into()),
            protocol: Some("ssh -F /tmp/x y/ssh_config".into()),
            program: Some("/opt/th --flag".into()),
            connect_timeout: 7,
            search_paths: None,
            chunk: CHILD_CHUNK,
        };
        let cmd = command(&spec).unwrap();
        let args: Vec<String> = cmd.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(cmd.get_program(), "ssh");
        assert!(args.contains(&"ConnectTimeout=7".to_string()), "{args:?}");
        assert!(args.contains(&"BatchMode=yes".to_string()), "{args:?}");
        let last = args.last().unwrap();
        assert_eq!(
            last, "exec /opt/th --flag -e 'require([[parallel]])._child()'",
            "{args:?}"
        );
        let other = Spec {
            protocol: Some("rsh".into()),
            ..spec
        };
        let args: Vec<String> = command(&other)
            .unwrap()
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(args.len(), 2, "no ssh options for other protocols: {args:?}");
    }

    #[test]
    fn local_children_take_the_parents_search_paths() {
        let spec = Spec {
            host: None,
            protocol: None,
            program: Some("/usr/bin/luajit".into()),
            connect_timeout: 7,
            search_paths: Some((b"/t/?.lua;]]x".to_vec(), b"/t/?.so".to_vec())),
            chunk: CHILD_CHUNK,
        };
        let cmd = command(&spec).unwrap();
        let args: Vec<String> = cmd.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(cmd.get_program(), "/usr/bin/luajit");
        assert_eq!(
            args,
            [
                "-e",
                "package.path=[=[/t/?.lua;]]x]=] package.cpath=[[/t/?.so]] require([[parallel]])._child()"
            ]
        );
        assert_eq!(long_string(b"a]=]b]]"), b"[==[a]=]b]]]==]");
        assert_eq!(long_string(b"\nx"), b"[[\n\nx]]");
    }
}
