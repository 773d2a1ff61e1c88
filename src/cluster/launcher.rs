//! Starting a cluster's engines and keeping them alive: local `th` processes, `th` over ssh, or
//! `srun` steps under Slurm, each reading the bootstrap line on its stdin and dying with the
//! controller (PDEATHSIG locally; ssh's or srun's stdin closing otherwise). An engine that ends
//! while the cluster runs is started again in the same slot, up to a limit per slot; an `sbatch`
//! job of engines is one the controller cannot restart, only cancel.

use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use super::protocol::Bootstrap;
use crate::error::{Error, Result};
use crate::process::launch::{self, Spec};

/// What every launched engine runs.
pub const ENGINE_CHUNK: &str = "require([[cluster]])._engine()";

/// How long engines asked to quit get before their stdin closes.
const QUIT_WAIT: Duration = Duration::from_secs(1);
/// How long an engine gets after that before it is killed.
const QUIT_GRACE: Duration = Duration::from_secs(3);

#[derive(Debug, Clone, PartialEq)]
pub enum Place {
    Local,
    /// Over ssh (or the protocol given) on this host.
    Ssh(String),
    /// One `srun` step, placed by Slurm.
    Srun,
}

impl Place {
    pub fn describe(&self) -> String {
        match self {
            Place::Local => "local".into(),
            Place::Ssh(h) => format!("ssh {h}"),
            Place::Srun => "srun".into(),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The `th` to run (locally: an absolute path; remotely: as the remote shell finds it).
    pub th: String,
    /// The remote shell for `Place::Ssh` (`ssh` by default).
    pub protocol: Option<String>,
    /// Extra arguments for every `srun`.
    pub srun_args: Vec<String>,
    /// How many times one slot's engine is started again after it ended.
    pub restarts: u32,
}

struct Slot {
    place: Place,
    process: Option<Child>,
    _stdin: Option<ChildStdin>,
    restarts: u32,
    started: Instant,
}

/// An engine process that ended.
pub struct Ended {
    pub slot: u32,
    pub pid: u32,
    pub how: String,
    pub restarted: bool,
}

pub struct Launcher {
    opts: Options,
    bootstrap: Bootstrap,
    /// Slot n is `slots[n - 1]`.
    slots: Vec<Slot>,
    restarts_used: u32,
    /// `sbatch` jobs submitted, cancelled at the end.
    jobs: Vec<String>,
}

impl Launcher {
    pub fn new(opts: Options, endpoint: &str, secret: &[u8]) -> Launcher {
        Launcher {
            opts,
            bootstrap: Bootstrap {
                endpoint: endpoint.to_string(),
                slot: 0,
                secret: secret.to_vec(),
            },
            slots: Vec::new(),
            restarts_used: 0,
            jobs: Vec::new(),
        }
    }

    pub fn restarts_used(&self) -> u32 {
        self.restarts_used
    }

    /// Adds a slot at `place` and starts its engine.
    pub fn add(&mut self, place: Place) -> Result<u32> {
        self.slots.push(Slot {
            place,
            process: None,
            _stdin: None,
            restarts: 0,
            started: Instant::now(),
        });
        let slot = self.slots.len() as u32;
        self.start(slot)?;
        Ok(slot)
    }

    fn start(&mut self, slot: u32) -> Result<()> {
        let line = Bootstrap {
            slot,
            ..self.bootstrap.clone()
        }
        .line();
        let s = &mut self.slots[slot as usize - 1];
        let (process, stdin) = match &s.place {
            Place::Local | Place::Ssh(_) => {
                let host = match &s.place {
                    Place::Ssh(h) => Some(h.clone()),
                    _ => None,
                };
                let spec = Spec {
                    host,
                    protocol: self.opts.protocol.clone().or_else(|| Some("ssh".into())),
                    program: Some(self.opts.th.clone()),
                    connect_timeout: 30,
                    search_paths: None,
                    chunk: ENGINE_CHUNK,
                };
                let l = launch::spawn(&spec, &line)?;
                (l.process, l.stdin)
            }
            Place::Srun => spawn_srun(&self.opts, &line)?,
        };
        s.process = Some(process);
        s._stdin = Some(stdin);
        s.started = Instant::now();
        Ok(())
    }

    /// The process id of a slot's current process (ssh's or srun's for those places).
    pub fn pid(&self, slot: u32) -> Option<u32> {
        self.slots
            .get(slot.checked_sub(1)? as usize)?
            .process
            .as_ref()
            .map(|p| p.id())
    }

    /// Notices engines that ended, and starts them again while their slot has restarts left
    /// (never when `stopping`).
    pub fn reap(&mut self, stopping: bool) -> Vec<Ended> {
        let mut ended = Vec::new();
        for i in 0..self.slots.len() {
            let s = &mut self.slots[i];
            let Some(p) = s.process.as_mut() else { continue };
            let Ok(Some(status)) = p.try_wait() else { continue };
            let pid = p.id();
            s.process = None;
            s._stdin = None;
            let how = launch::describe_status(status);
            let slot = i as u32 + 1;
            let mut restarted = false;
            if !stopping && s.restarts < self.opts.restarts {
                s.restarts += 1;
                self.restarts_used += 1;
                match self.start(slot) {
                    Ok(()) => restarted = true,
                    Err(e) => eprintln!("thcluster: cannot restart engine slot {slot}: {e}"),
                }
            }
            ended.push(Ended {
                slot,
                pid,
                how,
                restarted,
            });
        }
        ended
    }

    /// Kills a slot's process (a task ran past its time); `reap` then restarts it.
    pub fn kill(&mut self, slot: u32) {
        if let Some(s) = self.slots.get_mut(slot.wrapping_sub(1) as usize)
            && let Some(p) = s.process.as_mut()
        {
            let _ = p.kill();
        }
    }

    /// Submits `n` engines as one `sbatch` job that reads the connection file at `connfile`; the
    /// job's output goes to `<profile>-<job>.out` beside that file.
    pub fn sbatch(&mut self, n: u32, connfile: &std::path::Path, profile: &str, extra: &[String]) -> Result<String> {
        // The job may start in another directory than ours: the file by its absolute path.
        let connfile = std::path::absolute(connfile).unwrap_or_else(|_| connfile.to_path_buf());
        let script = sbatch_script(&self.opts, &connfile, profile);
        let output = connfile.with_file_name(format!("{profile}-%j.out"));
        let out = Command::new("sbatch")
            .arg("--parsable")
            .arg(format!("--job-name=thcluster-{profile}"))
            .arg(format!("--ntasks={n}"))
            .arg(format!("--output={}", output.display()))
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                if let Some(mut i) = c.stdin.take() {
                    i.write_all(&script)?;
                }
                c.wait_with_output()
            })
            .map_err(|e| Error::io(format!("cannot run sbatch: {e}")))?;
        if !out.status.success() {
            return Err(Error::io(format!(
                "sbatch failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let job = String::from_utf8_lossy(&out.stdout)
            .trim()
            .split(';')
            .next()
            .unwrap_or("")
            .to_string();
        if job.is_empty() {
            return Err(Error::io("sbatch printed no job id"));
        }
        self.jobs.push(job.clone());
        Ok(job)
    }

    /// Waits up to `limit` until no slot's process runs.
    fn wait_ended(&mut self, limit: Duration) {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline
            && self
                .slots
                .iter_mut()
                .any(|s| s.process.as_mut().is_some_and(|p| matches!(p.try_wait(), Ok(None))))
        {
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Ends every engine: they were asked to quit, and get `QUIT_WAIT` to do so; then their
    /// stdin closes (which ends a remote engine that the quit did not reach), and after
    /// `QUIT_GRACE` the rest are killed; sbatch jobs are cancelled.
    pub fn stop_all(&mut self) {
        // Closing stdin at once would race the quit: the engine would end with status 1 (its
        // stdin watch), which srun reports as an error.
        self.wait_ended(QUIT_WAIT);
        for s in &mut self.slots {
            s._stdin = None;
        }
        self.wait_ended(QUIT_GRACE);
        for s in &mut self.slots {
            if let Some(mut p) = s.process.take() {
                let _ = p.kill();
                let _ = p.wait();
            }
        }
        for job in self.jobs.drain(..) {
            let _ = Command::new("scancel")
                .arg(&job)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// The batch script of an `sbatch` job of engines: one srun step whose tasks are the engines,
/// each reading the connection file (every word quoted for the shell, the path and profile as
/// Lua long strings).
fn sbatch_script(opts: &Options, connfile: &std::path::Path, profile: &str) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let path = launch::long_string(connfile.as_os_str().as_bytes());
    let profile = launch::long_string(profile.as_bytes());
    let chunk = [
        b"require([[cluster]])._engine_file(".as_slice(),
        &path,
        b", ",
        &profile,
        b")",
    ]
    .concat();
    let mut words = vec!["srun".to_string()];
    words.extend(opts.srun_args.iter().map(|a| launch::shell_quote(a)));
    words.push(launch::shell_quote(&opts.th));
    words.push("-e".into());
    let mut script = format!("#!/bin/sh\nexec {} ", words.join(" ")).into_bytes();
    // The chunk may hold any byte the path does: quoted as bytes, as shell_quote does text.
    script.push(b'\'');
    for &b in &chunk {
        if b == b'\'' {
            script.extend_from_slice(b"'\\''");
        } else {
            script.push(b);
        }
    }
    script.extend_from_slice(b"'\n");
    script
}

/// One `srun` step running one engine; the bootstrap line goes to its stdin, which srun passes
/// on to the task.
fn spawn_srun(opts: &Options, line: &str) -> Result<(Child, ChildStdin)> {
    use std::io::Write;
    let mut cmd = Command::new("srun");
    cmd.args(["--nodes=1", "--ntasks=1", "--kill-on-bad-exit=1", "--quiet"])
        .args(&opts.srun_args)
        .arg(&opts.th)
        .arg("-e")
        .arg(ENGINE_CHUNK)
        .stdin(Stdio::piped());
    // srun cancels its step when it gets SIGTERM: the engine goes with the controller.
    launch::die_with_parent(&mut cmd);
    let mut child = cmd.spawn().map_err(|e| Error::io(format!("cannot run srun: {e}")))?;
    let mut stdin = child.stdin.take().ok_or_else(|| Error::io("no stdin pipe"))?;
    let _ = stdin.write_all(line.as_bytes());
    let _ = stdin.flush();
    Ok((child, stdin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sbatch_scripts_quote_every_word() {
        let opts = Options {
            th: "/opt/my th/th".into(),
            srun_args: vec!["--overcommit".into(), "--comment=a b".into()],
            ..Options::default()
        };
        let path = std::path::Path::new("/tmp/it's ]] here/p.json");
        let script = String::from_utf8(sbatch_script(&opts, path, "p")).unwrap();
        let (first, rest) = script.split_once('\n').unwrap();
        assert_eq!(first, "#!/bin/sh");
        let words = rest.strip_prefix("exec srun ").expect("exec srun");
        // What the shell makes of the words, one per line.
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("printf '%s\\n' {words}"))
            .output()
            .unwrap();
        let args: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        assert_eq!(
            args,
            [
                "--overcommit",
                "--comment=a b",
                "/opt/my th/th",
                "-e",
                "require([[cluster]])._engine_file([=[/tmp/it's ]] here/p.json]=], [[p]])"
            ]
        );
    }
}
