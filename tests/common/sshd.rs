//! A private OpenSSH server on a free loopback port, with key login for the current user, for the tests
//! that fork `parallel` children through ssh. Nothing in /etc/ssh is used or changed.
//!
//! Every process a session starts carries `LUATORCH_TEST_SSHD=<dir>` in its environment (sshd's
//! `SetEnv`), so a test can list what still runs "on the remote side" ([`Sshd::session_pids`]) and the
//! fixture can clean it all up when dropped.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use super::Output;

const SSHD: &str = "/usr/sbin/sshd";
/// The ssh_config names the server by these host aliases (all 127.0.0.1), so a test can tell remotes apart.
pub const HOSTS: [&str; 3] = ["testhost", "testhost2", "testhost3"];
const MARKER: &str = "LUATORCH_TEST_SSHD";
/// Time allowed for sshd to start and accept a real login.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// Time allowed for one `ssh` command of the fixture.
const SSH_TIMEOUT: Duration = Duration::from_secs(20);

pub struct Sshd {
    pub dir: PathBuf,
    pub port: u16,
    child: Child,
}

impl Sshd {
    /// Starts a server for the test `name`. None (after printing why) when /usr/sbin/sshd is missing, except
    /// under CI (env `CI` set), which installs it: there the missing server is a failure.
    pub fn start(name: &str) -> Option<Sshd> {
        if !Path::new(SSHD).exists() {
            if std::env::var_os("CI").is_some() {
                panic!("{SSHD} is missing (.ci/run installs openssh-server)");
            }
            println!("skipped: no {SSHD}");
            return None;
        }
        let dir = super::temp_dir(&format!("sshd-{name}"));
        set_mode(&dir, 0o700);
        let euid = nix::unistd::geteuid();
        if euid.is_root() {
            // A root sshd refuses to start without its privilege separation directory.
            std::fs::create_dir_all("/run/sshd").expect("create /run/sshd");
            set_mode(Path::new("/run/sshd"), 0o755);
        }
        let user = nix::unistd::User::from_uid(euid)
            .expect("look up the current user")
            .expect("the current user has a passwd entry")
            .name;
        for key in ["host_ed25519", "client_ed25519"] {
            let out = run_cmd(
                Command::new("ssh-keygen")
                    .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                    .arg(dir.join(key)),
                SSH_TIMEOUT,
            );
            assert_eq!(out.status, Some(0), "ssh-keygen failed: {}", out.stderr);
        }
        std::fs::copy(dir.join("client_ed25519.pub"), dir.join("authorized_keys")).unwrap();
        set_mode(&dir.join("authorized_keys"), 0o600);

        let mut last_error = String::new();
        for _attempt in 0..5 {
            let port = free_port();
            write_configs(&dir, port, &user);
            let mut child = Command::new(SSHD)
                .arg("-D")
                .arg("-f")
                .arg(dir.join("sshd_config"))
                .arg("-E")
                .arg(dir.join("sshd.log"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn sshd");
            match wait_ready(&mut child, &dir, port) {
                Ok(()) => return Some(Sshd { dir, port, child }),
                Err(e) => {
                    last_error = e;
                    stop(&mut child, &dir);
                }
            }
        }
        let log = log(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        panic!("sshd did not start: {last_error}\n--- sshd.log\n{log}");
    }

    /// The `protocol` argument of `parallel.fork`: ssh with this server's client configuration.
    pub fn protocol(&self) -> String {
        format!("ssh -F {}/ssh_config", self.dir.display())
    }

    /// The host alias to connect to (127.0.0.1 through the ssh_config).
    pub fn host(&self) -> &'static str {
        HOSTS[0]
    }

    /// Runs `cmd` on the server through ssh (stdin empty), waiting at most 20 s.
    pub fn ssh(&self, cmd: &str) -> Output {
        ssh(&self.dir, cmd)
    }

    /// The live (not zombie) processes started by sessions of this server, with their command lines.
    pub fn session_pids(&self) -> Vec<(i32, String)> {
        session_pids(&self.dir)
    }

    /// Waits up to `timeout` until no session process is left; the ones still there otherwise.
    pub fn wait_no_sessions(&self, timeout: Duration) -> Result<(), Vec<(i32, String)>> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = self.session_pids();
            if left.is_empty() {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(left);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The server's log (LogLevel VERBOSE), for failure messages.
    pub fn log(&self) -> String {
        log(&self.dir)
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("--- sshd.log ({})\n{}", self.dir.display(), self.log());
        }
        stop(&mut self.child, &self.dir);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn log(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("sshd.log")).unwrap_or_default()
}

fn ssh(dir: &Path, cmd: &str) -> Output {
    run_cmd(
        Command::new("ssh")
            .arg("-F")
            .arg(dir.join("ssh_config"))
            .arg(HOSTS[0])
            .arg(cmd),
        SSH_TIMEOUT,
    )
}

fn session_pids(dir: &Path) -> Vec<(i32, String)> {
    let marker = format!("{MARKER}={}", dir.display());
    let mut found = Vec::new();
    for pid in all_pids() {
        let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        if env.split(|&b| b == 0).any(|var| var == marker.as_bytes()) && is_alive(pid) {
            found.push((pid, cmdline(pid)));
        }
    }
    found
}

/// Waits until the server `child` (listening on `port`) accepts a real login, or fails with the reason.
fn wait_ready(child: &mut Child, dir: &Path, port: u16) -> Result<(), String> {
    let deadline = Instant::now() + START_TIMEOUT;
    let mut last = String::from("no answer");
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Err(format!("sshd exited ({status}): {}", log(dir)));
        }
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            let out = ssh(dir, "true");
            if out.status == Some(0) {
                return Ok(());
            }
            last = format!("ssh true: status {:?}: {}", out.status, out.stderr);
        }
        if Instant::now() > deadline {
            return Err(format!("not ready within {START_TIMEOUT:?}: {last}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Kills what the sessions started, then the listener (which does not end open sessions itself).
fn stop(child: &mut Child, dir: &Path) {
    let mut victims: Vec<i32> = session_pids(dir).into_iter().map(|(pid, _)| pid).collect();
    victims.extend(descendants(child.id() as i32));
    for pid in victims {
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn write_configs(dir: &Path, port: u16, user: &str) {
    let d = dir.display();
    let sshd_config = format!(
        "ListenAddress 127.0.0.1
Port {port}
HostKey {d}/host_ed25519
PidFile {d}/sshd.pid
AuthorizedKeysFile {d}/authorized_keys
AllowUsers {user}
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
PrintLastLog no
X11Forwarding no
ClientAliveInterval 5
ClientAliveCountMax 2
MaxStartups 100
MaxSessions 100
SetEnv {MARKER}={d}
LogLevel VERBOSE
"
    );
    std::fs::write(dir.join("sshd_config"), sshd_config).unwrap();
    let hosts = HOSTS.join(" ");
    let ssh_config = format!(
        "Host {hosts}
  HostName 127.0.0.1
  Port {port}
  User {user}
  IdentityFile {d}/client_ed25519
  IdentitiesOnly yes
  BatchMode yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
"
    );
    std::fs::write(dir.join("ssh_config"), ssh_config).unwrap();
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A loopback port nothing listens on right now (the kernel's pick, released at once).
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().unwrap().port()
}

pub use super::run_cmd;

fn all_pids() -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

/// Field 3 (state) and field 4 (ppid) of /proc/<pid>/stat; None when the process is gone.
fn stat_state_ppid(pid: i32) -> Option<(char, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: parse after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((state, ppid))
}

/// Whether `pid` exists and is not a zombie (PID 1 in a container may reap late, so a zombie counts as gone).
pub fn is_alive(pid: i32) -> bool {
    matches!(stat_state_ppid(pid), Some((state, _)) if state != 'Z' && state != 'X')
}

/// Waits up to `timeout` for `pid` to be gone (or a zombie); whether it went.
pub fn wait_gone(pid: i32, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    while is_alive(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// The command line of `pid`, spaces between arguments (empty when gone).
pub fn cmdline(pid: i32) -> String {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    String::from_utf8_lossy(&raw).replace('\0', " ").trim_end().to_string()
}

/// Every live descendant of `root` (children first found, then theirs).
fn descendants(root: i32) -> Vec<i32> {
    let parents: Vec<(i32, i32)> = all_pids()
        .into_iter()
        .filter_map(|pid| Some((pid, stat_state_ppid(pid)?.1)))
        .collect();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(parents.iter().filter(|&&(_, ppid)| ppid == p).map(|&(pid, _)| pid));
        i += 1;
    }
    found.remove(0);
    found
}
