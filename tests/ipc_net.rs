//! `ipc.server` / `ipc.client` through the real `th`, a server and its clients in separate
//! processes on loopback: value messages, tags and ids, broadcast, recvAny, recvAsync, raw tensors
//! and storages (every type, views, empty, wrong receivers), peers that close or are killed,
//! malformed frames from raw sockets, peers without the user's secret, a client started before its server, and the error paths.
//!
//! Each Lua script (tests/lua/ipc/net_*.lua) takes a role: the server prints `port N` once it
//! listens, clients get that port as an argument. Every process ends with the line `ok` when its
//! checks passed. Every wait here has a time limit, and any process still running when a test
//! ends is killed.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use common::{TIMEOUT, lua_dir, run_th, th_path};
use luatorch::ipc::net::auth;

/// One `th` process with its stdout read line by line.
struct Th {
    name: String,
    child: Child,
    lines: Receiver<String>,
    stdout: Option<JoinHandle<String>>,
    stderr: Option<JoinHandle<String>>,
}

impl Th {
    /// Starts `th ipc/<script> args...` from tests/lua.
    fn start(script: &str, args: &[&str]) -> Th {
        Th::start_with(script, args, &[])
    }

    /// `start` with extra environment variables.
    fn start_with(script: &str, args: &[&str], env: &[(&str, &str)]) -> Th {
        let mut child = Command::new(th_path())
            .arg(format!("ipc/{script}"))
            .args(args)
            .envs(env.iter().copied())
            .current_dir(lua_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn th");
        let (tx, lines) = mpsc::channel();
        let out = child.stdout.take().unwrap();
        let stdout = std::thread::spawn(move || {
            let mut all = String::new();
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                let line = common::printed_line(line);
                all.push_str(&line);
                all.push('\n');
                let _ = tx.send(line);
            }
            all
        });
        let mut err = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        });
        Th {
            name: format!("{script} {}", args.join(" ")),
            child,
            lines,
            stdout: Some(stdout),
            stderr: Some(stderr),
        }
    }

    /// Waits for a line starting with `prefix`; returns the rest of it.
    fn line(&mut self, prefix: &str) -> String {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    if let Some(rest) = l.strip_prefix(prefix) {
                        return rest.to_string();
                    }
                }
                Err(_) => {
                    let _ = self.child.kill();
                    let (status, out, err) = self.collect();
                    panic!(
                        "{}: no line starting with {prefix:?} (status {status:?})\n--- stdout\n{out}\n--- stderr\n{err}",
                        self.name
                    );
                }
            }
        }
    }

    /// The port a server script printed.
    fn port(&mut self) -> String {
        let p = self.line("port ");
        assert!(p.parse::<u16>().is_ok(), "{}: bad port line {p:?}", self.name);
        p
    }

    fn collect(&mut self) -> (Option<i32>, String, String) {
        let status = self.child.wait().ok().and_then(|s| s.code());
        let out = self
            .stdout
            .take()
            .map(|h| h.join().unwrap_or_default())
            .unwrap_or_default();
        let err = self
            .stderr
            .take()
            .map(|h| h.join().unwrap_or_default())
            .unwrap_or_default();
        (status, out, err)
    }

    /// Waits (at most TIMEOUT) for the process to end; its status, stdout and stderr.
    fn finish(&mut self) -> (Option<i32>, String, String) {
        let deadline = Instant::now() + TIMEOUT;
        while self.child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let (_, out, err) = self.collect();
                panic!(
                    "{} did not finish within {TIMEOUT:?}\n--- stdout\n{out}\n--- stderr\n{err}",
                    self.name
                );
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.collect()
    }

    /// The process ended with status 0 and `ok` as its last line.
    fn assert_ok(&mut self) {
        assert_all_ok(&mut [self]);
    }

    fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every process ended with status 0 and `ok` as its last line; all their outputs are shown
/// otherwise (one failing peer usually makes the others fail).
fn assert_all_ok(procs: &mut [&mut Th]) {
    let mut report = String::new();
    let mut failed = false;
    for p in procs.iter_mut() {
        let (status, out, err) = p.finish();
        let ok = status == Some(0) && out.ends_with("ok\n");
        failed |= !ok;
        report.push_str(&format!(
            "=== {} ({}, status {status:?})\n--- stdout\n{out}\n--- stderr\n{err}\n",
            p.name,
            if ok { "ok" } else { "FAILED" }
        ));
    }
    assert!(!failed, "{report}");
}

impl Drop for Th {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[test]
fn messages_tags_broadcast_recv_any_and_recv_async_between_processes() {
    let mut server = Th::start("net_messages.lua", &["server"]);
    let port = server.port();
    let mut clients: Vec<Th> = ["a", "b", "c"]
        .iter()
        .map(|n| Th::start("net_messages.lua", &["client", &port, n]))
        .collect();
    let mut all: Vec<&mut Th> = clients.iter_mut().collect();
    all.push(&mut server);
    assert_all_ok(&mut all);
}

#[test]
fn tensors_and_storages_both_ways_with_wrong_receivers() {
    let mut server = Th::start("net_tensors.lua", &["server"]);
    let port = server.port();
    let mut client = Th::start("net_tensors.lua", &["client", &port]);
    assert_all_ok(&mut [&mut client, &mut server]);
}

fn disconnect(scenario: &str) {
    let mut server = Th::start("net_disconnect.lua", &["server", scenario]);
    let port = server.port();
    let mut client = Th::start("net_disconnect.lua", &["client", &port, scenario]);
    match scenario {
        "client-killed" => {
            client.line("ready");
            client.kill9();
            server.assert_ok();
        }
        "server-killed" => {
            server.line("ready");
            server.kill9();
            client.assert_ok();
        }
        _ => assert_all_ok(&mut [&mut client, &mut server]),
    }
}

#[test]
fn a_client_that_closes_ends_the_servers_blocked_recv() {
    disconnect("client-closes");
}

#[test]
fn a_server_that_closes_ends_the_clients_blocked_recv() {
    disconnect("server-closes");
}

#[test]
fn a_killed_client_ends_the_servers_blocked_recv() {
    disconnect("client-killed");
}

#[test]
fn a_killed_server_ends_the_clients_blocked_recv() {
    disconnect("server-killed");
}

/// A frame header as src/ipc/net/frame.rs writes it.
fn header(kind: u8, meta_len: u16, body_len: u64) -> Vec<u8> {
    let mut h = b"LTI1".to_vec();
    h.push(kind);
    h.push(0);
    h.extend_from_slice(&meta_len.to_le_bytes());
    h.extend_from_slice(&body_len.to_le_bytes());
    h
}

/// A connection that passed the handshake (with this user's secret, as the th processes have it)
/// and then speaks raw bytes.
fn raw(port: &str) -> TcpStream {
    let s = unauthenticated(port);
    let secret = auth::secret().expect("this user's ipc secret");
    auth::client_side(&s, secret, TIMEOUT).expect("handshake");
    s
}

fn unauthenticated(port: &str) -> TcpStream {
    TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap())).expect("raw connection")
}

#[test]
fn peers_without_the_secret_are_refused() {
    let mut server = Th::start("net_auth.lua", &["server"]);
    let port = server.port();
    // A stranger that writes a frame at once, without a handshake: never accepted, never read.
    let mut stranger = unauthenticated(&port);
    let _ = stranger.write_all(&header(1, 0, 5));
    let _ = stranger.write_all(b"hello");
    // A th client with another secret: refused, and it says so.
    let mut other = Th::start_with(
        "net_auth.lua",
        &["stranger", &port],
        &[("LUATORCH_IPC_SECRET", "not this user's secret")],
    );
    assert_all_ok(&mut [&mut other]);
    let mut client = Th::start("net_auth.lua", &["client", &port]);
    assert_all_ok(&mut [&mut client, &mut server]);
    drop(stranger);
}

#[test]
fn idle_strangers_cost_bounded_threads_and_do_not_lock_clients_out() {
    let mut server = Th::start("net_flood.lua", &["server"]);
    let port = server.port();
    let strangers: Vec<TcpStream> = (0..300).map(|_| unauthenticated(&port)).collect();
    let mut client = Th::start("net_flood.lua", &["client", &port]);
    assert_all_ok(&mut [&mut client, &mut server]);
    drop(strangers);
}

#[test]
fn a_tensor_cut_short_raises_instead_of_hanging() {
    let mut server = Th::start("net_disconnect.lua", &["server", "truncated"]);
    let port = server.port();
    let mut s = raw(&port);
    // A FloatTensor of 1000 elements (element type 5, contiguous, 1 dimension), 100 bytes of it.
    let mut meta = vec![5u8, 1, 1, 0];
    meta.extend_from_slice(&1000u64.to_le_bytes());
    let mut frame = header(2, meta.len() as u16, 4000);
    frame.extend_from_slice(&meta);
    frame.extend_from_slice(&[0u8; 100]);
    s.write_all(&frame).unwrap();
    drop(s);
    server.assert_ok();
}

#[test]
fn malformed_frames_end_only_their_own_connection() {
    let mut server = Th::start("net_garbage.lua", &["server"]);
    let port = server.port();
    let mut junk = raw(&port);
    junk.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut huge = raw(&port);
    huge.write_all(&header(1, 0, 1 << 40)).unwrap();
    let mut client = Th::start("net_garbage.lua", &["client", &port]);
    assert_all_ok(&mut [&mut client, &mut server]);
    drop((junk, huge));
}

#[test]
fn a_client_started_before_its_server_connects() {
    // A free port: the kernel's choice, released at once.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    let mut client = Th::start("net_slowstart.lua", &["client", &port]);
    client.line("connecting");
    let mut server = Th::start("net_slowstart.lua", &["server", &port]);
    assert_all_ok(&mut [&mut server, &mut client]);
}

#[test]
fn argument_errors_timeouts_and_closed_objects() {
    let out = run_th(&["ipc/net_errors.lua"]);
    assert!(
        out.status == Some(0) && out.stdout.ends_with("ok\n"),
        "net_errors.lua failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
}

#[test]
fn the_secret_file_is_made_private_and_checked() {
    let home = common::temp_dir("ipc-secret-home");
    let script = "local s = ipc.server(); s:close(); print('made')";
    let env = [("HOME", home.to_str().unwrap()), ("LUATORCH_IPC_SECRET", "")];
    let out = common::run_th_in(&home, &["-e", "ipc = require 'libipc'", "-e", script], "", &env);
    assert!(out.stdout.contains("made"), "{}", out.stderr);
    let file = home.join(".luatorch/ipc_secret");
    let meta = std::fs::metadata(&file).expect("the secret file was made");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_eq!(std::fs::read(&file).unwrap().len(), 64, "32 random bytes in hex");
    // Readable by others: refused, with the fix in the message.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = common::run_th_in(&home, &["-e", "ipc = require 'libipc'", "-e", script], "", &env);
    assert!(
        out.status != Some(0) && out.stderr.contains("ipc.server") && out.stderr.contains("chmod 600"),
        "{}",
        out.stderr
    );
    let _ = std::fs::remove_dir_all(&home);
}
