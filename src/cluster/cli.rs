//! `thcluster`: start, stop and look at a cluster of engines.
//!
//! ```text
//! thcluster start [-n N] [--profile P] [--daemonize] [--ip ADDR] [--port PORT]
//!                 [--hosts a:4,b:8] [--slurm | --sbatch] [--srun-args ARGS]
//!                 [--restarts K] [--th PATH] [--protocol CMD]
//! thcluster stop [--profile P]
//! thcluster status [--profile P]
//! ```

use std::io::{BufRead, Write};
use std::os::fd::{FromRawFd, IntoRawFd};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::client::Client;
use super::connfile;
use super::controller::{Controller, STOP_REQUESTED};
use super::launcher::{Launcher, Options, Place};
use super::protocol::hostname;
use crate::error::{Error, Result};

pub const USAGE: &str = "Usage: thcluster start|stop|status [options]

thcluster start [options]     start a controller and its engines
  -n N                 engines (default: this machine's cores; with --hosts: the hosts' counts)
  --profile P          the cluster's name (default: default)
  --daemonize          run in the background; return once the controller is up
  --ip ADDR            the address to listen on (default 127.0.0.1: this machine only)
  --port PORT          the port to listen on (default: any free one)
  --hosts a:4,b:8      engines on other machines, over ssh (host:count)
  --protocol CMD       the remote shell for --hosts (default: ssh)
  --slurm              start each engine with srun (inside an allocation, or as its own job)
  --sbatch             submit the engines as one sbatch job (they read the connection file)
  --srun-args ARGS     more arguments for srun and sbatch
  --restarts K         how many times an engine that dies is started again (default 5)
  --th PATH            the th to run engines with (default: the th next to thcluster)
thcluster stop [--profile P]     stop the cluster: engines, controller, connection file
thcluster status [--profile P]   the engines, their hosts, state, tasks and memory
";

struct StartArgs {
    n: Option<u32>,
    profile: String,
    daemonize: bool,
    ip: String,
    port: u16,
    hosts: Vec<(String, u32)>,
    slurm: bool,
    sbatch: bool,
    srun_args: Vec<String>,
    restarts: u32,
    th: Option<String>,
    protocol: Option<String>,
}

fn bad(msg: impl Into<String>) -> Error {
    Error::argument(msg.into())
}

fn parse_hosts(s: &str) -> Result<Vec<(String, u32)>> {
    s.split(',')
        .filter(|h| !h.is_empty())
        .map(|h| {
            let (host, count) = match h.rsplit_once(':') {
                Some((host, c)) => (
                    host,
                    c.parse::<u32>()
                        .map_err(|_| bad(format!("bad engine count in '{h}'")))?,
                ),
                None => (h, 1),
            };
            if host.is_empty() || count == 0 {
                return Err(bad(format!("bad host '{h}' (host:count)")));
            }
            Ok((host.to_string(), count))
        })
        .collect()
}

fn parse_start(args: &[String]) -> Result<StartArgs> {
    let mut a = StartArgs {
        n: None,
        profile: "default".into(),
        daemonize: false,
        ip: "127.0.0.1".into(),
        port: 0,
        hosts: Vec::new(),
        slurm: false,
        sbatch: false,
        srun_args: Vec::new(),
        restarts: 5,
        th: None,
        protocol: None,
    };
    let mut i = 0;
    let value = |i: &mut usize, flag: &str| -> Result<String> {
        *i += 1;
        args.get(*i)
            .cloned()
            .ok_or_else(|| bad(format!("{flag} needs a value")))
    };
    while i < args.len() {
        let flag = args[i].as_str();
        match flag {
            "-n" | "--n" => {
                a.n = Some(
                    value(&mut i, flag)?
                        .parse()
                        .map_err(|_| bad("-n needs a number of engines"))?,
                )
            }
            "--profile" => a.profile = value(&mut i, flag)?,
            "--daemonize" | "--daemon" => a.daemonize = true,
            "--ip" => a.ip = value(&mut i, flag)?,
            "--port" => {
                a.port = value(&mut i, flag)?
                    .parse()
                    .map_err(|_| bad("--port needs a port number"))?
            }
            "--hosts" => a.hosts = parse_hosts(&value(&mut i, flag)?)?,
            "--slurm" => a.slurm = true,
            "--sbatch" => a.sbatch = true,
            "--srun-args" => a.srun_args = value(&mut i, flag)?.split_whitespace().map(String::from).collect(),
            "--restarts" => {
                a.restarts = value(&mut i, flag)?
                    .parse()
                    .map_err(|_| bad("--restarts needs a number"))?
            }
            "--th" => a.th = Some(value(&mut i, flag)?),
            "--protocol" => a.protocol = Some(value(&mut i, flag)?),
            other => return Err(bad(format!("unknown option '{other}'"))),
        }
        i += 1;
    }
    connfile::check_profile(&a.profile)?;
    if a.slurm && a.sbatch {
        return Err(bad("--slurm and --sbatch exclude each other"));
    }
    if !a.hosts.is_empty() && (a.slurm || a.sbatch) {
        return Err(bad("--hosts and Slurm exclude each other"));
    }
    if a.n == Some(0) {
        return Err(bad("-n must be at least 1"));
    }
    Ok(a)
}

fn profile_arg(args: &[String]) -> Result<String> {
    let mut profile = "default".to_string();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--profile" => {
                i += 1;
                profile = args.get(i).cloned().ok_or_else(|| bad("--profile needs a value"))?;
            }
            other => return Err(bad(format!("unknown option '{other}'"))),
        }
        i += 1;
    }
    connfile::check_profile(&profile)?;
    Ok(profile)
}

fn alive(pid: u32) -> bool {
    if pid == 0 {
        return false;
    }
    // SAFETY: signal 0 only checks.
    if unsafe { libc::kill(pid as i32, 0) } != 0 {
        return std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH);
    }
    // A zombie is as good as gone.
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    !matches!(
        stat.rsplit_once(')').map(|(_, r)| r.trim_start().chars().next()),
        Some(Some('Z' | 'X'))
    )
}

/// The th that engines run: --th, else `th` next to this binary, else `th` on PATH.
fn th_path(given: Option<String>) -> String {
    if let Some(t) = given {
        return t;
    }
    if let Ok(me) = std::env::current_exe()
        && let Some(dir) = me.parent()
    {
        let th = dir.join("th");
        if th.exists() {
            return th.to_string_lossy().into_owned();
        }
    }
    "th".into()
}

extern "C" fn on_stop_signal(_: libc::c_int) {
    STOP_REQUESTED.store(true, Ordering::SeqCst);
}

fn start(args: &[String]) -> Result<()> {
    let a = parse_start(args)?;
    // A live cluster of that name is left alone; a dead one's file is removed.
    if let Ok(c) = connfile::read(&a.profile) {
        if c.host == hostname() && alive(c.pid) {
            return Err(bad(format!(
                "cluster '{}' is already running (controller pid {}); stop it first",
                a.profile, c.pid
            )));
        }
        if c.host == hostname() {
            let _ = std::fs::remove_file(connfile::path(&a.profile)?);
        }
    }
    let ready = if a.daemonize {
        Some(daemonize(&a.profile)?)
    } else {
        None
    };
    let result = run_controller(&a, ready.as_ref());
    if let (Err(e), Some(fd)) = (&result, ready) {
        let mut w = unsafe { std::fs::File::from_raw_fd(fd) };
        let _ = writeln!(w, "error: {e}");
    }
    result
}

fn run_controller(a: &StartArgs, ready: Option<&i32>) -> Result<()> {
    let opts = Options {
        th: th_path(a.th.clone()),
        protocol: a.protocol.clone(),
        srun_args: a.srun_args.clone(),
        restarts: a.restarts,
    };
    let mut ctl = Controller::bind(&a.profile, &a.ip, a.port, |endpoint, secret| {
        Launcher::new(opts, endpoint, secret)
    })?;
    let path = connfile::write(&ctl.connection())?;
    let cores = std::thread::available_parallelism()
        .map(|n| n.get() as u32)
        .unwrap_or(1);
    let mut started = 0;
    let launched = (|| -> Result<()> {
        if a.sbatch {
            let n = a.n.unwrap_or(cores);
            let job = ctl.launcher().sbatch(n, &path, &a.profile, &a.srun_args)?;
            eprintln!("thcluster: submitted {n} engines as Slurm job {job}");
            started = n;
        } else if !a.hosts.is_empty() {
            for (host, count) in &a.hosts {
                for _ in 0..*count {
                    ctl.launcher().add(Place::Ssh(host.clone()))?;
                    started += 1;
                }
            }
        } else {
            let place = if a.slurm { Place::Srun } else { Place::Local };
            for _ in 0..a.n.unwrap_or(cores) {
                ctl.launcher().add(place.clone())?;
                started += 1;
            }
        }
        Ok(())
    })();
    if let Err(e) = launched {
        ctl.launcher().stop_all();
        connfile::remove_if_ours(&a.profile, std::process::id());
        return Err(e);
    }
    let line = format!(
        "thcluster: cluster '{}' started: {started} engines, controller at {} (pid {}); connection file {}",
        a.profile,
        ctl.endpoint,
        std::process::id(),
        path.display()
    );
    match ready {
        Some(&fd) => {
            // SAFETY: the write end of the pipe the parent reads; ours alone, closed here.
            let mut w = unsafe { std::fs::File::from_raw_fd(fd) };
            let _ = writeln!(w, "{line}");
            eprintln!("{line}");
        }
        None => println!("{line}"),
    }
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGINT, on_stop_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_stop_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGHUP, on_stop_signal as *const () as libc::sighandler_t);
    }
    let served = ctl.serve();
    connfile::remove_if_ours(&a.profile, std::process::id());
    served
}

/// Forks into the background: the parent waits until the controller says it is up (or why
/// not), prints that, and exits; the child goes on with its own session, its output in
/// `<profile>.log` beside the connection file. Returns the child's end of the pipe.
fn daemonize(profile: &str) -> Result<i32> {
    // The directory is made here first: 0700, as for the connection file it will hold.
    let log_path = connfile::make_dir()?.join(format!("{profile}.log"));
    let mut fds = [0; 2];
    // SAFETY: pipe fills two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(Error::io("cannot make a pipe"));
    }
    // SAFETY: this process has one thread here (nothing has started any), so fork is safe.
    match unsafe { libc::fork() } {
        -1 => Err(Error::io("cannot fork")),
        0 => {
            // SAFETY: closes our copy of the read end; setsid in the fresh child.
            unsafe {
                libc::close(fds[0]);
                libc::setsid();
            }
            let log = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&log_path)
                .map_err(|e| Error::io(format!("cannot open {}: {e}", log_path.display())))?;
            let null = std::fs::File::open("/dev/null").map_err(|e| Error::io(e.to_string()))?;
            let (log, null) = (log.into_raw_fd(), null.into_raw_fd());
            // SAFETY: plain descriptor juggling on descriptors we own.
            unsafe {
                libc::dup2(null, 0);
                libc::dup2(log, 1);
                libc::dup2(log, 2);
                libc::close(null);
                libc::close(log);
            }
            Ok(fds[1])
        }
        _ => {
            // SAFETY: closes our copy of the write end; the read end is ours.
            unsafe { libc::close(fds[1]) };
            let r = unsafe { std::fs::File::from_raw_fd(fds[0]) };
            let mut line = String::new();
            let _ = std::io::BufReader::new(r).read_line(&mut line);
            let line = line.trim();
            if let Some(msg) = line.strip_prefix("error: ") {
                eprintln!("thcluster: {msg}");
                std::process::exit(1);
            }
            if line.is_empty() {
                eprintln!(
                    "thcluster: the controller ended before it was up (see {})",
                    log_path.display()
                );
                std::process::exit(1);
            }
            println!("{line}");
            std::process::exit(0);
        }
    }
}

fn stop(args: &[String]) -> Result<()> {
    let profile = profile_arg(args)?;
    let conn = connfile::read(&profile)?;
    let here = conn.host == hostname();
    let asked = Client::connect(&profile, Duration::from_secs(5)).and_then(|mut c| c.stop_now(Duration::from_secs(10)));
    if let Err(e) = &asked
        && !here
    {
        return Err(Error::peer(format!("cannot reach cluster '{profile}': {e}")));
    }
    if here {
        let deadline = Instant::now() + Duration::from_secs(15);
        let mut termed = asked.is_ok();
        while alive(conn.pid) && Instant::now() < deadline {
            if !termed {
                // SAFETY: signals the controller named in our own connection file.
                unsafe { libc::kill(conn.pid as i32, libc::SIGTERM) };
                termed = true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if alive(conn.pid) {
            // SAFETY: as above; it did not end in time.
            unsafe { libc::kill(conn.pid as i32, libc::SIGKILL) };
        }
        connfile::remove_if_ours(&profile, conn.pid);
    }
    println!("thcluster: cluster '{profile}' stopped");
    Ok(())
}

fn mib(kb: u64) -> String {
    format!("{:.1} MiB", kb as f64 / 1024.0)
}

fn status(args: &[String]) -> Result<()> {
    let profile = profile_arg(args)?;
    let mut c = Client::connect(&profile, Duration::from_secs(5))?;
    let s = c.status_now(Duration::from_secs(10))?;
    println!(
        "cluster '{}': controller pid {} on {} ({}), {} engines, {} tasks done, {} queued, {} restarts",
        s.profile,
        s.pid,
        s.host,
        mib(s.rss_kb),
        s.engines.len(),
        s.tasks_done,
        s.queued,
        s.restarts
    );
    println!(
        "{:>4}  {:<20} {:>8}  {:<5} {:>10} {:>7} {:>12}",
        "id", "host", "pid", "state", "tasks", "queued", "memory"
    );
    for e in &s.engines {
        println!(
            "{:>4}  {:<20} {:>8}  {:<5} {:>10} {:>7} {:>12}",
            e.id,
            e.host,
            e.pid,
            e.state,
            e.tasks_done,
            e.queued,
            mib(e.rss_kb)
        );
    }
    Ok(())
}

/// The command line; returns the exit status.
pub fn main(args: Vec<String>) -> i32 {
    let Some(cmd) = args.first() else {
        eprint!("{USAGE}");
        return 1;
    };
    let rest = &args[1..];
    let r = match cmd.as_str() {
        "start" => start(rest),
        "stop" => stop(rest),
        "status" => status(rest),
        "-h" | "--help" | "help" => {
            print!("{USAGE}");
            return 0;
        }
        other => {
            eprintln!("thcluster: unknown command '{other}'\n\n{USAGE}");
            return 1;
        }
    };
    match r {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("thcluster: {}", e.message());
            1
        }
    }
}
