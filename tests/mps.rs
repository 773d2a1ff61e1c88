//! scripts/mps (start, stop, status and env of MPS control daemons per group of GPUs) and
//! `cutorch.mps()`, without a GPU: fake `nvidia-smi` and `nvidia-cuda-mps-control`
//! (tests/fixtures/mps) come first on PATH. The fake nvidia-smi serves a GPU table kept in a file
//! (and rewrites it on `-c`), the fake control program starts a fake daemon (a background copy of
//! itself, for at most a minute) that makes the pipe directory's `control` FIFO and pid file; both
//! log every call. LUATORCH_MPS_ASSUME_ROOT picks the script's root or non-root path whoever runs
//! the tests.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{Output, run_cmd, temp_dir, th_path};

const SCRIPT_TIMEOUT: Duration = Duration::from_secs(60);

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn script() -> PathBuf {
    manifest().join("scripts/mps/mps.sh")
}

fn fakes() -> PathBuf {
    manifest().join("tests/fixtures/mps")
}

const UUID0: &str = "GPU-0a1b2c3d-0000-1111-2222-333344445555";
const UUID1: &str = "GPU-9f8e7d6c-0000-1111-2222-333344445555";
const UUID2: &str = "GPU-55aa55aa-0000-1111-2222-333344445555";

/// One test's fake machine: three GPUs, the log of the fakes, and a base directory for the groups.
struct Machine {
    dir: PathBuf,
}

impl Machine {
    fn new(name: &str) -> Machine {
        let dir = temp_dir(&format!("mps-{name}"));
        let m = Machine { dir };
        m.set_table(&[(0, UUID0, "Default"), (1, UUID1, "Prohibited"), (2, UUID2, "Default")]);
        fs::write(m.log_path(), "").unwrap();
        m
    }

    fn set_table(&self, gpus: &[(u32, &str, &str)]) {
        let text: String = gpus.iter().map(|(i, u, m)| format!("{i}, {u}, {m}\n")).collect();
        fs::write(self.dir.join("table"), text).unwrap();
    }

    fn table(&self) -> String {
        fs::read_to_string(self.dir.join("table")).unwrap()
    }

    fn log_path(&self) -> PathBuf {
        self.dir.join("calls.log")
    }

    fn log(&self) -> String {
        fs::read_to_string(self.log_path()).unwrap()
    }

    fn clear_log(&self) {
        fs::write(self.log_path(), "").unwrap();
    }

    fn base(&self) -> PathBuf {
        self.dir.join("base")
    }

    fn path_var(&self) -> String {
        format!("{}:{}", fakes().display(), std::env::var("PATH").unwrap_or_default())
    }

    /// The one group directory that has a state directory (a group started and not stopped).
    fn started_group(&self) -> PathBuf {
        let name = self
            .groups()
            .into_iter()
            .find(|g| self.base().join(g).join("state").exists());
        self.base().join(name.expect("no started group"))
    }

    /// The group directories under the base, by name.
    fn groups(&self) -> Vec<String> {
        let mut names: Vec<String> = match fs::read_dir(self.base()) {
            Ok(rd) => rd
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect(),
            Err(_) => vec![],
        };
        names.sort();
        names
    }

    fn command(&self, program: &Path, root: bool, env: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new(program);
        cmd.env("PATH", self.path_var())
            .env("FAKE_LOG", self.log_path())
            .env("FAKE_GPU_TABLE", self.dir.join("table"))
            .env("FAKE_DAEMON_LIFE", "60")
            .env("LUATORCH_MPS_BASE", self.base())
            .env("LUATORCH_MPS_ASSUME_ROOT", if root { "1" } else { "0" })
            .env_remove("CUDA_MPS_PIPE_DIRECTORY")
            .env_remove("CUDA_MPS_LOG_DIRECTORY")
            .env_remove("CUDA_VISIBLE_DEVICES")
            .env_remove("LUATORCH_MPS_TIMEOUT")
            .current_dir(&self.dir);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd
    }

    /// mps.sh `args`, as root (`root`) or not.
    fn run(&self, root: bool, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = self.command(&script(), root, env);
        cmd.args(args);
        let out = run_cmd(&mut cmd, SCRIPT_TIMEOUT);
        assert!(
            out.status.is_some(),
            "mps.sh {args:?} timed out\n{}\n{}",
            out.stdout,
            out.stderr
        );
        out
    }

    /// A bash command line with the same environment (for `eval` and `source`).
    fn bash(&self, line: &str) -> Output {
        let mut cmd = self.command(Path::new("bash"), false, &[]);
        cmd.args(["-c", line]);
        run_cmd(&mut cmd, SCRIPT_TIMEOUT)
    }
}

impl Drop for Machine {
    /// Ends the fake daemons a failed test left behind (each lives a minute at most anyway).
    fn drop(&mut self) {
        for group in self.groups() {
            let pid_file = self.base().join(&group).join("pipe/nvidia-cuda-mps-control.pid");
            if let Ok(pid) = fs::read_to_string(pid_file)
                && let Ok(pid) = pid.trim().parse::<i32>()
            {
                term(pid);
            }
        }
    }
}

/// SIGTERM to a fake daemon (it removes its pid file and ends, as the real one does on `quit`).
fn term(pid: i32) {
    let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGTERM);
}

fn ok(out: &Output) {
    assert_eq!(
        out.status,
        Some(0),
        "failed\n--- stdout\n{}\n--- stderr\n{}",
        out.stdout,
        out.stderr
    );
}

fn fails(out: &Output, code: i32, message: &str) {
    assert_eq!(
        out.status,
        Some(code),
        "status\n--- stdout\n{}\n--- stderr\n{}",
        out.stdout,
        out.stderr
    );
    assert!(out.stderr.contains(message), "expected {message:?} in:\n{}", out.stderr);
}

fn alive(pid: i32) -> bool {
    // A zombie (the fake daemon's parent is gone, and init may reap late) counts as ended.
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z')),
        Err(_) => false,
    }
}

/// Waits (bounded) for `pid` to end; true if it did.
fn ended(pid: i32) -> bool {
    for _ in 0..100 {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

fn daemon_pid(group_dir: &Path) -> i32 {
    fs::read_to_string(group_dir.join("state/daemon.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn system_mode_sets_exclusive_process_and_stop_restores_the_recorded_modes() {
    let m = Machine::new("system");
    let out = m.run(true, &["start", "1,0"], &[]);
    ok(&out);
    assert!(out.stdout.contains("started MPS control daemon"), "{}", out.stdout);
    assert!(out.stdout.contains("system mode"), "{}", out.stdout);
    let groups = m.groups();
    assert_eq!(groups.len(), 1, "{groups:?}");
    let group = m.base().join(&groups[0]);
    let pipe = group.join("pipe");
    let log = m.log();
    assert!(
        log.contains(&format!("nvidia-smi -i {UUID0} -c EXCLUSIVE_PROCESS")),
        "{log}"
    );
    assert!(
        log.contains(&format!("nvidia-smi -i {UUID1} -c EXCLUSIVE_PROCESS")),
        "{log}"
    );
    assert!(!log.contains(UUID2), "GPU 2 is not in the group: {log}");
    // The daemon sees the group by UUID (in nvidia-smi's order) and the group's directories.
    let daemon_line = format!(
        "mps-control -d VISIBLE={UUID0},{UUID1} PIPE={} LOG={}",
        pipe.display(),
        group.join("log").display()
    );
    assert!(log.contains(&daemon_line), "{log}");
    assert_eq!(
        m.table(),
        format!("0, {UUID0}, Exclusive_Process\n1, {UUID1}, Exclusive_Process\n2, {UUID2}, Default\n")
    );
    assert_eq!(
        fs::read_to_string(group.join("state/compute_modes")).unwrap(),
        format!("{UUID0} Default\n{UUID1} Prohibited\n")
    );
    assert_eq!(fs::read_to_string(group.join("state/mode")).unwrap(), "system\n");
    // Clients of every user reach a system daemon: the pipe directory is open to all, sticky.
    assert_eq!(fs::metadata(&pipe).unwrap().permissions().mode() & 0o7777, 0o1777);
    let pid = daemon_pid(&group);
    assert!(alive(pid));
    assert_eq!(
        fs::read_to_string(pipe.join("nvidia-cuda-mps-control.pid"))
            .unwrap()
            .trim(),
        pid.to_string()
    );

    m.clear_log();
    let out = m.run(true, &["stop", "0,1"], &[]);
    ok(&out);
    assert!(
        out.stdout.contains(&format!("stopped MPS control daemon (pid {pid})")),
        "{}",
        out.stdout
    );
    assert!(ended(pid), "the daemon is still running");
    let log = m.log();
    assert!(
        log.contains(&format!("mps-control cmd quit PIPE={}", pipe.display())),
        "{log}"
    );
    assert!(log.contains(&format!("nvidia-smi -i {UUID0} -c DEFAULT")), "{log}");
    assert!(log.contains(&format!("nvidia-smi -i {UUID1} -c PROHIBITED")), "{log}");
    assert_eq!(
        m.table(),
        format!("0, {UUID0}, Default\n1, {UUID1}, Prohibited\n2, {UUID2}, Default\n")
    );
    assert!(
        !pipe.exists() && !group.join("state").exists(),
        "pipe and state directories stay"
    );
    assert!(group.join("log").is_dir(), "the logs are kept");

    // Stopping again does nothing, and says so.
    m.clear_log();
    let out = m.run(true, &["stop", "0,1"], &[]);
    ok(&out);
    assert!(out.stdout.contains("nothing to stop"), "{}", out.stdout);
    assert!(!m.log().contains(" -c "), "{}", m.log());
}

#[test]
fn user_mode_needs_no_root_and_leaves_the_compute_mode_alone() {
    let m = Machine::new("user");
    let out = m.run(false, &["start", "2"], &[]);
    ok(&out);
    assert!(out.stdout.contains("user mode"), "{}", out.stdout);
    let group = m.base().join(&m.groups()[0]);
    assert!(!m.log().contains(" -c "), "compute mode changed: {}", m.log());
    assert!(!group.join("state/compute_modes").exists());
    assert_eq!(fs::read_to_string(group.join("state/mode")).unwrap(), "user\n");
    // A user's daemon is theirs alone.
    for d in ["pipe", "log", "state", ""] {
        let mode = fs::metadata(group.join(d)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{d}: {mode:o}");
    }
    assert!(
        m.log().contains(&format!("mps-control -d VISIBLE={UUID2} ")),
        "{}",
        m.log()
    );
    let pid = daemon_pid(&group);
    let out = m.run(false, &["stop", "2"], &[]);
    ok(&out);
    assert!(ended(pid));
    assert!(!m.log().contains(" -c "), "{}", m.log());
    assert_eq!(
        m.table(),
        format!("0, {UUID0}, Default\n1, {UUID1}, Prohibited\n2, {UUID2}, Default\n")
    );

    // Without root, system mode is refused before anything is touched.
    m.clear_log();
    let out = m.run(false, &["start", "--system", "0"], &[]);
    fails(&out, 1, "--system needs root");
    assert!(
        !m.log().contains("-c") && !m.log().contains("mps-control"),
        "{}",
        m.log()
    );
}

#[test]
fn group_directories_are_named_by_the_uuids_whatever_the_spelling() {
    let m = Machine::new("groups");
    ok(&m.run(false, &["start", "0"], &[]));
    ok(&m.run(false, &["start", "1,2"], &[]));
    let groups = m.groups();
    assert_eq!(groups.len(), 2, "{groups:?}");
    for g in &groups {
        assert!(
            g.len() == 17 && g.starts_with("gpus-") && g[5..].chars().all(|c| c.is_ascii_hexdigit()),
            "{g}"
        );
    }
    // The same group by UUIDs (in another order and case) or indices; a group with GPU 0 inside
    // another is refused while GPU 0's daemon runs.
    let spelled = format!("{},{UUID1}", UUID2.to_lowercase().replace("gpu-", "GPU-"));
    let out = m.run(false, &["status", &spelled], &[]);
    ok(&out);
    assert!(out.stdout.contains("daemon: running"), "{}", out.stdout);
    assert!(out.stdout.contains(&format!("1,2 ({UUID1},{UUID2})")), "{}", out.stdout);
    let out = m.run(false, &["start", &format!("{UUID2},1")], &[]);
    fails(&out, 1, "already running");
    let out = m.run(false, &["start", "0,1,2"], &[]);
    fails(&out, 1, "already belongs to the MPS group");
    let out = m.run(false, &["start", "all"], &[]);
    fails(&out, 1, "already belongs to the MPS group");

    // status with no GPUs lists every group.
    let out = m.run(false, &["status"], &[]);
    ok(&out);
    assert_eq!(out.stdout.matches("daemon: running").count(), 2, "{}", out.stdout);
    assert_eq!(out.stdout.matches("servers: 4242").count(), 2, "{}", out.stdout);

    // `all` is the group of every GPU.
    ok(&m.run(false, &["stop", "0"], &[]));
    ok(&m.run(false, &["stop", "2,1"], &[]));
    ok(&m.run(false, &["start"], &[]));
    assert!(
        m.log().contains(&format!("VISIBLE={UUID0},{UUID1},{UUID2} ")),
        "{}",
        m.log()
    );
    let out = m.run(false, &["status", "0,1,2"], &[]);
    ok(&out);
    ok(&m.run(false, &["stop", "all"], &[]));
    let out = m.run(false, &["status"], &[]);
    assert_eq!(out.status, Some(3), "{}", out.stdout);
    assert!(out.stdout.contains("no MPS group"), "{}", out.stdout);
}

#[test]
fn env_prints_the_client_environment_to_eval_or_source() {
    let m = Machine::new("env");
    ok(&m.run(false, &["start", "1,2"], &[]));
    let group = m.base().join(&m.groups()[0]);
    let out = m.run(false, &["env", "2,1"], &[]);
    ok(&out);
    assert_eq!(
        out.stdout,
        format!(
            "export CUDA_MPS_PIPE_DIRECTORY='{0}/pipe'\nexport CUDA_MPS_LOG_DIRECTORY='{0}/log'\n\
             export CUDA_VISIBLE_DEVICES='{UUID1},{UUID2}'\n",
            group.display()
        )
    );
    let show = r#"echo "$CUDA_MPS_PIPE_DIRECTORY|$CUDA_MPS_LOG_DIRECTORY|${CUDA_VISIBLE_DEVICES-unset}""#;
    let script = script();
    let expected = format!("{0}/pipe|{0}/log|{UUID1},{UUID2}\n", group.display());
    let out = m.bash(&format!("eval \"$('{}' env 1,2)\" && {show}", script.display()));
    ok(&out);
    assert_eq!(out.stdout, expected);
    let sourced = manifest().join("scripts/mps/mps-env.sh");
    let out = m.bash(&format!("source '{}' 1,2 && {show}", sourced.display()));
    ok(&out);
    assert_eq!(out.stdout, expected);
    let out = m.bash(&format!("source '{0}' --no-visible 1,2 && {show}", sourced.display()));
    ok(&out);
    assert_eq!(out.stdout, format!("{0}/pipe|{0}/log|unset\n", group.display()));
    let out = m.bash(&format!(
        "source '{0}' 1,2 && source '{0}' --unset && echo \"${{CUDA_MPS_PIPE_DIRECTORY-unset}}|${{CUDA_VISIBLE_DEVICES-unset}}\"",
        sourced.display()
    ));
    ok(&out);
    assert_eq!(out.stdout, "unset|unset\n");

    // A group that was never started: nothing to eval, and a clear error.
    let out = m.run(false, &["env", "0"], &[]);
    fails(&out, 1, "no MPS group for GPUs 0");
    assert_eq!(out.stdout, "");
    let out = m.bash(&format!(
        "export CUDA_MPS_PIPE_DIRECTORY=before; source '{}' 0; echo \"$?|$CUDA_MPS_PIPE_DIRECTORY\"",
        sourced.display()
    ));
    assert_eq!(out.stdout, "1|before\n", "{}", out.stderr);

    // A daemon that died: the environment still prints, with a warning and status 3.
    let pid = daemon_pid(&group);
    term(pid);
    assert!(ended(pid));
    let out = m.run(false, &["env", "1,2"], &[]);
    fails(&out, 3, "is not running");
    assert!(out.stdout.contains("CUDA_MPS_PIPE_DIRECTORY"), "{}", out.stdout);
    ok(&m.run(false, &["stop", "1,2"], &[]));
}

#[test]
fn bad_arguments_and_missing_tools_give_clear_errors() {
    let m = Machine::new("errors");
    fails(
        &m.run(false, &["start", "3"], &[]),
        1,
        "unknown GPU '3' (nvidia-smi lists: 0 GPU-0a1b2c3d",
    );
    fails(&m.run(false, &["start", "GPU-nope"], &[]), 1, "unknown GPU 'GPU-nope'");
    fails(&m.run(false, &["start", "0,0"], &[]), 2, "named twice");
    fails(&m.run(false, &["start", &format!("0,{UUID0}")], &[]), 2, "named twice");
    fails(&m.run(false, &["start", "0,"], &[]), 2, "bad GPU list");
    fails(&m.run(false, &["start", "0", "1"], &[]), 2, "one GPU list expected");
    fails(&m.run(false, &["launch"], &[]), 2, "unknown command 'launch'");
    fails(&m.run(false, &["start", "--bogus"], &[]), 2, "unknown option '--bogus'");
    fails(
        &m.run(false, &["start", "--system", "--user"], &[]),
        2,
        "exclude each other",
    );
    fails(
        &m.run(false, &["start", "--timeout", "soon"], &[]),
        2,
        "whole number of seconds",
    );
    fails(&m.run(false, &["env", "--force"], &[]), 2, "--force is for stop");
    fails(&m.run(false, &["stop", "--cpu", "0"], &[]), 2, "--cpu is for start");
    fails(&m.run(false, &[], &[]), 2, "");
    let help = m.run(false, &["help"], &[]);
    ok(&help);
    assert!(
        help.stdout.contains("mps.sh start") && help.stdout.contains("--user"),
        "{}",
        help.stdout
    );
    fails(
        &m.run(false, &["start"], &[("FAKE_SMI_FAIL_QUERY", "1")]),
        1,
        "nvidia-smi could not list the GPUs",
    );
    assert!(m.groups().is_empty(), "{:?}", m.groups());

    // Already running.
    ok(&m.run(false, &["start", "0"], &[]));
    fails(&m.run(false, &["start", "0"], &[]), 1, "already running for GPUs 0");
    ok(&m.run(false, &["stop", "0"], &[]));

    // No nvidia-cuda-mps-control: a PATH with only the fake nvidia-smi ahead of the system's.
    let only_smi = m.dir.join("only-smi");
    fs::create_dir_all(&only_smi).unwrap();
    std::os::unix::fs::symlink(fakes().join("nvidia-smi"), only_smi.join("nvidia-smi")).unwrap();
    let system_path = std::env::var("PATH").unwrap_or_default();
    if system_path
        .split(':')
        .any(|d| Path::new(d).join("nvidia-cuda-mps-control").exists())
    {
        println!("skipped the missing-tool check: this machine has a real nvidia-cuda-mps-control");
    } else {
        let path = format!("{}:{system_path}", only_smi.display());
        fails(
            &m.run(true, &["start", "0"], &[("PATH", &path)]),
            1,
            "nvidia-cuda-mps-control not found on PATH",
        );
        assert!(!m.log().contains(" -c "), "{}", m.log());
    }
}

#[test]
fn a_failed_start_puts_the_compute_modes_back() {
    let m = Machine::new("failed-start");
    // The daemon never writes its pid file.
    let out = m.run(true, &["start", "--timeout", "1", "0,1"], &[("FAKE_DAEMON_FAIL", "1")]);
    fails(&out, 1, "did not come up within 1 s");
    assert!(
        out.stderr.contains("fake daemon: cannot start"),
        "the daemon's log is shown: {}",
        out.stderr
    );
    assert_eq!(
        m.table(),
        format!("0, {UUID0}, Default\n1, {UUID1}, Prohibited\n2, {UUID2}, Default\n")
    );
    let group = m.base().join(&m.groups()[0]);
    assert!(!group.join("state").exists() && !group.join("pipe").exists());
    // nvidia-smi refuses the compute mode: nothing changed, nothing started.
    m.clear_log();
    let out = m.run(true, &["start", "0"], &[("FAKE_SMI_FAIL_SET", "1")]);
    fails(&out, 1, "cannot set GPU 0 to EXCLUSIVE_PROCESS");
    assert!(!m.log().contains("mps-control"), "{}", m.log());
    assert_eq!(
        m.table(),
        format!("0, {UUID0}, Default\n1, {UUID1}, Prohibited\n2, {UUID2}, Default\n")
    );
}

#[test]
fn stop_handles_dead_daemons_stubborn_daemons_and_missing_rights() {
    let m = Machine::new("stop");
    ok(&m.run(true, &["start", "0"], &[]));
    let group = m.base().join(&m.groups()[0]);
    // A system group is stopped by root only (the compute mode must go back).
    fails(&m.run(false, &["stop", "0"], &[]), 1, "stop it as root");
    assert!(alive(daemon_pid(&group)));

    // The daemon died on its own; a new start keeps the modes recorded before the first start (not
    // the EXCLUSIVE_PROCESS that start set), and stop restores those.
    let pid = daemon_pid(&group);
    term(pid);
    assert!(ended(pid));
    assert!(m.table().contains(&format!("0, {UUID0}, Exclusive_Process")));
    ok(&m.run(true, &["start", "0"], &[]));
    assert_eq!(
        fs::read_to_string(group.join("state/compute_modes")).unwrap(),
        format!("{UUID0} Default\n")
    );
    let pid = daemon_pid(&group);
    term(pid);
    assert!(ended(pid));
    m.clear_log();
    let out = m.run(true, &["stop", "0"], &[]);
    ok(&out);
    assert!(!m.log().contains("cmd quit"), "no quit to a dead daemon: {}", m.log());
    assert!(
        m.table().starts_with(&format!("0, {UUID0}, Default\n")),
        "{}",
        m.table()
    );

    // A daemon that ignores quit: stop fails after the timeout, then --force kills it.
    ok(&m.run(false, &["start", "1"], &[]));
    let group = m.started_group();
    let pid = daemon_pid(&group);
    let out = m.run(false, &["stop", "--timeout", "1", "1"], &[("FAKE_IGNORE_QUIT", "1")]);
    fails(&out, 1, "run again with --force");
    assert!(alive(pid));
    let out = m.run(
        false,
        &["stop", "--timeout", "1", "--force", "1"],
        &[("FAKE_IGNORE_QUIT", "1")],
    );
    ok(&out);
    assert!(ended(pid));
    assert!(!group.join("state").exists());
    // A restore that fails keeps the record, so that stop can be run again.
    ok(&m.run(true, &["start", "2"], &[]));
    let out = m.run(true, &["stop", "2"], &[("FAKE_SMI_FAIL_SET", "1")]);
    fails(&out, 1, "run stop again");
    let group = m.started_group();
    assert!(group.join("state/compute_modes").exists());
    ok(&m.run(true, &["stop", "2"], &[]));
    assert_eq!(
        m.table(),
        format!("0, {UUID0}, Default\n1, {UUID1}, Prohibited\n2, {UUID2}, Default\n")
    );
    assert!(!group.join("state").exists());
}

/// `th -e code` with `env`, from the test's directory.
fn th(m: &Machine, code: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(th_path());
    cmd.args(["-e", code])
        .current_dir(&m.dir)
        .env_remove("CUDA_MPS_PIPE_DIRECTORY")
        .env_remove("CUDA_MPS_LOG_DIRECTORY")
        .env_remove("LUATORCH_CUDA_VERBOSE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    run_cmd(&mut cmd, common::TIMEOUT)
}

const PROBE: &str = "local m = require('cutorch.mps').probe() \
    if m == nil then print('nil') else \
    print(m.active, m.control, m.pid, m.fromEnv, m.pipeDirectory, m.logDirectory, m.reason) end";

#[test]
fn cutorch_mps_reads_the_pipe_directory() {
    let m = Machine::new("probe");
    let pipe = m.dir.join("pipe");
    fs::create_dir_all(&pipe).unwrap();
    let pipe_s = pipe.display().to_string();
    let env = [
        ("CUDA_MPS_PIPE_DIRECTORY", pipe_s.as_str()),
        ("CUDA_MPS_LOG_DIRECTORY", "/some/log"),
    ];

    // No daemon yet.
    let out = th(&m, PROBE, &env);
    out.assert_ok();
    assert_eq!(
        out.stdout,
        format!("false\tmissing\tnil\ttrue\t{pipe_s}\t/some/log\tno nvidia-cuda-mps-control.pid (no daemon)\n")
    );

    // A live daemon (the fake: it makes a `control` FIFO and the pid file, and its comm is the
    // control program's).
    let mut start = Command::new(fakes().join("nvidia-cuda-mps-control"));
    start
        .arg("-d")
        .env("CUDA_MPS_PIPE_DIRECTORY", &pipe)
        .env("FAKE_LOG", m.log_path())
        .env("FAKE_DAEMON_LIFE", "60");
    ok(&run_cmd(&mut start, SCRIPT_TIMEOUT));
    let pid: i32 = fs::read_to_string(pipe.join("nvidia-cuda-mps-control.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let out = th(&m, PROBE, &env);
    out.assert_ok();
    assert_eq!(
        out.stdout,
        format!("true\tfifo\t{pid}\ttrue\t{pipe_s}\t/some/log\tnil\n")
    );

    // The line at require, asked for, also where no GPU can be had (and then in the error).
    let code = "local ok, err = pcall(require, 'cutorch') if not ok then print(err) end";
    let mut verbose = env.to_vec();
    verbose.push(("LUATORCH_CUDA_VERBOSE", "1"));
    verbose.push(("CUDA_VISIBLE_DEVICES", ""));
    let out = th(&m, code, &verbose);
    out.assert_ok();
    let line = format!("cutorch: MPS in use: control daemon pid {pid} at {pipe_s} (logs in /some/log)\n");
    assert!(out.stderr.contains(&line), "{}", out.stderr);
    assert!(
        out.stdout.contains("cutorch: no CUDA device is available"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains(&format!("[MPS in use: control daemon pid {pid} at {pipe_s}")),
        "{}",
        out.stdout
    );
    // Not asked for: no line.
    let out = th(&m, code, &[env[0], ("CUDA_VISIBLE_DEVICES", "")]);
    out.assert_ok();
    assert!(!out.stderr.contains("cutorch: MPS"), "{}", out.stderr);

    // The daemon quits: its pid file goes, the FIFO stays.
    let mut quit = Command::new("sh");
    quit.args([
        "-c",
        &format!("echo quit | '{}'", fakes().join("nvidia-cuda-mps-control").display()),
    ])
    .env("CUDA_MPS_PIPE_DIRECTORY", &pipe)
    .env("FAKE_LOG", m.log_path());
    ok(&run_cmd(&mut quit, SCRIPT_TIMEOUT));
    assert!(ended(pid));
    for _ in 0..100 {
        if !pipe.join("nvidia-cuda-mps-control.pid").exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = th(&m, PROBE, &env);
    assert!(out.stdout.starts_with("false\tfifo\tnil\t"), "{}", out.stdout);

    // A pid file left behind: a dead pid, or a live process that is not the daemon (th itself).
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    fs::write(pipe.join("nvidia-cuda-mps-control.pid"), format!("{dead}\n")).unwrap();
    let out = th(&m, PROBE, &env);
    assert!(
        out.stdout.starts_with(&format!("false\tfifo\t{dead}\t")),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("is not running"), "{}", out.stdout);
    let code = format!(
        "local f = io.open('{}/nvidia-cuda-mps-control.pid', 'w') \
         f:write(io.open('/proc/self/stat'):read('*l'):match('^%d+')) f:close() {PROBE}",
        pipe_s
    );
    let out = th(&m, &code, &env);
    assert!(
        out.stdout.contains("not the control daemon (stale pid file)"),
        "{}",
        out.stdout
    );
    fs::write(pipe.join("nvidia-cuda-mps-control.pid"), "garbage").unwrap();
    let out = th(&m, PROBE, &env);
    assert!(
        out.stdout.contains("unreadable nvidia-cuda-mps-control.pid"),
        "{}",
        out.stdout
    );

    // A pipe directory that does not exist; and none asked for (nil where /tmp/nvidia-mps, the
    // default, is absent too).
    let missing = m.dir.join("nope").display().to_string();
    let out = th(&m, PROBE, &[("CUDA_MPS_PIPE_DIRECTORY", &missing)]);
    assert_eq!(
        out.stdout,
        format!("false\tmissing\tnil\ttrue\t{missing}\t/var/log/nvidia-mps\tno such directory\n")
    );
    if !Path::new("/tmp/nvidia-mps").exists() {
        let out = th(&m, PROBE, &[]);
        assert_eq!(out.stdout, "nil\n");
        let out = th(
            &m,
            "pcall(require, 'cutorch')",
            &[("LUATORCH_CUDA_VERBOSE", "1"), ("CUDA_VISIBLE_DEVICES", "")],
        );
        assert!(
            out.stderr
                .contains("cutorch: MPS not in use (CUDA_MPS_PIPE_DIRECTORY unset"),
            "{}",
            out.stderr
        );
    }
}
