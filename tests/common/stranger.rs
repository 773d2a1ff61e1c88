//! A stranger on a gated ZeroMQ socket (the cluster's controller, parallel's hub): it speaks
//! ZMTP 3 as far as a PLAIN hello, which it announces at `announced` bytes and sends all but the
//! last byte of, then holds the connection open.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// A ZMTP 3.0 client's greeting offering `mechanism`.
pub fn greeting(mechanism: &str) -> Vec<u8> {
    let mut g = vec![0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F, 3, 0];
    let mut name = mechanism.as_bytes().to_vec();
    name.resize(20, 0);
    g.extend_from_slice(&name);
    g.push(0); // as-server: no
    g.resize(64, 0);
    g
}

/// Connects and sends the greeting and all but one byte of a hello of `announced` bytes (as much
/// of it as the peer takes before it ends the connection). None when it cannot connect.
pub fn connect(addr: SocketAddr, announced: u64) -> Option<TcpStream> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(10)).ok()?;
    s.set_write_timeout(Some(Duration::from_secs(10))).ok()?;
    let mut bytes = greeting("PLAIN");
    // A long command frame: flags 0x06, then the size in eight bytes, big-endian.
    bytes.push(0x06);
    bytes.extend_from_slice(&announced.to_be_bytes());
    let start = bytes.len();
    bytes.extend_from_slice(b"\x05HELLO\x08luatorch");
    // All of the announced body but its last byte.
    bytes.resize(
        start + (announced as usize).saturating_sub(1).max(bytes.len() - start),
        b'x',
    );
    let _ = s.write_all(&bytes);
    Some(s)
}

/// Whether the peer ended the connection, waiting up to `within` for it to.
pub fn ended(s: &mut TcpStream, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        s.set_read_timeout(Some(left.min(Duration::from_millis(200)))).ok();
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => return true,
        }
    }
}

/// A figure from /proc/PID/status, in kB or as a count (VmRSS, VmHWM, Threads); the process must
/// be there (a figure read as 0 would let a memory bound pass).
pub fn status_figure(pid: i32, name: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the process's status");
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in /proc/{pid}/status"))
}
