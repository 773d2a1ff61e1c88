//! A cluster of engines through the real binaries: `thcluster start/status/stop`, the direct and
//! load-balanced views and async results (tests/lua/cluster/), engine death with and without
//! retries, task time limits, a wrong secret refused, nothing listening beyond loopback, and no
//! engine, connection file or shared-memory segment left after `stop`, after SIGTERM to a
//! foreground controller, or after the controller is killed. The ssh and Slurm launchers are in
//! cluster_launch.rs.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{Output, lua_dir, run_cmd, th_path};

const WAIT: Duration = Duration::from_secs(60);

fn thcluster_path() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_thcluster"))
}

/// A cluster started for one test, in a directory of its own; stopped when dropped.
struct Cluster {
    dir: PathBuf,
    profile: String,
}

fn alive(pid: i32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    !stat.is_empty()
        && !matches!(
            stat.rsplit_once(')').and_then(|(_, r)| r.trim_start().chars().next()),
            Some('Z' | 'X')
        )
}

fn wait_gone(pids: &[i32]) -> Vec<i32> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let left: Vec<i32> = pids.iter().copied().filter(|&p| alive(p)).collect();
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Cluster {
    fn cmd(dir: &Path, args: &[&str]) -> Output {
        run_cmd(
            Command::new(thcluster_path())
                .args(args)
                .env("LUATORCH_CLUSTER_DIR", dir)
                .arg("--th")
                .arg(th_path()),
            WAIT,
        )
    }

    fn start(name: &str, n: u32) -> Cluster {
        let dir = common::temp_dir(&format!("cluster-{name}"));
        let profile = format!("{name}{}", std::process::id());
        let out = run_cmd(
            Command::new(thcluster_path())
                .args([
                    "start",
                    "-n",
                    &n.to_string(),
                    "--profile",
                    &profile,
                    "--daemonize",
                    "--th",
                ])
                .arg(th_path())
                .env("LUATORCH_CLUSTER_DIR", &dir),
            WAIT,
        );
        assert_eq!(out.status, Some(0), "start failed\n{}\n{}", out.stdout, out.stderr);
        assert!(
            out.stdout
                .contains(&format!("cluster '{profile}' started: {n} engines")),
            "{}",
            out.stdout
        );
        Cluster { dir, profile }
    }

    fn connection(&self) -> serde_json::Value {
        let text = std::fs::read_to_string(self.dir.join(format!("{}.json", self.profile))).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    fn controller_pid(&self) -> i32 {
        self.connection()["pid"].as_i64().unwrap() as i32
    }

    fn th(&self, script: &str, extra: &[&str]) -> Output {
        let path = format!("cluster/{script}");
        let mut args = vec![path.as_str(), self.profile.as_str()];
        args.extend_from_slice(extra);
        let dir = self.dir.display().to_string();
        common::run_th_in(&lua_dir(), &args, "", &[("LUATORCH_CLUSTER_DIR", &dir)])
    }

    fn assert_script(&self, script: &str, extra: &[&str]) {
        let out = self.th(script, extra);
        assert!(
            out.status == Some(0) && out.stdout.ends_with("ok\n"),
            "{script} failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}\n--- controller log\n{}",
            out.status,
            out.stdout,
            out.stderr,
            std::fs::read_to_string(self.dir.join(format!("{}.log", self.profile))).unwrap_or_default()
        );
    }

    /// The engines' pids, from `thcluster status`.
    fn engine_pids(&self) -> Vec<i32> {
        let out = Cluster::cmd_profile(&self.dir, "status", &self.profile);
        assert_eq!(out.status, Some(0), "{}\n{}", out.stdout, out.stderr);
        out.stdout
            .lines()
            .skip(2)
            .filter_map(|l| l.split_whitespace().nth(2)?.parse().ok())
            .collect()
    }

    fn cmd_profile(dir: &Path, what: &str, profile: &str) -> Output {
        run_cmd(
            Command::new(thcluster_path())
                .args([what, "--profile", profile])
                .env("LUATORCH_CLUSTER_DIR", dir),
            WAIT,
        )
    }

    fn segments_of(pid: i32) -> Vec<String> {
        let tag = format!("_{pid}-");
        std::fs::read_dir("/dev/shm")
            .map(|d| {
                d.flatten()
                    .filter_map(|e| e.file_name().to_str().map(String::from))
                    .filter(|n| n.starts_with("luatorch-") && n.contains(&tag))
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Ok(text) = std::fs::read_to_string(self.dir.join(format!("{}.json", self.profile))) {
            let _ = Cluster::cmd_profile(&self.dir, "stop", &self.profile);
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text)
                && let Some(pid) = v["pid"].as_i64()
                && alive(pid as i32)
            {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid as i32),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
    }
}

#[test]
fn direct_view() {
    let c = Cluster::start("direct", 2);
    c.assert_script("direct.lua", &[]);
}

#[test]
fn load_balanced_view_and_async_results() {
    let c = Cluster::start("balanced", 2);
    c.assert_script("balanced.lua", &[]);
}

#[test]
fn wrong_arguments_name_the_function() {
    let c = Cluster::start("errors", 1);
    c.assert_script("errors.lua", &[]);
}

#[test]
fn engine_death_retries_and_time_limits() {
    let c = Cluster::start("death", 2);
    let scratch = common::temp_dir("cluster-death-scratch");
    c.assert_script("death.lua", &[&scratch.display().to_string()]);
}

#[test]
fn status_then_stop_leaves_nothing() {
    let c = Cluster::start("stop", 2);
    let conn = c.connection();
    let path = c.dir.join(format!("{}.json", c.profile));
    // The connection file is its owner's alone, and the controller listens on loopback only.
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    let endpoint = conn["endpoint"].as_str().unwrap().to_string();
    assert!(endpoint.starts_with("tcp://127.0.0.1:"), "{endpoint}");
    let port: u16 = endpoint.rsplit(':').next().unwrap().parse().unwrap();
    let listening: Vec<String> = std::fs::read_to_string("/proc/net/tcp")
        .unwrap()
        .lines()
        .chain(std::fs::read_to_string("/proc/net/tcp6").unwrap_or_default().lines())
        .filter(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.len() > 3 && f[3] == "0A" && f[1].ends_with(&format!(":{port:04X}"))
        })
        .map(String::from)
        .collect();
    assert_eq!(listening.len(), 1, "{listening:?}");
    assert!(
        listening[0].split_whitespace().nth(1).unwrap().starts_with("0100007F:"),
        "{listening:?}"
    );

    let wait = c.th("wait.lua", &["2"]);
    assert!(wait.stdout.ends_with("ok\n"), "{}\n{}", wait.stdout, wait.stderr);
    let status = Cluster::cmd_profile(&c.dir, "status", &c.profile);
    assert!(status.stdout.contains("2 engines"), "{}", status.stdout);
    assert!(status.stdout.contains("idle"), "{}", status.stdout);
    let engines = c.engine_pids();
    assert_eq!(engines.len(), 2, "{}", status.stdout);
    let ctl = c.controller_pid();
    let stop = Cluster::cmd_profile(&c.dir, "stop", &c.profile);
    assert_eq!(stop.status, Some(0), "{}\n{}", stop.stdout, stop.stderr);
    assert!(stop.stdout.contains("stopped"));
    let mut all = engines.clone();
    all.push(ctl);
    assert_eq!(wait_gone(&all), Vec::<i32>::new(), "processes left after stop");
    assert!(!path.exists(), "the connection file is removed");
    assert_eq!(Cluster::segments_of(ctl), Vec::<String>::new());
    // Stopping again says there is nothing to stop.
    let again = Cluster::cmd_profile(&c.dir, "stop", &c.profile);
    assert_eq!(again.status, Some(1));
    assert!(again.stderr.contains("no cluster"), "{}", again.stderr);
}

#[test]
fn a_killed_controller_takes_its_engines() {
    let c = Cluster::start("killed", 2);
    let wait = c.th("wait.lua", &["2"]);
    assert!(wait.stdout.ends_with("ok\n"), "{}\n{}", wait.stdout, wait.stderr);
    let engines = c.engine_pids();
    let ctl = c.controller_pid();
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(ctl), nix::sys::signal::Signal::SIGKILL).unwrap();
    let mut all = engines.clone();
    all.push(ctl);
    assert_eq!(wait_gone(&all), Vec::<i32>::new(), "engines outlived their controller");
    // The next cluster started on the machine removes what the killed one left in /dev/shm.
    let next = Cluster::start("after-kill", 1);
    drop(next);
    assert_eq!(Cluster::segments_of(ctl), Vec::<String>::new());
}

#[test]
fn a_foreground_controller_stops_on_sigterm() {
    let dir = common::temp_dir("cluster-fg");
    let profile = format!("fg{}", std::process::id());
    let mut child = Command::new(thcluster_path())
        .args(["start", "-n", "1", "--profile", &profile, "--th"])
        .arg(th_path())
        .env("LUATORCH_CLUSTER_DIR", &dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let file = dir.join(format!("{profile}.json"));
    let deadline = Instant::now() + WAIT;
    while !file.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(file.exists(), "the connection file appears");
    let out = common::run_th_in(
        &lua_dir(),
        &["cluster/wait.lua", &profile, "1"],
        "",
        &[("LUATORCH_CLUSTER_DIR", &dir.display().to_string())],
    );
    assert!(out.stdout.ends_with("ok\n"), "{}\n{}", out.stdout, out.stderr);
    let engines: Vec<i32> = out
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("engine pid "))
        .map(|p| p.trim().parse().unwrap())
        .collect();
    assert_eq!(engines.len(), 1);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let deadline = Instant::now() + WAIT;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.and_then(|s| s.code()), Some(0), "the controller ends cleanly");
    assert!(!file.exists(), "the connection file is removed");
    assert_eq!(wait_gone(&engines), Vec::<i32>::new());
}

#[test]
fn a_wrong_secret_is_refused() {
    let c = Cluster::start("secret", 1);
    let path = c.dir.join(format!("{}.json", c.profile));
    let mut conn = c.connection();
    let good = conn["secret"].as_str().unwrap().to_string();
    let bad: String = good.chars().map(|ch| if ch == '0' { '1' } else { '0' }).collect();
    conn["secret"] = serde_json::Value::String(bad);
    let wrong = c.dir.join("wrong");
    std::fs::create_dir_all(&wrong).unwrap();
    let wrong_file = wrong.join(format!("{}.json", c.profile));
    std::fs::write(&wrong_file, serde_json::to_string(&conn).unwrap()).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrong_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = common::run_th_in(
        &lua_dir(),
        &[
            "-e",
            &format!(
                "local t = require('sys').clock() \
                 local ok, e = pcall(require('cluster').client, '{}', {{timeout = 30}}) \
                 print(ok, e) print(string.format('refused within %.2f s', require('sys').clock() - t))",
                c.profile
            ),
        ],
        "",
        &[("LUATORCH_CLUSTER_DIR", &wrong.display().to_string())],
    );
    // The controller refuses a wrong proof at once: the client says so rather than waiting out
    // its connect timeout (30 s here).
    assert!(
        out.stdout
            .starts_with("false\tcluster.client: the controller at tcp://127.0.0.1:")
            && out.stdout.contains(" refused us: the secret is not this cluster's\n"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    // A connection file others can read is not trusted.
    std::fs::set_permissions(&wrong_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = common::run_th_in(
        &lua_dir(),
        &[
            "-e",
            &format!("print(pcall(require('cluster').client, '{}'))", c.profile),
        ],
        "",
        &[("LUATORCH_CLUSTER_DIR", &wrong.display().to_string())],
    );
    assert!(out.stdout.contains("can be read by others"), "{}", out.stdout);
    // The right file still works.
    assert!(path.exists());
    let ok = c.th("wait.lua", &["1"]);
    assert!(ok.stdout.ends_with("ok\n"), "{}\n{}", ok.stdout, ok.stderr);
}

#[test]
fn command_line_errors() {
    let dir = common::temp_dir("cluster-cli");
    let out = Cluster::cmd(&dir, &["start", "-n", "0"]);
    assert_eq!(out.status, Some(1));
    assert!(out.stderr.contains("-n must be at least 1"), "{}", out.stderr);
    let out = Cluster::cmd(&dir, &["start", "--bogus"]);
    assert!(out.stderr.contains("unknown option '--bogus'"), "{}", out.stderr);
    let out = Cluster::cmd_profile(&dir, "status", "none");
    assert_eq!(out.status, Some(1));
    assert!(out.stderr.contains("no cluster 'none' is running"), "{}", out.stderr);
    let out = run_cmd(Command::new(thcluster_path()).arg("frobnicate"), WAIT);
    assert_eq!(out.status, Some(1));
    assert!(out.stderr.contains("unknown command 'frobnicate'"), "{}", out.stderr);
    // A second start of a running profile is refused.
    let c = Cluster::start("twice", 1);
    let again = run_cmd(
        Command::new(thcluster_path())
            .args(["start", "-n", "1", "--profile", &c.profile, "--daemonize"])
            .env("LUATORCH_CLUSTER_DIR", &c.dir),
        WAIT,
    );
    assert_eq!(again.status, Some(1));
    assert!(again.stderr.contains("is already running"), "{}", again.stderr);
}

#[test]
fn the_workflow_example_runs() {
    let dir = common::temp_dir("cluster-example");
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cluster_workflow.lua");
    let out = common::run_th_in(
        &dir,
        &[&example.display().to_string(), "2"],
        "",
        &[("LUATORCH_CLUSTER_DIR", &dir.display().to_string())],
    );
    assert!(
        out.status == Some(0)
            && out.stdout.contains("rows per engine\t1000 1000")
            && out.stdout.contains("best learning rate"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .collect();
    assert!(left.is_empty(), "the example stops its cluster: {left:?}");
}

#[test]
fn ctrl_c_in_the_repl_interrupts_a_wait_not_the_cluster() {
    use rexpect::session::{Options, spawn_with_options};
    let c = Cluster::start("repl", 1);
    let mut cmd = Command::new(th_path());
    cmd.current_dir(&c.dir)
        .env("HOME", &c.dir)
        .env("TERM", "xterm")
        .env("LUATORCH_CLUSTER_DIR", &c.dir)
        .env_remove("TREPL_HISTORY");
    let options = Options::new().timeout_ms(Some(30_000)).strip_ansi_escape_codes(true);
    let mut s = spawn_with_options(cmd, options).expect("spawn th in a pty");
    s.exp_string("th> ").expect("first prompt");
    s.send_line(&format!(
        "c = require('cluster').client('{}') c:wait_for_engines(1, 30) lbv = c:load_balanced_view()",
        c.profile
    ))
    .unwrap();
    s.send_line(
        "ar = lbv:apply_with({block = false}, function() require('sys').sleep(1) return 'after' .. 'wards' end)",
    )
    .unwrap();
    s.send_line("print('wait' .. 'ing') ar:get()").unwrap();
    s.exp_string("waiting").expect("the wait starts");
    s.send_control('c').unwrap();
    s.exp_string("interrupted").expect("Ctrl-C ends the wait");
    s.exp_string("th> ").expect("a prompt after the interrupt");
    // The task went on: its result is still there.
    s.send_line("ar:get()").unwrap();
    s.exp_string("afterwards").expect("the result after the interrupt");
    s.send_line("lbv:apply(function() return 6 * 7 end)").unwrap();
    s.exp_string("42").expect("the cluster still works");
    s.send_control('d').unwrap();
    s.exp_eof().expect("th exits");
}

#[test]
fn the_scheduler_runs_on_the_engines() {
    let c = Cluster::start("scheduler", 2);
    let scratch = common::temp_dir("cluster-scheduler-scratch");
    c.assert_script("scheduler.lua", &[&scratch.display().to_string()]);
}

/// The segments of controller `ctl`'s run but its 8-byte probe: what the client sent (1 MiB each).
fn large_segments(ctl: i32) -> Vec<String> {
    Cluster::segments_of(ctl)
        .into_iter()
        .filter(|n| std::fs::metadata(format!("/dev/shm/{n}")).is_ok_and(|m| m.len() > 4096))
        .collect()
}

/// Runs controller_gone.lua against cluster `c`, sends `signal` to the controller once the
/// script waits, and returns the script's output and the run's large segments left after it.
fn controller_goes_away(c: &Cluster, signal: nix::sys::signal::Signal) -> (Output, Vec<String>) {
    use std::io::BufRead;
    let ctl = c.controller_pid();
    let mut child = Command::new(th_path())
        .current_dir(lua_dir())
        .args(["cluster/controller_gone.lua", &c.profile])
        .env("LUATORCH_CLUSTER_DIR", &c.dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    // The script says 'waiting' within the wait for engines (30 s) and its first map; a script
    // that fails before that closes its stdout, which ends the read too.
    while stdout.read_line(&mut line).unwrap_or(0) > 0 && !line.contains("waiting") {}
    assert!(line.contains("waiting"), "the script reached its wait: {line}");
    assert!(!large_segments(ctl).is_empty(), "the tasks went in shared memory");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(ctl), signal).unwrap();
    let deadline = Instant::now() + WAIT;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut stdout, &mut rest);
    let mut stderr = String::new();
    let _ = std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr);
    let large = large_segments(ctl);
    let raw = common::without_print_tabs(&rest);
    (
        Output {
            status,
            stdout: raw.clone(),
            raw_stdout: rest,
            stderr,
        },
        large,
    )
}

#[test]
fn a_waiting_client_notices_a_killed_controller() {
    let c = Cluster::start("gone", 2);
    let engines = c.engine_pids();
    let (out, left) = controller_goes_away(&c, nix::sys::signal::Signal::SIGKILL);
    assert!(
        out.status == Some(0) && out.stdout.ends_with("ok\n"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    assert!(out.stdout.contains("has ended"), "{}", out.stdout);
    assert_eq!(left, Vec::<String>::new(), "the client removed its task segments");
    assert_eq!(wait_gone(&engines), Vec::<i32>::new());
}

#[test]
fn a_waiting_client_notices_a_controller_that_stopped_answering() {
    let c = Cluster::start("stopped", 2);
    let ctl = c.controller_pid();
    let (out, left) = controller_goes_away(&c, nix::sys::signal::Signal::SIGSTOP);
    // The stopped controller goes for good (SIGKILL reaches a stopped process), and its engines
    // with it.
    let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(ctl), nix::sys::signal::Signal::SIGKILL);
    assert!(
        out.status == Some(0) && out.stdout.ends_with("ok\n"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    assert!(out.stdout.contains("stopped answering"), "{}", out.stdout);
    assert_eq!(left, Vec::<String>::new(), "the client removed its task segments");
}

/// 200 strangers on the controller's port, each holding an unfinished hello as large as the gate
/// lets one be: the controller ends the oldest past its bound, holds a few KiB for each, starts
/// no thread for them, and keeps serving its client. A hello announced larger than a frame may
/// be ends at once.
#[test]
fn strangers_cost_the_controller_a_bounded_few_kib() {
    use common::stranger;
    const STRANGERS: usize = 200;
    let c = Cluster::start("strangers", 1);
    let ctl = c.controller_pid();
    let endpoint = c.connection()["endpoint"].as_str().unwrap().to_string();
    let addr: std::net::SocketAddr = endpoint.trim_start_matches("tcp://").parse().unwrap();
    let ok = c.th("wait.lua", &["1"]);
    assert!(ok.stdout.ends_with("ok\n"), "{}\n{}", ok.stdout, ok.stderr);
    let (hwm_before, threads_before) = (
        stranger::status_figure(ctl, "VmHWM"),
        stranger::status_figure(ctl, "Threads"),
    );
    let mut huge = stranger::connect(addr, 16 << 20).expect("a stranger connects");
    assert!(stranger::ended(&mut huge, WAIT), "a 16 MiB hello is refused at once");
    let mut held: Vec<_> = (0..STRANGERS)
        .filter_map(|_| stranger::connect(addr, 8 << 10))
        .collect();
    assert!(!held.is_empty());
    // The client is served amid them.
    let ok = c.th("wait.lua", &["1"]);
    assert!(ok.stdout.ends_with("ok\n"), "{}\n{}", ok.stdout, ok.stderr);
    assert_eq!(
        stranger::status_figure(ctl, "Threads"),
        threads_before,
        "no thread per stranger"
    );
    // Every stranger is let go: the oldest past the bound at once, the rest at the handshake's
    // time limit.
    for s in &mut held {
        assert!(stranger::ended(s, WAIT), "a stranger's connection is ended");
    }
    let grew_kb = stranger::status_figure(ctl, "VmHWM").saturating_sub(hwm_before);
    assert!(
        grew_kb < 16 << 10,
        "{STRANGERS} strangers made the controller's peak grow by {grew_kb} kB"
    );
    let ok = c.th("wait.lua", &["1"]);
    assert!(ok.stdout.ends_with("ok\n"), "{}\n{}", ok.stdout, ok.stderr);
}

#[test]
fn an_mdp_parallel_flow_trains_on_the_engines() {
    let c = Cluster::start("mdp", 2);
    c.assert_script("mdp_flow.lua", &[]);
}
