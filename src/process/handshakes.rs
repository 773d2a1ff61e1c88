//! The connections of a gated socket (`gate.rs`) that are still in ZeroMQ's handshake: at most
//! `MAX_HANDSHAKES`, the oldest ended when a new one comes past that, so that what strangers
//! make us hold is bounded in total, not only per connection.
//!
//! ZeroMQ tells a connection's descriptor when it is accepted and when it closes (monitor
//! events), but not which one finished its handshake. On TCP that shows in the connection
//! itself: a PLAIN server sends its 64-byte greeting and then nothing until the peer's hello is
//! in and judged, so a connection on which more than that has been sent and acknowledged is past
//! the handshake. On a unix socket a peer of another user is ended at once, and one of our own
//! children (parallel's local ones) is not counted; any other is counted until it closes.
//!
//! The descriptors are ZeroMQ's, which may close one and reuse its number at any time: each is
//! looked at through a duplicate of our own, and only when its socket cookie (unique to a socket
//! for the system's uptime) is the one seen at accept.

use std::collections::VecDeque;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// Connections in the handshake at most: room for a cluster's engines or a parallel run's remote
/// children all connecting at once on a busy machine, while what strangers can hold stays a few
/// MiB in all.
pub const MAX_HANDSHAKES: usize = 128;
/// What a ZMTP 3 server sends before the peer's hello is judged.
const GREETING_BYTES: u64 = 64;
/// `SO_COOKIE` (asm-generic/socket.h), which the libc crate does not name on every target.
const SO_COOKIE: libc::c_int = 57;
/// Where `tcpi_bytes_acked` sits in Linux's `struct tcp_info` (since 4.1).
const TCPI_BYTES_ACKED_AT: usize = 120;

/// An accepted connection, as first seen.
struct Accepted {
    fd: RawFd,
    cookie: u64,
    /// TCP, where the connection shows when its handshake is over.
    tcp: bool,
}

/// The connections in the handshake, oldest first.
#[derive(Default)]
pub struct Handshakes {
    list: VecDeque<Accepted>,
}

/// Our own descriptor for the socket at `fd`, if there is one now.
fn dup(fd: RawFd) -> Option<OwnedFd> {
    // SAFETY: F_DUPFD_CLOEXEC makes a new descriptor (or fails); it is ours to close.
    let d = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    // SAFETY: `d` is a fresh descriptor nobody else owns.
    (d >= 0).then(|| unsafe { OwnedFd::from_raw_fd(d) })
}

fn getsockopt_bytes(fd: &OwnedFd, level: libc::c_int, name: libc::c_int, buf: &mut [u8]) -> Option<usize> {
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: the kernel writes at most `len` bytes into `buf` and says how many.
    let r = unsafe { libc::getsockopt(fd.as_raw_fd(), level, name, buf.as_mut_ptr().cast(), &mut len) };
    (r == 0).then_some(len as usize)
}

fn cookie(fd: &OwnedFd) -> Option<u64> {
    let mut buf = [0u8; 8];
    (getsockopt_bytes(fd, libc::SOL_SOCKET, SO_COOKIE, &mut buf)? == 8).then(|| u64::from_ne_bytes(buf))
}

/// The address family of the socket's own end.
fn family(fd: &OwnedFd) -> Option<libc::c_int> {
    // SAFETY: an all-zero sockaddr_storage is a valid value for getsockname to overwrite.
    let mut addr: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    // SAFETY: the kernel writes at most `len` bytes of address.
    let r = unsafe {
        libc::getsockname(
            fd.as_raw_fd(),
            (&mut addr as *mut libc::sockaddr_storage).cast(),
            &mut len,
        )
    };
    (r == 0).then_some(addr.ss_family as libc::c_int)
}

/// The process at the other end of a unix socket: its uid and pid.
fn peer_cred(fd: &OwnedFd) -> Option<(u32, i32)> {
    let mut buf = [0u8; std::mem::size_of::<libc::ucred>()];
    let n = getsockopt_bytes(fd, libc::SOL_SOCKET, libc::SO_PEERCRED, &mut buf)?;
    // SAFETY: the kernel filled a whole ucred (checked by its length); read unaligned.
    let cred = (n == buf.len()).then(|| unsafe { std::ptr::read_unaligned(buf.as_ptr().cast::<libc::ucred>()) })?;
    Some((cred.uid, cred.pid))
}

/// Whether `pid` is a child of this process.
fn is_our_child(pid: i32) -> bool {
    let ppid = u32::try_from(pid)
        .ok()
        .and_then(super::launch::stat_fields)
        .and_then(|f| f.get(1)?.parse::<u32>().ok());
    ppid == Some(std::process::id())
}

/// Whether the TCP connection has sent more than the greeting, and had it acknowledged.
fn past_greeting(fd: &OwnedFd) -> bool {
    let mut buf = [0u8; 256];
    match getsockopt_bytes(fd, libc::IPPROTO_TCP, libc::TCP_INFO, &mut buf) {
        Some(n) if n >= TCPI_BYTES_ACKED_AT + 8 => {
            let at = &buf[TCPI_BYTES_ACKED_AT..TCPI_BYTES_ACKED_AT + 8];
            u64::from_ne_bytes(at.try_into().expect("8 bytes")) > GREETING_BYTES
        }
        // A kernel too old to say: the connection is not held against the bound.
        _ => true,
    }
}

/// Ends the connection (ZeroMQ then closes its descriptor, as for a peer that hung up).
fn end(fd: &OwnedFd) {
    // SAFETY: shuts down the socket our descriptor refers to; nothing is freed.
    unsafe { libc::shutdown(fd.as_raw_fd(), libc::SHUT_RDWR) };
}

impl Accepted {
    /// Our descriptor for this connection, while its number is still this connection's.
    fn open(&self) -> Option<OwnedFd> {
        let d = dup(self.fd)?;
        (cookie(&d) == Some(self.cookie)).then_some(d)
    }
}

impl Handshakes {
    /// ZeroMQ accepted a connection on `fd`.
    pub fn accepted(&mut self, fd: RawFd) {
        // A number is one connection's at a time: an earlier one on it has closed.
        self.list.retain(|a| a.fd != fd);
        let Some(d) = dup(fd) else { return };
        let tcp = match family(&d) {
            Some(libc::AF_UNIX) => {
                let Some((uid, pid)) = peer_cred(&d) else { return };
                // SAFETY: getuid cannot fail.
                if uid != unsafe { libc::getuid() } {
                    end(&d);
                    return;
                }
                if is_our_child(pid) {
                    return;
                }
                false
            }
            Some(libc::AF_INET | libc::AF_INET6) => true,
            _ => return,
        };
        let Some(cookie) = cookie(&d) else { return };
        drop(d);
        self.list.push_back(Accepted { fd, cookie, tcp });
        // Past the bound, from the oldest: one that finished its handshake since, or whose
        // number is another connection's now, only leaves the list; one still in its handshake
        // is ended. Looking only at the front keeps a flood's cost per connection constant.
        while self.list.len() > MAX_HANDSHAKES {
            let Some(old) = self.list.pop_front() else { break };
            if let Some(d) = old.open()
                && !(old.tcp && past_greeting(&d))
            {
                end(&d);
            }
        }
    }

    /// ZeroMQ's connection on `fd` closed.
    pub fn closed(&mut self, fd: RawFd) {
        self.list.retain(|a| a.fd != fd);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.list.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn past_the_bound_the_oldest_handshake_ends() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let mut hs = Handshakes::default();
        let mut ours = Vec::new();
        for _ in 0..MAX_HANDSHAKES + 2 {
            let client = TcpStream::connect(addr).unwrap();
            let (server, _) = listener.accept().unwrap();
            hs.accepted(server.as_raw_fd());
            ours.push((client, server));
        }
        assert_eq!(hs.len(), MAX_HANDSHAKES);
        // The two oldest were shut down: their clients read the end of the stream.
        let mut byte = [0u8; 1];
        for (client, _) in &mut ours[..2] {
            assert_eq!(client.read(&mut byte).unwrap(), 0);
        }
        ours[2].0.set_nonblocking(true).unwrap();
        assert!(ours[2].0.read(&mut byte).is_err(), "a younger one stays");
    }

    #[test]
    fn a_connection_past_the_greeting_leaves_without_being_ended() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let mut hs = Handshakes::default();
        let mut done = TcpStream::connect(addr).unwrap();
        let (mut server, _) = listener.accept().unwrap();
        hs.accepted(server.as_raw_fd());
        server.write_all(&[0u8; GREETING_BYTES as usize + 10]).unwrap();
        let mut got = vec![0u8; GREETING_BYTES as usize + 10];
        done.read_exact(&mut got).unwrap();
        // The acknowledgement may follow the read by a moment.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !past_greeting(&dup(server.as_raw_fd()).unwrap()) {
            assert!(std::time::Instant::now() < deadline, "never acknowledged");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let mut strangers = Vec::new();
        for _ in 0..MAX_HANDSHAKES {
            let client = TcpStream::connect(addr).unwrap();
            let (s, _) = listener.accept().unwrap();
            hs.accepted(s.as_raw_fd());
            strangers.push((client, s));
        }
        // The finished one made room: no stranger was ended, and it was not either.
        assert_eq!(hs.len(), MAX_HANDSHAKES);
        done.set_nonblocking(true).unwrap();
        assert!(done.read(&mut [0u8; 1]).is_err(), "the finished connection stays open");
        let last = strangers.last().unwrap().1.as_raw_fd();
        hs.closed(last);
        assert_eq!(hs.len(), MAX_HANDSHAKES - 1);
    }
}
