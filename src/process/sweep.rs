//! Removing a run's shared-memory segments however the run ends.
//!
//! A segment is named `luatorch-<run>-<sender pid>-<n>-<nonce>`, and a run is `<hex>_<top pid>`,
//! the top being the process that made the run (its children and theirs share it). Who removes
//! what:
//! - a normal exit of the top: its exit handler removes the whole run (`sweep_on_exit`);
//! - SIGTERM, SIGINT or SIGHUP to the top: the same, from the signal handler, which then lets the
//!   signal end the process as it would have;
//! - a child whose process ended: its parent, once it has read what the child sent
//!   (`shm::forget_sender`, from the hub);
//! - the top killed by SIGKILL: its children get SIGTERM (PDEATHSIG), or see their stdin close,
//!   and the first of them to find the top gone removes the whole run; one whose own parent (not
//!   the top) is gone removes its own segments, which nobody else would;
//! - everything killed at once (the OOM killer): the next run that starts removes segments whose
//!   sender and top are both gone (`sweep_stale`).
//!
//! The signal-time work uses only async-signal-safe system calls (open, getdents64, unlinkat,
//! kill, read), on names prepared before the handler was installed.

use std::ffi::CString;
use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicPtr, Ordering};

pub(super) const DIR: &str = "/dev/shm";
pub(crate) const PREFIX: &str = "luatorch-";

/// The path of segment `name`, which must look like one of ours (no directory, no surprises).
pub(super) fn path_of(name: &str) -> io::Result<CString> {
    let valid = name.starts_with(PREFIX)
        && name.len() < 200
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !valid {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a segment name"));
    }
    CString::new(format!("{DIR}/{name}")).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "bad name"))
}

/// Removes a segment name.
pub fn unlink(name: &str) -> io::Result<()> {
    let path = path_of(name)?;
    // SAFETY: unlink of a path we validated.
    if unsafe { libc::unlink(path.as_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A new run's name: random, with this process as its top.
pub fn new_run(random_hex: &str) -> String {
    format!("{random_hex}_{}", std::process::id())
}

/// The top process of `run`, when the name says.
fn top_of(run: &str) -> Option<i32> {
    run.rsplit_once('_')?.1.parse().ok().filter(|p| *p > 0)
}

/// `(run, sender pid)` of a segment name made by `shm::Pool::export`.
fn parse(name: &str) -> Option<(&str, i32)> {
    let rest = name.strip_prefix(PREFIX)?;
    let mut parts = rest.split('-');
    let run = parts.next()?;
    let pid = parts.next()?.parse().ok().filter(|p| *p > 0)?;
    Some((run, pid))
}

/// Removes every segment whose name starts with `prefix` (a full `luatorch-...` prefix).
pub fn sweep(prefix: &str) {
    if let Ok(dir) = std::fs::read_dir(DIR) {
        for entry in dir.flatten() {
            if let Some(name) = entry.file_name().to_str()
                && name.starts_with(prefix)
            {
                let _ = unlink(name);
            }
        }
    }
}

/// Removes every segment of `run`.
pub fn sweep_run(run: &str) {
    sweep(&format!("{PREFIX}{run}-"));
}

/// Whether process `pid` has ended: gone, or a zombie nobody has reaped yet (a killed top stays
/// one until its own parent waits for it). Async-signal-safe.
fn process_gone(pid: i32) -> bool {
    // SAFETY: kill with signal 0 only checks.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
    }
    // "/proc/<pid>/stat" built without allocating.
    let mut path = [0u8; 32];
    let mut n = 0;
    for &b in b"/proc/" {
        path[n] = b;
        n += 1;
    }
    let mut digits = [0u8; 12];
    let (mut d, mut v) = (0, pid as u32);
    loop {
        digits[d] = b'0' + (v % 10) as u8;
        d += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    while d > 0 {
        d -= 1;
        path[n] = digits[d];
        n += 1;
    }
    for &b in b"/stat" {
        path[n] = b;
        n += 1;
    }
    // SAFETY: a NUL-terminated path in a local buffer; read into a local buffer.
    let fd = unsafe { libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return true;
    }
    let mut buf = [0u8; 512];
    let len = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    unsafe { libc::close(fd) };
    if len <= 0 {
        return true;
    }
    // The state follows the last ')' (the command name may hold anything).
    let stat = &buf[..len as usize];
    match stat.iter().rposition(|&b| b == b')') {
        Some(i) => matches!(stat.get(i + 2), Some(b'Z' | b'X')),
        None => false,
    }
}

/// Removes segments left by runs that are over: sender and top both ended. Run when a run
/// starts, for what a run killed all at once (SIGKILL to every process) could not remove.
pub fn sweep_stale() {
    let Ok(dir) = std::fs::read_dir(DIR) else { return };
    for entry in dir.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let Some((run, sender)) = parse(&name) else { continue };
        let Some(top) = top_of(run) else { continue };
        if process_gone(sender) && process_gone(top) {
            let _ = unlink(&name);
        }
    }
}

/// The run whose segments this process sweeps when it exits (set in the top process of a run).
static SWEEP_AT_EXIT: Mutex<Option<String>> = Mutex::new(None);

extern "C" fn sweep_at_exit() {
    if let Ok(guard) = SWEEP_AT_EXIT.lock()
        && let Some(run) = guard.as_deref()
    {
        sweep_run(run);
    }
}

/// Makes this process, the top of `run`, remove the run's segments when it exits or is ended by
/// a signal; first removes what ended runs left behind.
pub fn sweep_on_exit(run: &str) {
    sweep_stale();
    let mut guard = SWEEP_AT_EXIT.lock().unwrap_or_else(|e| e.into_inner());
    if guard.is_none() {
        // SAFETY: registers a plain extern "C" function.
        unsafe { libc::atexit(sweep_at_exit) };
    }
    *guard = Some(run.to_string());
    drop(guard);
    arm(Role {
        run_prefix: prefix_of(run),
        own_prefix: CString::default(),
        top: 0,
        parent: 0,
    });
}

/// What this process removes when it is ended: the whole run (`top` 0: this is the top; else
/// when the top is gone), or only its own segments (when its parent is gone).
struct Role {
    run_prefix: CString,
    own_prefix: CString,
    top: i32,
    parent: i32,
}

fn prefix_of(run: &str) -> CString {
    CString::new(format!("{PREFIX}{run}-")).unwrap_or_default()
}

/// The role, read by the signal handler (a leaked box, swapped whole, never freed: a process has
/// one or two in its life).
static ROLE: AtomicPtr<Role> = AtomicPtr::new(std::ptr::null_mut());

/// Makes this process, a child on this machine in `run`, remove segments when it is ended.
pub fn sweep_as_child(run: &str) {
    let Some(top) = top_of(run) else { return };
    // SAFETY: getppid cannot fail.
    let parent = unsafe { libc::getppid() };
    arm(Role {
        run_prefix: prefix_of(run),
        own_prefix: CString::new(format!("{PREFIX}{run}-{}-", std::process::id())).unwrap_or_default(),
        top,
        parent,
    });
}

/// The signals that end a process and can be caught.
const ENDING: [libc::c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

fn arm(role: Role) {
    let new = Box::into_raw(Box::new(role));
    let old = ROLE.swap(new, Ordering::SeqCst);
    if !old.is_null() {
        // Never freed: a handler may be reading it.
        return;
    }
    // The REPL's third Ctrl-C ends the process from its handler: the run's segments go first.
    crate::interrupt::on_quit(sweep_now);
    for &sig in ENDING.iter() {
        // SAFETY: reads the current action; installs ours only over the default one (a signal
        // the user ignores, as under nohup, stays ignored).
        unsafe {
            let mut current: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut current) != 0 || current.sa_sigaction != libc::SIG_DFL {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_ending_signal as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut action.sa_mask);
            action.sa_flags = libc::SA_RESTART;
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
    }
}

extern "C" fn on_ending_signal(sig: libc::c_int) {
    sweep_now();
    // SAFETY: the default action, then the signal again: the process ends as it would have
    // without us (the signal is blocked until the handler returns).
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// What the role says to remove, now. Async-signal-safe: for signal handlers and for a process
/// about to `_exit` because its parent is gone.
pub fn sweep_now() {
    let role = ROLE.load(Ordering::SeqCst);
    if role.is_null() {
        return;
    }
    // SAFETY: a leaked box, never freed.
    let role = unsafe { &*role };
    // SAFETY: getppid cannot fail.
    let orphaned = unsafe { libc::getppid() } != role.parent;
    // A child of the top learns of its death (PDEATHSIG, reparenting) while the top may still
    // be exiting, before /proc shows it as a zombie: its parent having changed says enough.
    if role.top == 0 || (orphaned && role.parent == role.top) || process_gone(role.top) {
        sweep_signal_safe(role.run_prefix.as_bytes());
    } else if orphaned {
        sweep_signal_safe(role.own_prefix.as_bytes());
    }
}

/// For a child whose stdin reached its end: the parent closed it, or died. A dying parent's files
/// close before the kernel reparents its children, so wait (up to a second) for the parent to be
/// gone before `sweep_now` judges; a parent that closed us on purpose kills us meanwhile.
pub fn sweep_after_stdin_closed() {
    let role = ROLE.load(Ordering::SeqCst);
    if role.is_null() {
        return;
    }
    // SAFETY: a leaked box, never freed.
    let parent = unsafe { &*role }.parent;
    for _ in 0..100 {
        // SAFETY: getppid cannot fail.
        if parent == 0 || unsafe { libc::getppid() } != parent {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    sweep_now();
}

/// Removes the segments whose names start with `prefix`, reading the directory with getdents64
/// (readdir may allocate). Names removed while the directory is read may make it skip others, so
/// it reads again until a pass removes nothing.
fn sweep_signal_safe(prefix: &[u8]) {
    if prefix.is_empty() {
        return;
    }
    // SAFETY: plain system calls on a local buffer; entries are parsed within the bytes returned.
    unsafe {
        let fd = libc::open(
            c"/dev/shm".as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return;
        }
        for _pass in 0..8 {
            libc::lseek(fd, 0, libc::SEEK_SET);
            let mut removed = false;
            let mut buf = [0u8; 8192];
            loop {
                let n = libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len());
                if n <= 0 {
                    break;
                }
                let mut off = 0usize;
                while off + 19 < n as usize {
                    let reclen = u16::from_ne_bytes([buf[off + 16], buf[off + 17]]) as usize;
                    if reclen == 0 {
                        break;
                    }
                    let name = &buf[off + 19..(off + reclen).min(n as usize)];
                    let len = name.iter().position(|&b| b == 0).unwrap_or(name.len());
                    if name[..len].starts_with(prefix) && len < name.len() {
                        libc::unlinkat(fd, name.as_ptr().cast(), 0);
                        removed = true;
                    }
                    off += reclen;
                }
            }
            if !removed {
                break;
            }
        }
        libc::close(fd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_runs_parse() {
        assert_eq!(top_of("0123456789ab_4242"), Some(4242));
        assert_eq!(top_of("testpool"), None);
        assert_eq!(parse("luatorch-ab_12-345-6-cafe"), Some(("ab_12", 345)));
        assert_eq!(parse("luatorch-ab_12-x-6-cafe"), None);
        assert_eq!(parse("other-ab_12-345-6-cafe"), None);
    }

    #[test]
    fn liveness() {
        assert!(!process_gone(std::process::id() as i32));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id() as i32;
        // A zombie until waited: already gone for us.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !process_gone(pid) {
            assert!(std::time::Instant::now() < deadline, "true did not end");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        child.wait().unwrap();
        assert!(process_gone(pid));
    }

    #[test]
    fn the_signal_safe_sweep_removes_only_its_prefix() {
        let run = format!("sweeptest{}", std::process::id());
        let mine = format!("{PREFIX}{run}-1-0-a");
        let other = format!("{PREFIX}{run}x-1-0-a");
        for n in [&mine, &other] {
            std::fs::write(format!("{DIR}/{n}"), b"x").unwrap();
        }
        sweep_signal_safe(prefix_of(&run).as_bytes());
        assert!(std::fs::metadata(format!("{DIR}/{mine}")).is_err());
        assert!(std::fs::metadata(format!("{DIR}/{other}")).is_ok());
        let _ = std::fs::remove_file(format!("{DIR}/{other}"));
    }
}
