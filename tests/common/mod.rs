//! Helpers shared by the integration tests: run the real `th` with a time limit.
#![allow(dead_code)]

pub mod slurm;
pub mod sshd;
pub mod stranger;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Every `th` a test runs is killed after this long; a hang fails the test instead of blocking CI.
pub const TIMEOUT: Duration = Duration::from_secs(60);

pub fn th_path() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_th"))
}

/// The directory of the Lua scripts the tests run.
pub fn lua_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("lua")
}

pub struct Output {
    pub status: Option<i32>,
    /// Standard output with the tab that trepl's `print` writes after the last plain value of a
    /// line taken off (`print('ok')` writes "ok\t\n"), so that a test states what was printed;
    /// `raw_stdout` keeps the bytes, for the tests of `print`'s own layout.
    pub stdout: String,
    pub raw_stdout: String,
    pub stderr: String,
}

/// A line read as it comes from `th`'s stdout, without the tab `print` ends it with (see
/// `Output::stdout`).
pub fn printed_line(line: String) -> String {
    match line.strip_suffix('\t') {
        Some(s) => s.to_owned(),
        None => line,
    }
}

/// `stdout` without the tab before each end of line (see `Output::stdout`).
pub fn without_print_tabs(raw: &str) -> String {
    let s = raw.replace("\t\n", "\n");
    s.strip_suffix('\t').map(str::to_owned).unwrap_or(s)
}

impl Output {
    /// Panics with both streams shown unless `th` exited 0.
    pub fn assert_ok(&self) -> &Self {
        assert_eq!(
            self.status,
            Some(0),
            "th failed\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout,
            self.stderr
        );
        self
    }
}

/// A fresh, empty directory under the target dir for one test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `cmd` with `stdin` fed in, killing it after `timeout`; also says whether it was killed.
fn run_with_input(cmd: &mut Command, stdin: &str, timeout: Duration) -> (Output, bool) {
    run_killing(cmd, stdin, timeout, |child| {
        let _ = child.kill();
    })
}

/// `run_with_input`, where `kill` ends the command once `timeout` has passed.
fn run_killing(
    cmd: &mut Command,
    stdin: &str,
    timeout: Duration,
    kill: impl Fn(&mut std::process::Child),
) -> (Output, bool) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {cmd:?}: {e}"));
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_string();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(stdin.as_bytes());
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let deadline = Instant::now() + timeout;
    let (status, timed_out) = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break (status.code(), false);
        }
        if Instant::now() > deadline {
            kill(&mut child);
            let _ = child.wait();
            break (None, true);
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = writer.join();
    let raw_stdout = String::from_utf8_lossy(&out_reader.join().unwrap()).into_owned();
    let out = Output {
        status,
        stdout: without_print_tabs(&raw_stdout),
        raw_stdout,
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned(),
    };
    (out, timed_out)
}

/// Runs a command with an empty stdin, killing it after `timeout` (status None then).
pub fn run_cmd(cmd: &mut Command, timeout: Duration) -> Output {
    run_with_input(cmd, "", timeout).0
}

/// `run_cmd` for a command that starts others (a build): it runs in a process group of its own,
/// and the whole group is killed after `timeout`.
pub fn run_cmd_group(cmd: &mut Command, timeout: Duration) -> Output {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
    run_killing(cmd, "", timeout, |child| {
        let group = nix::unistd::Pid::from_raw(child.id() as i32);
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
    })
    .0
}

/// Runs `th args` in `cwd` with `stdin` fed in, extra environment `env`, waiting at most TIMEOUT.
/// Runs tests/lua/`dir`/`script` (by its full path, from that folder) with `args`, and fails
/// unless it exits 0 with `last_line` as the last line it printed: the scripts that assert their
/// behaviour themselves.
pub fn assert_lua_script(dir: &str, script: &str, args: &[&str], last_line: &str) {
    let folder = lua_dir().join(dir);
    let path = folder.join(script).to_string_lossy().into_owned();
    let mut argv = vec![path.as_str()];
    argv.extend_from_slice(args);
    let out = run_th_in(&folder, &argv, "", &[]);
    assert!(
        out.status == Some(0) && out.stdout.lines().last() == Some(last_line),
        "{dir}/{script} failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
}

pub fn run_th_in(cwd: &Path, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(th_path());
    cmd.args(args).current_dir(cwd);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (out, timed_out) = run_with_input(&mut cmd, stdin, TIMEOUT);
    if timed_out {
        panic!("th {args:?} did not finish within {TIMEOUT:?}");
    }
    out
}

/// Runs `th args` from the tests' Lua directory with an empty stdin.
pub fn run_th(args: &[&str]) -> Output {
    run_th_in(&lua_dir(), args, "", &[])
}

/// Whether `program` is an executable file in one of PATH's folders.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// Whether the tools a test runs are here. A missing one fails the test under CI (env `CI` set),
/// which installs them, and elsewhere makes it print why it skipped; `install` says how to get them.
pub fn tools_present(tools: &[&str], install: &str) -> bool {
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !on_path(t)).collect();
    if missing.is_empty() {
        return true;
    }
    if std::env::var_os("CI").is_some() {
        panic!("{} missing (.ci/run installs them: {install})", missing.join(", "));
    }
    println!("skipped: {} missing ({install})", missing.join(", "));
    false
}

/// A command's status and both of its outputs, for assertion messages.
pub fn show(out: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status, out.stdout, out.stderr
    )
}
