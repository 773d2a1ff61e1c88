//! A private single-node Slurm "cluster" on loopback for the tests that run `srun`: munged,
//! slurmctld and one slurmd per node (nodes n1..nN, all on 127.0.0.1), run in the foreground by
//! the current user, everything (munge key and socket, slurm.conf, state, logs) in one directory.
//! Nothing in /etc is used or changed. The recipe: no cgroups
//! (proctrack/linuxproc, task/none), more CPUs declared than exist (config_overrides), explicit
//! node names, a private munged whose socket directory everyone can enter.
//!
//! Dropping the fixture cancels every job, waits for the queue to empty, then stops the daemons by
//! pid (SIGKILL for what is still there after a grace period, job steps included) and removes the
//! directory.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use super::Output;
use super::sshd::{free_port, is_alive, run_cmd};

/// Time allowed for the daemons to come up and the nodes to show idle.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// Time allowed for one Slurm client command of the fixture (sinfo, squeue, scancel).
const CMD_TIMEOUT: Duration = Duration::from_secs(20);
/// How long the daemons get to stop after SIGTERM before SIGKILL.
const STOP_TIMEOUT: Duration = Duration::from_secs(10);
/// "CPUs" declared per node (more than the machine may have: config_overrides allows it).
pub const CPUS_PER_NODE: usize = 8;

const MUNGED: &str = "/usr/sbin/munged";
const MUNGEKEY: &str = "/usr/sbin/mungekey";
const SLURMCTLD: &str = "/usr/sbin/slurmctld";
const SLURMD: &str = "/usr/sbin/slurmd";
const CLIENTS: [&str; 4] = ["srun", "sinfo", "squeue", "scancel"];

pub struct Slurm {
    pub dir: PathBuf,
    pub nodes: usize,
    munged: Child,
    slurmctld: Option<Child>,
    slurmds: Vec<Child>,
}

impl Slurm {
    /// Starts a cluster of `nodes` nodes for the test `name`. None (after printing why) when
    /// slurm-wlm or munge is not installed, except under CI (env `CI` set), which installs them:
    /// there a missing program is a failure.
    pub fn start(name: &str, nodes: usize) -> Option<Slurm> {
        if let Some(missing) = missing_programs() {
            if std::env::var_os("CI").is_some() {
                panic!("{missing} missing (.ci/run installs slurm-wlm and munge)");
            }
            println!("skipped: {missing} missing (apt-get install --no-install-recommends slurm-wlm munge)");
            return None;
        }
        let mut last_error = String::new();
        for attempt in 0..3 {
            // Under /tmp, as in the recipe: a short path for the munge socket, in a directory
            // munged accepts (sticky parent, no group or world write).
            let dir = PathBuf::from(format!("/tmp/luatorch-slurm-{name}-{}-{attempt}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(dir.join("state")).unwrap();
            set_mode(&dir, 0o755);
            match Slurm::start_in(&dir, nodes) {
                Ok(s) => return Some(s),
                Err(e) => {
                    last_error = e;
                    let _ = std::fs::remove_dir_all(&dir);
                }
            }
        }
        panic!("the private Slurm did not start: {last_error}");
    }

    fn start_in(dir: &Path, nodes: usize) -> Result<Slurm, String> {
        let key = dir.join("munge.key");
        let out = run_cmd(
            Command::new(MUNGEKEY)
                .arg("--create")
                .arg(format!("--keyfile={}", key.display())),
            CMD_TIMEOUT,
        );
        if out.status != Some(0) {
            return Err(format!("mungekey failed: {}", out.stderr));
        }
        let munged = Command::new(MUNGED)
            .arg("--foreground")
            .arg(format!("--key-file={}", key.display()))
            .arg(format!("--socket={}", dir.join("munge.socket").display()))
            .arg(format!("--pid-file={}", dir.join("munged.pid").display()))
            .arg(format!("--log-file={}", dir.join("munged.log").display()))
            .arg(format!("--seed-file={}", dir.join("munged.seed").display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("spawn {MUNGED}: {e}"))?;
        // From here on, a failure stops what was started (the fixture's Drop does it).
        let mut s = Slurm {
            dir: dir.to_path_buf(),
            nodes,
            munged,
            slurmctld: None,
            slurmds: Vec::new(),
        };
        s.wait_for_file(&dir.join("munge.socket"), "munged")?;

        let ctld_port = free_port();
        let node_ports: Vec<u16> = (0..nodes).map(|_| free_port()).collect();
        write_conf(dir, ctld_port, &node_ports)?;
        s.slurmctld = Some(s.daemon(Command::new(SLURMCTLD).arg("-D"), "slurmctld")?);
        for i in 1..=nodes {
            std::fs::create_dir_all(dir.join(format!("spool-n{i}"))).unwrap();
            let d = s.daemon(Command::new(SLURMD).arg("-D").arg("-N").arg(format!("n{i}")), "slurmd")?;
            s.slurmds.push(d);
        }
        s.wait_idle()?;
        Ok(s)
    }

    /// The slurm.conf path: what `SLURM_CONF` must name for Slurm's commands to use this cluster.
    pub fn conf(&self) -> PathBuf {
        self.dir.join("slurm.conf")
    }

    /// A Slurm client command (`srun`, `sbatch`, ...) set up for this cluster.
    pub fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.env("SLURM_CONF", self.conf());
        for (k, _) in std::env::vars_os() {
            // Variables of an enclosing job would redirect srun into it.
            if k.to_str().is_some_and(|k| k.starts_with("SLURM_") && k != "SLURM_CONF") {
                cmd.env_remove(&k);
            }
        }
        cmd
    }

    /// Runs `srun args...` from `cwd`, killing it after `timeout` (status None then).
    pub fn srun(&self, args: &[&str], cwd: &Path, timeout: Duration) -> Output {
        let mut cmd = self.command("srun");
        cmd.args(args).current_dir(cwd);
        run_cmd(&mut cmd, timeout)
    }

    /// The daemons' logs, for failure messages.
    pub fn logs(&self) -> String {
        let mut names = vec!["munged.log".to_string(), "slurmctld.log".to_string()];
        names.extend((1..=self.nodes).map(|i| format!("slurmd-n{i}.log")));
        names
            .iter()
            .map(|n| {
                let text = std::fs::read_to_string(self.dir.join(n)).unwrap_or_default();
                format!("--- {n}\n{text}")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn daemon(&mut self, cmd: &mut Command, what: &str) -> Result<Child, String> {
        cmd.env("SLURM_CONF", self.conf())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("spawn {what}: {e}"))
    }

    fn wait_for_file(&mut self, path: &Path, what: &str) -> Result<(), String> {
        let deadline = Instant::now() + START_TIMEOUT;
        while !path.exists() {
            if let Some(status) = self.munged.try_wait().unwrap() {
                return Err(format!("{what} exited ({status})\n{}", self.logs()));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "no {} after {START_TIMEOUT:?}\n{}",
                    path.display(),
                    self.logs()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    /// Waits until every node shows idle, or a daemon exits, or START_TIMEOUT passes.
    fn wait_idle(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + START_TIMEOUT;
        let want = self.nodes.to_string();
        loop {
            for (what, child) in self
                .slurmctld
                .iter_mut()
                .map(|c| ("slurmctld", c))
                .chain(self.slurmds.iter_mut().map(|c| ("slurmd", c)))
                .chain(std::iter::once(("munged", &mut self.munged)))
            {
                if let Some(status) = child.try_wait().unwrap() {
                    return Err(format!("{what} exited ({status})\n{}", self.logs()));
                }
            }
            let out = run_cmd(
                self.command("sinfo").args(["-h", "-t", "idle", "-o", "%D"]),
                CMD_TIMEOUT,
            );
            if out.status == Some(0) && out.stdout.trim() == want {
                return Ok(());
            }
            let last = format!(
                "sinfo: status {:?}, {:?} {:?}",
                out.status,
                out.stdout.trim(),
                out.stderr.trim()
            );
            if Instant::now() > deadline {
                return Err(format!(
                    "the nodes did not show idle within {START_TIMEOUT:?} ({last})\n{}",
                    self.logs()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The ids of the jobs in the queue (empty when squeue fails).
    fn jobs(&self) -> Vec<String> {
        let out = run_cmd(self.command("squeue").args(["-h", "-o", "%i"]), CMD_TIMEOUT);
        out.stdout.split_whitespace().map(str::to_string).collect()
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("--- Slurm logs ({})\n{}", self.dir.display(), self.logs());
        }
        // Jobs first: their steps outlive the daemons otherwise (recipe, obstacle 7).
        let ctld_up = self
            .slurmctld
            .as_mut()
            .is_some_and(|c| matches!(c.try_wait(), Ok(None)));
        if ctld_up {
            let jobs = self.jobs();
            if !jobs.is_empty() {
                let _ = run_cmd(self.command("scancel").arg("--full").args(&jobs), CMD_TIMEOUT);
                let deadline = Instant::now() + STOP_TIMEOUT;
                while !self.jobs().is_empty() && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        }
        // Whatever the slurmd started (job steps and their tasks), in case a job did not end.
        let mut leftovers = Vec::new();
        for d in &self.slurmds {
            leftovers.extend(descendants(d.id() as i32));
        }
        let mut daemons: Vec<&mut Child> = self.slurmds.iter_mut().collect();
        daemons.extend(self.slurmctld.as_mut());
        stop_all(daemons);
        for pid in leftovers {
            if is_alive(pid) {
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
        }
        stop_all(vec![&mut self.munged]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// SIGTERM, then SIGKILL for what is still running after STOP_TIMEOUT; reaps them all.
fn stop_all(children: Vec<&mut Child>) {
    let mut children: Vec<&mut Child> = children;
    // Only the ones not reaped yet: a reaped child's pid may belong to another process by now.
    children.retain_mut(|c| matches!(c.try_wait(), Ok(None)));
    for c in &children {
        let _ = kill(Pid::from_raw(c.id() as i32), Signal::SIGTERM);
    }
    let deadline = Instant::now() + STOP_TIMEOUT;
    for c in children {
        loop {
            match c.try_wait() {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) if Instant::now() > deadline => {
                    let _ = c.kill();
                    let _ = c.wait();
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }
}

fn write_conf(dir: &Path, ctld_port: u16, node_ports: &[u16]) -> Result<(), String> {
    let user = nix::unistd::User::from_uid(nix::unistd::geteuid())
        .map_err(|e| format!("look up the current user: {e}"))?
        .ok_or("the current user has no passwd entry")?
        .name;
    let d = dir.display();
    let mut conf = format!(
        "ClusterName=luatorchtest
SlurmctldHost=localhost
SlurmUser={user}
SlurmdUser={user}
SlurmctldPort={ctld_port}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={d}/munge.socket
MailProg=/bin/true
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=batch_sched_delay=0
SlurmdParameters=config_overrides
ReturnToService=2
InactiveLimit=0
KillWait=5
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool-%n
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd-%n.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd-%n.log
"
    );
    // One NodeName line per node: each slurmd listens on its own free port.
    for (i, port) in node_ports.iter().enumerate() {
        conf.push_str(&format!(
            "NodeName=n{} NodeHostname=localhost NodeAddr=127.0.0.1 Port={port} CPUs={CPUS_PER_NODE} State=UNKNOWN\n",
            i + 1
        ));
    }
    let names = (1..=node_ports.len())
        .map(|i| format!("n{i}"))
        .collect::<Vec<_>>()
        .join(",");
    conf.push_str(&format!(
        "PartitionName=debug Nodes={names} Default=YES MaxTime=INFINITE State=UP\n"
    ));
    std::fs::write(dir.join("slurm.conf"), conf).map_err(|e| format!("write slurm.conf: {e}"))
}

/// The first program of the fixture that is not installed, named; None when all are.
fn missing_programs() -> Option<String> {
    for p in [MUNGED, MUNGEKEY, SLURMCTLD, SLURMD] {
        if !Path::new(p).exists() {
            return Some(p.to_string());
        }
    }
    CLIENTS.iter().find(|c| !in_path(OsStr::new(c))).map(|c| c.to_string())
}

fn in_path(program: &OsStr) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
        .unwrap_or(false)
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Every live descendant of `root`, from /proc.
fn descendants(root: i32) -> Vec<i32> {
    let mut parents = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for e in entries.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            // Field 4 (ppid), after the parenthesised command name.
            let ppid = stat
                .rfind(')')
                .and_then(|i| stat[i + 1..].split_whitespace().nth(1))
                .and_then(|s| s.parse::<i32>().ok());
            if let Some(ppid) = ppid {
                parents.push((pid, ppid));
            }
        }
    }
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(parents.iter().filter(|&&(_, pp)| pp == p).map(|&(pid, _)| pid));
        i += 1;
    }
    found.remove(0);
    found
}
