//! A stranger on a gated ZeroMQ socket (the cluster's controller, parallel's hub): it speaks
//! ZMTP 3 as far as a PLAIN hello, which it announces at `announced` bytes and sends all but the
//! last byte of, then holds the connection open.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// The ZMTP 3.0 greeting of a PLAIN client.
fn greeting() -> Vec<u8> {
    let mut g = vec![0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F, 3, 0];
    let mut mechanism = b"PLAIN".to_vec();
    mechanism.resize(20, 0);
    g.extend_from_slice(&mechanism);
    g.push(0); // as-server: no
    g.resize(64, 0);
    g
}

/// Connects and sends the greeting and all but one byte of a hello of `announced` bytes (as much
/// of it as the peer takes before it ends the connection). None when it cannot connect.
pub fn connect(addr: SocketAddr, announced: u64) -> Option<TcpStream> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(10)).ok()?;
    s.set_write_timeout(Some(Duration::from_secs(10))).ok()?;
    let mut bytes = greeting();
    // A long command frame: flags 0x06, then the size in eight bytes, big-endian.
    bytes.push(0x06);
    bytes.extend_from_slice(&announced.to_be_bytes());
    bytes.extend_from_slice(b"\x05HELLO\x08luatorch");
    let body = announced.saturating_sub(1) as usize;
    bytes.resize(bytes.len() + body.saturating_sub(15), b'x');
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

/// A figure from /proc/PID/status, in kB or as a count (VmRSS, VmHWM, Threads).
pub fn status_figure(pid: i32, name: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}
