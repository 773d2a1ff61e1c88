//! `thcluster` starting its engines through the real launchers: over ssh (a private sshd on
//! loopback, tests/common/sshd.rs), as `srun` steps and as one `sbatch` job (a private Slurm,
//! tests/common/slurm.rs), and locally. Each test starts a cluster with `--daemonize` in a
//! directory of its own (`LUATORCH_CLUSTER_DIR`), drives it from a `th` client
//! (tests/lua/cluster/launch_client.lua), and checks that what the launcher started ends: after
//! `thcluster stop`, after the controller is killed with SIGKILL, and that a killed engine is
//! started again while its slot has restarts left.
//!
//! Without sshd or Slurm the tests that need them print why and pass (not under CI).

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use common::slurm::Slurm;
use common::sshd::{self, Sshd, is_alive};
use common::{Output, run_cmd, th_path};

/// Time allowed for one `thcluster` command (start returns once the controller is up).
const CMD_TIMEOUT: Duration = Duration::from_secs(60);
/// Time allowed for processes to end, jobs to leave the queue, engines to come back.
const WAIT: Duration = Duration::from_secs(30);
/// Time allowed after a SIGKILL of the controller for engines that only learn of it through
/// missing heartbeats (an sbatch job's: 10 s without an answer, then they end).
const HEARTBEAT_WAIT: Duration = Duration::from_secs(60);

macro_rules! sshd_or_skip {
    ($name:expr) => {
        match Sshd::start($name) {
            Some(server) => server,
            None => return,
        }
    };
}

macro_rules! slurm_or_skip {
    ($name:expr) => {
        match Slurm::start($name, 1) {
            Some(slurm) => slurm,
            None => return,
        }
    };
}

/// Polls `done` every 50 ms for up to `timeout`; whether it held.
fn wait_until(timeout: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if done() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn this_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .expect("read the hostname")
        .trim()
        .to_string()
}

/// Field 4 (ppid) of /proc/<pid>/stat.
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..].split_whitespace().nth(1)?.parse().ok()
}

/// The live children of `pid` whose command line starts with `program`.
fn children_running(pid: i32, program: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(child) = entry.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if parent_of(child) == Some(pid) && is_alive(child) && sshd::cmdline(child).starts_with(program) {
            found.push(child);
        }
    }
    found
}

/// Asserts that every pid of `pids` ends within `timeout`.
fn assert_all_gone(pids: &[i32], what: &str, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    for &pid in pids {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(
            sshd::wait_gone(pid, left),
            "{what} {pid} ({}) still runs {timeout:?} later",
            sshd::cmdline(pid)
        );
    }
}

/// The job ids in the queue of `slurm`.
fn queued_jobs(slurm: &Slurm) -> Vec<String> {
    let out = run_cmd(slurm.command("squeue").args(["-h", "-o", "%i"]), WAIT);
    assert_eq!(out.status, Some(0), "squeue failed: {}", out.stderr);
    out.stdout.split_whitespace().map(str::to_string).collect()
}

fn assert_queue_empties(slurm: &Slurm, timeout: Duration) {
    let mut left = Vec::new();
    let empty = wait_until(timeout, || {
        left = queued_jobs(slurm);
        left.is_empty()
    });
    assert!(empty, "jobs {left:?} still in the queue {timeout:?} later");
}

/// What the client script printed: the engines as they saw themselves and as the controller
/// lists them.
struct Seen {
    /// (engine id, SLURM_JOB_ID or "-", whether it runs in an ssh session)
    wheres: Vec<(u32, String, bool)>,
    /// (engine id, host, pid)
    engines: Vec<(u32, String, i32)>,
}

impl Seen {
    fn pids(&self) -> Vec<i32> {
        self.engines.iter().map(|e| e.2).collect()
    }
}

/// One line of `thcluster status`'s engine table: (id, pid).
fn status_engines(text: &str) -> Vec<(u32, i32)> {
    text.lines()
        .skip(2)
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let id = w.next()?.parse().ok()?;
            let _host = w.next()?;
            Some((id, w.next()?.parse().ok()?))
        })
        .collect()
}

/// The number after `label` in `thcluster status`'s first line ("..., 1 restarts").
fn status_count(text: &str, label: &str) -> Option<u32> {
    let first = text.lines().next()?;
    let words: Vec<&str> = first.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let at = words.iter().position(|w| *w == label)?;
    words.get(at.checked_sub(1)?)?.parse().ok()
}

/// A cluster of one test: its own directory of connection files and its own profile; dropping
/// it kills a controller still running (its engines follow it).
struct Cluster {
    dir: PathBuf,
    profile: String,
    slurm_conf: Option<PathBuf>,
    controller: Option<i32>,
}

impl Cluster {
    fn new(name: &str, slurm: Option<&Slurm>) -> Cluster {
        Cluster {
            // Not made yet: thcluster makes it (0700). A space and a quote in its name: the
            // path travels through a shell and Lua in an sbatch job's script.
            dir: common::temp_dir(&format!("cluster-launch-{name}")).join("the cluster's dir"),
            profile: format!("launch-{name}-{}", std::process::id()),
            slurm_conf: slurm.map(Slurm::conf),
            controller: None,
        }
    }

    fn command(&self, program: PathBuf) -> Command {
        let mut cmd = Command::new(program);
        cmd.env("LUATORCH_CLUSTER_DIR", &self.dir);
        for (k, _) in std::env::vars_os() {
            // An enclosing job's variables would put srun and sbatch into it.
            if k.to_str().is_some_and(|k| k.starts_with("SLURM_")) {
                cmd.env_remove(&k);
            }
        }
        if let Some(conf) = &self.slurm_conf {
            cmd.env("SLURM_CONF", conf);
        }
        cmd
    }

    fn thcluster(&self, args: &[&str]) -> Output {
        let mut cmd = self.command(PathBuf::from(env!("CARGO_BIN_EXE_thcluster")));
        cmd.args(args).args(["--profile", &self.profile]);
        let out = run_cmd(&mut cmd, CMD_TIMEOUT);
        assert!(
            out.status.is_some(),
            "thcluster {args:?} did not end within {CMD_TIMEOUT:?}"
        );
        out
    }

    fn connfile(&self) -> PathBuf {
        self.dir.join(format!("{}.json", self.profile))
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join(format!("{}.log", self.profile))).unwrap_or_default()
    }

    /// `thcluster start --daemonize` with `args`; returns the controller's pid.
    fn start(&mut self, args: &[&str]) -> i32 {
        let mut all = vec!["start", "--daemonize"];
        all.extend_from_slice(args);
        let out = self.thcluster(&all);
        assert_eq!(
            out.status,
            Some(0),
            "thcluster start failed\n--- stdout\n{}\n--- stderr\n{}\n--- log\n{}",
            out.stdout,
            out.stderr,
            self.log()
        );
        assert!(out.stdout.contains("started"), "{}", out.stdout);
        let text = std::fs::read_to_string(self.connfile()).expect("the connection file");
        let conn: serde_json::Value = serde_json::from_str(&text).expect("a JSON connection file");
        let pid = conn["pid"].as_i64().expect("the controller's pid") as i32;
        assert!(is_alive(pid), "the controller {pid} is not running after start");
        self.controller = Some(pid);
        pid
    }

    /// Runs the client script for `n` engines.
    fn client(&self, n: usize) -> Seen {
        let mut cmd = self.command(th_path());
        cmd.arg("cluster/launch_client.lua")
            .arg(&self.profile)
            .arg(n.to_string())
            .current_dir(common::lua_dir());
        let out = run_cmd(&mut cmd, CMD_TIMEOUT);
        assert!(
            out.status == Some(0) && out.stdout.ends_with("ok\n"),
            "the client failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}\n--- log\n{}",
            out.status,
            out.stdout,
            out.stderr,
            self.log()
        );
        let mut seen = Seen {
            wheres: Vec::new(),
            engines: Vec::new(),
        };
        for line in out.stdout.lines() {
            let w: Vec<&str> = line.split_whitespace().collect();
            match w.as_slice() {
                ["where", id, job, ssh] => seen.wheres.push((id.parse().unwrap(), job.to_string(), *ssh == "ssh")),
                ["engine", id, host, pid] => {
                    seen.engines
                        .push((id.parse().unwrap(), host.to_string(), pid.parse().unwrap()))
                }
                _ => {}
            }
        }
        assert_eq!(seen.wheres.len(), n, "{}", out.stdout);
        assert_eq!(seen.engines.len(), n, "{}", out.stdout);
        let host = this_host();
        for (id, h, pid) in &seen.engines {
            assert_eq!(h, &host, "engine {id}'s host");
            assert!(is_alive(*pid), "engine {id}'s pid {pid} does not run");
        }
        seen
    }

    /// `thcluster status`'s text (it must succeed).
    fn status(&self) -> String {
        let out = self.thcluster(&["status"]);
        assert_eq!(out.status, Some(0), "thcluster status failed: {}", out.stderr);
        out.stdout
    }

    /// Polls `thcluster status` until `done(text)` holds; panics with the last text otherwise.
    fn wait_status(&self, what: &str, mut done: impl FnMut(&str) -> bool) -> String {
        let mut last = String::new();
        let ok = wait_until(WAIT, || {
            last = self.status();
            done(&last)
        });
        assert!(
            ok,
            "{what}: not within {WAIT:?}\n--- status\n{last}\n--- log\n{}",
            self.log()
        );
        last
    }

    /// `thcluster stop`; then the controller has ended and its connection file is gone.
    fn stop(&mut self) {
        let out = self.thcluster(&["stop"]);
        assert_eq!(
            out.status,
            Some(0),
            "thcluster stop failed: {}\n--- log\n{}",
            out.stderr,
            self.log()
        );
        assert!(out.stdout.contains("stopped"), "{}", out.stdout);
        let pid = self.controller.take().expect("a started cluster");
        assert!(!is_alive(pid), "the controller {pid} runs after stop");
        assert!(
            !self.connfile().exists(),
            "{} is left after stop",
            self.connfile().display()
        );
    }

    /// SIGKILL to the controller: nothing of its own cleans up.
    fn kill_controller(&mut self) {
        let pid = self.controller.take().expect("a started cluster");
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL)
            .expect("SIGKILL the controller");
        assert!(sshd::wait_gone(pid, WAIT), "the controller {pid} survived SIGKILL");
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("--- controller log\n{}", self.log());
        }
        if let Some(pid) = self.controller.take()
            && is_alive(pid)
        {
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL);
            sshd::wait_gone(pid, WAIT);
        }
        if let Some(root) = self.dir.parent() {
            let _ = std::fs::remove_dir_all(root);
        }
    }
}

fn kill9(pid: i32) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL)
        .unwrap_or_else(|e| panic!("SIGKILL {pid}: {e}"));
}

/// The arguments that start `count` engines over ssh to `server`.
fn ssh_args(server: &Sshd, count: u32) -> Vec<String> {
    vec![
        "--hosts".into(),
        format!("{}:{count}", server.host()),
        "--protocol".into(),
        server.protocol(),
        "--th".into(),
        th_path().display().to_string(),
    ]
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn ssh_engines_join_work_and_stop_cleanly() {
    let server = sshd_or_skip!("cluster-ssh");
    let mut cl = Cluster::new("ssh", None);
    let controller = cl.start(&strs(&ssh_args(&server, 2)));
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&cl.dir), 0o700, "the cluster directory's mode");
        assert_eq!(mode(&cl.connfile()), 0o600, "the connection file's mode");
    }
    let seen = cl.client(2);
    assert!(
        seen.wheres.iter().all(|w| w.2),
        "an engine outside ssh: {:?}",
        seen.wheres
    );
    let sessions: Vec<i32> = server.session_pids().into_iter().map(|(p, _)| p).collect();
    for pid in seen.pids() {
        assert!(sessions.contains(&pid), "engine {pid} is not an ssh session's process");
    }
    let ssh_clients = children_running(controller, "ssh");
    assert_eq!(ssh_clients.len(), 2, "the controller's ssh clients");
    cl.stop();
    assert_all_gone(&seen.pids(), "engine", WAIT);
    assert_all_gone(&ssh_clients, "ssh client", WAIT);
    if let Err(left) = server.wait_no_sessions(WAIT) {
        panic!("processes left on the remote side after stop: {left:?}");
    }
    // The engines were told to quit: none died of its stdin closing first.
    assert!(!cl.log().contains("died"), "{}", cl.log());
}

#[test]
fn ssh_engines_end_when_the_controller_is_killed() {
    let server = sshd_or_skip!("cluster-ssh-kill");
    let mut cl = Cluster::new("ssh-kill", None);
    let controller = cl.start(&strs(&ssh_args(&server, 2)));
    let seen = cl.client(2);
    let ssh_clients = children_running(controller, "ssh");
    cl.kill_controller();
    // The ssh clients die with the controller (PDEATHSIG); their sessions end, and with them the
    // engines' stdin.
    assert_all_gone(&ssh_clients, "ssh client", WAIT);
    assert_all_gone(&seen.pids(), "engine", WAIT);
    if let Err(left) = server.wait_no_sessions(WAIT) {
        panic!("processes left on the remote side after the controller was killed: {left:?}");
    }
    // The dead controller's connection file does not stop a new cluster of that name.
    assert!(cl.connfile().exists());
    cl.start(&strs(&ssh_args(&server, 1)));
    let again = cl.client(1);
    cl.stop();
    assert_all_gone(&again.pids(), "engine", WAIT);
    if let Err(left) = server.wait_no_sessions(WAIT) {
        panic!("processes left on the remote side after stop: {left:?}");
    }
}

/// Kills engine `victim` and waits until the cluster has `n` engines again, one restart more;
/// returns the status text.
fn kill_and_wait_for_restart(cl: &Cluster, victim: i32, n: usize, restarts: u32) -> String {
    kill9(victim);
    cl.wait_status("the killed engine's replacement", |s| {
        let engines = status_engines(s);
        status_count(s, "restarts") == Some(restarts)
            && engines.len() == n
            && engines.iter().all(|&(_, pid)| pid != victim)
    })
}

/// Kills one engine twice in a cluster started with `--restarts 1`: the first time it comes back
/// (a new engine id, the restart counted), the second time not.
fn restart_once_then_give_up(cl: &Cluster, seen: &Seen) -> Vec<i32> {
    let before: Vec<u32> = seen.engines.iter().map(|e| e.0).collect();
    let victim = seen.engines[0].2;
    let text = kill_and_wait_for_restart(cl, victim, 2, 1);
    let after = status_engines(&text);
    let newcomer = after
        .iter()
        .find(|(id, _)| !before.contains(id))
        .unwrap_or_else(|| panic!("no new engine id in\n{text}"));
    assert!(is_alive(newcomer.1), "the new engine {newcomer:?} does not run");
    assert!(cl.log().contains("started again"), "{}", cl.log());
    // The slot has no restart left: killing its engine again leaves one engine.
    kill9(newcomer.1);
    let ok = wait_until(WAIT, || cl.log().contains("no restarts left"));
    assert!(ok, "the second death was not reported\n{}", cl.log());
    let text = cl.wait_status("one engine left", |s| status_engines(s).len() == 1);
    assert_eq!(status_count(&text, "restarts"), Some(1), "{text}");
    let mut all = seen.pids();
    all.push(newcomer.1);
    all
}

#[test]
fn local_engine_killed_is_restarted_once() {
    let mut cl = Cluster::new("local-restart", None);
    let th = th_path().display().to_string();
    cl.start(&["-n", "2", "--restarts", "1", "--th", &th]);
    let seen = cl.client(2);
    let all = restart_once_then_give_up(&cl, &seen);
    cl.stop();
    assert_all_gone(&all, "engine", WAIT);
}

#[test]
fn ssh_engine_killed_is_restarted_once() {
    let server = sshd_or_skip!("cluster-ssh-restart");
    let mut cl = Cluster::new("ssh-restart", None);
    let mut args = ssh_args(&server, 2);
    args.extend(["--restarts".to_string(), "1".to_string()]);
    cl.start(&strs(&args));
    let seen = cl.client(2);
    let all = restart_once_then_give_up(&cl, &seen);
    cl.stop();
    assert_all_gone(&all, "engine", WAIT);
    if let Err(left) = server.wait_no_sessions(WAIT) {
        panic!("processes left on the remote side after stop: {left:?}");
    }
}

#[test]
fn srun_engines_join_work_restart_and_stop_cleanly() {
    let slurm = slurm_or_skip!("cl-srun");
    let mut cl = Cluster::new("srun", Some(&slurm));
    let th = th_path().display().to_string();
    let controller = cl.start(&[
        "-n",
        "2",
        "--slurm",
        "--restarts",
        "1",
        "--srun-args",
        "--overcommit --job-name=thcluster-test",
        "--th",
        &th,
    ]);
    let seen = cl.client(2);
    // Outside an allocation each engine's srun is a job of its own.
    let mut jobs: Vec<String> = seen.wheres.iter().map(|w| w.1.clone()).collect();
    jobs.sort();
    jobs.dedup();
    assert_eq!(jobs.len(), 2, "the engines' jobs: {:?}", seen.wheres);
    let queued = queued_jobs(&slurm);
    for job in &jobs {
        assert!(queued.contains(job), "job {job} is not in the queue {queued:?}");
    }
    for pid in seen.pids() {
        let parent = parent_of(pid).unwrap_or(0);
        assert!(
            sshd::cmdline(parent).starts_with("slurmstepd"),
            "engine {pid}'s parent is {parent} ({}), not a slurmstepd",
            sshd::cmdline(parent)
        );
    }
    let sruns = children_running(controller, "srun");
    assert_eq!(sruns.len(), 2, "the controller's sruns");
    for pid in sruns {
        let line = sshd::cmdline(pid);
        assert!(line.contains(" --overcommit --job-name=thcluster-test "), "{line}");
    }
    // A killed engine comes back as a new srun.
    let victim = seen.engines[0].2;
    let text = kill_and_wait_for_restart(&cl, victim, 2, 1);
    let mut engines: Vec<i32> = status_engines(&text).into_iter().map(|e| e.1).collect();
    engines.push(victim);
    let sruns = children_running(controller, "srun");
    assert_eq!(sruns.len(), 2, "the controller's sruns after the restart");
    cl.stop();
    assert_all_gone(&engines, "engine", WAIT);
    assert_all_gone(&sruns, "srun", WAIT);
    assert_queue_empties(&slurm, WAIT);
    let log = cl.log();
    assert!(
        !log.contains("Exited with exit code"),
        "an engine failed to quit:\n{log}"
    );
}

#[test]
fn srun_engines_end_when_the_controller_is_killed() {
    let slurm = slurm_or_skip!("cl-srun-kill");
    let mut cl = Cluster::new("srun-kill", Some(&slurm));
    let th = th_path().display().to_string();
    let controller = cl.start(&["-n", "2", "--slurm", "--th", &th]);
    let seen = cl.client(2);
    let sruns = children_running(controller, "srun");
    assert_eq!(sruns.len(), 2, "the controller's sruns");
    cl.kill_controller();
    // srun gets SIGTERM (PDEATHSIG) and cancels its step.
    assert_all_gone(&sruns, "srun", WAIT);
    assert_all_gone(&seen.pids(), "engine", WAIT);
    assert_queue_empties(&slurm, WAIT);
}

#[test]
fn sbatch_engines_join_and_stop_cancels_the_job() {
    let slurm = slurm_or_skip!("cl-sbatch");
    let mut cl = Cluster::new("sbatch", Some(&slurm));
    let th = th_path().display().to_string();
    // --srun-args go to sbatch and to the srun in its script.
    cl.start(&["-n", "2", "--sbatch", "--srun-args", "--overcommit", "--th", &th]);
    let seen = cl.client(2);
    let job = &seen.wheres[0].1;
    assert_ne!(job, "-", "the engines run outside Slurm: {:?}", seen.wheres);
    assert!(
        seen.wheres.iter().all(|w| &w.1 == job),
        "the engines are not one job: {:?}",
        seen.wheres
    );
    assert!(queued_jobs(&slurm).contains(job), "job {job} is not in the queue");
    assert!(
        cl.log().contains(&format!("Slurm job {job}")),
        "the log names another job:\n{}",
        cl.log()
    );
    // The job's output goes beside the connection file, not where the controller was started.
    let output = cl.dir.join(format!("{}-{job}.out", cl.profile));
    assert!(output.exists(), "no {}", output.display());
    cl.stop();
    assert_queue_empties(&slurm, WAIT);
    assert_all_gone(&seen.pids(), "engine", WAIT);
}

#[test]
fn sbatch_engines_end_when_the_controller_is_killed() {
    let slurm = slurm_or_skip!("cl-sbatch-kill");
    let mut cl = Cluster::new("sbatch-kill", Some(&slurm));
    let th = th_path().display().to_string();
    cl.start(&["-n", "2", "--sbatch", "--th", &th]);
    let seen = cl.client(2);
    cl.kill_controller();
    // Nothing connects these engines to the controller's process but their heartbeats.
    assert_all_gone(&seen.pids(), "engine", HEARTBEAT_WAIT);
    assert_queue_empties(&slurm, WAIT);
}
