//! The server's listening socket: connections accepted and authenticated by a thread of its own,
//! handed out when `server:clients` asks.

use std::collections::VecDeque;
use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use super::auth::{self, HANDSHAKE_LIMIT};
use super::conn::Conn;
use super::error::{NetError, Res};
use super::wait::{os_text, wait_fd};
use crate::error::{Error, Result};

/// A listening socket whose connections are accepted and authenticated (see `auth.rs`) by a
/// thread of its own, at once: a client's `connect` then returns as soon as the server exists,
/// as with torch-ipc, whatever the server's Lua code is doing. `accept` hands out connections
/// whose peer proved it knows the secret; others are dropped.
pub struct Listener {
    pub port: u16,
    ready: mpsc::Receiver<Conn>,
    stop: Arc<AtomicBool>,
    acceptor: Option<std::thread::JoinHandle<()>>,
}

impl Listener {
    pub fn bind(host: &str, port: u16) -> Result<Listener> {
        let secret = auth::secret()?;
        let addrs: Vec<SocketAddr> = (host, port)
            .to_socket_addrs()
            .map_err(|e| Error::io(format!("cannot resolve host {host}: {e}")))?
            .collect();
        // torch-ipc bound IPv4 only: prefer it when a name has both.
        let mut ordered: Vec<&SocketAddr> = addrs.iter().filter(|a| a.is_ipv4()).collect();
        ordered.extend(addrs.iter().filter(|a| a.is_ipv6()));
        let mut last = format!("no address for host {host}");
        for addr in ordered {
            match TcpListener::bind(addr) {
                Ok(sock) => {
                    sock.set_nonblocking(true)
                        .map_err(|e| Error::io(format!("cannot set up the listening socket: {e}")))?;
                    let port = sock
                        .local_addr()
                        .map_err(|e| Error::io(format!("cannot read the bound port: {e}")))?
                        .port();
                    let (tx, ready) = mpsc::channel();
                    let stop = Arc::new(AtomicBool::new(false));
                    let stopped = stop.clone();
                    let acceptor = std::thread::Builder::new()
                        .name("ipc-accept".into())
                        .spawn(move || accept_loop(sock, secret, tx, stopped))
                        .map_err(|e| Error::io(format!("cannot start the accepting thread: {e}")))?;
                    return Ok(Listener {
                        port,
                        ready,
                        stop,
                        acceptor: Some(acceptor),
                    });
                }
                Err(e) => last = os_text(e.raw_os_error().unwrap_or(0)),
            }
        }
        Err(Error::io(format!("cannot listen on {host}:{port}: {last}")))
    }

    /// One authenticated connection, waiting until `deadline`; None when none came in time.
    pub fn accept(&self, deadline: Instant) -> Res<Option<Conn>> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            // In slices, to notice Ctrl-C in the REPL.
            match self.ready.recv_timeout(left.min(Duration::from_millis(100))) {
                Ok(c) => return Ok(Some(c)),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(NetError::Broken("the accepting thread stopped".into()));
                }
            }
            if crate::interrupt::pending() {
                return Err(NetError::Interrupted);
            }
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.acceptor.take() {
            let _ = t.join();
        }
    }
}

/// Handshakes under way at most. A new connection past this ends the oldest one's handshake, so
/// that strangers holding connections open cost a bounded number of threads and cannot lock
/// clients out.
const MAX_HANDSHAKES: usize = 64;

/// A handshake under way: a handle on its connection, to end it from the accepting thread.
struct Pending {
    id: u64,
    since: Instant,
    stream: TcpStream,
}

/// The handshakes under way, oldest first.
#[derive(Clone, Default)]
struct Handshakes(Arc<Mutex<VecDeque<Pending>>>);

impl Handshakes {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Pending>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts a new handshake, ending the oldest when there are too many.
    fn add(&self, id: u64, stream: TcpStream) {
        let mut list = self.lock();
        while list.len() >= MAX_HANDSHAKES {
            if let Some(old) = list.pop_front() {
                let _ = old.stream.shutdown(Shutdown::Both);
            }
        }
        list.push_back(Pending {
            id,
            since: Instant::now(),
            stream,
        });
    }

    fn remove(&self, id: u64) {
        self.lock().retain(|p| p.id != id);
    }

    /// Ends handshakes that took longer than `limit` in all (each read has its own time limit,
    /// but a peer could send a byte at a time).
    fn end_overdue(&self, limit: Duration) {
        let mut list = self.lock();
        while list.front().is_some_and(|p| p.since.elapsed() > limit) {
            if let Some(old) = list.pop_front() {
                let _ = old.stream.shutdown(Shutdown::Both);
            }
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

/// The accepting thread: each new connection is authenticated on a thread of its own (a peer that
/// stalls holds up nobody; at most MAX_HANDSHAKES at once), then queued for `Listener::accept`.
fn accept_loop(sock: TcpListener, secret: &'static [u8], tx: mpsc::Sender<Conn>, stop: Arc<AtomicBool>) {
    let handshakes = Handshakes::default();
    let mut next_id = 0u64;
    while !stop.load(Ordering::Acquire) {
        handshakes.end_overdue(HANDSHAKE_LIMIT);
        match sock.accept() {
            Ok((s, _)) => {
                let Ok(handle) = s.try_clone() else { continue };
                next_id += 1;
                let id = next_id;
                handshakes.add(id, handle);
                let tx = tx.clone();
                let list = handshakes.clone();
                let spawned = std::thread::Builder::new().name("ipc-handshake".into()).spawn(move || {
                    let passed =
                        s.set_nonblocking(false).is_ok() && auth::server_side(&s, secret, HANDSHAKE_LIMIT).is_ok();
                    list.remove(id);
                    // Gone already (peer_addr fails), or nobody to take it: dropped.
                    if passed && let Ok(c) = Conn::new(s) {
                        let _ = tx.send(c);
                    }
                });
                // Out of threads: the connection is dropped and its client fails its handshake.
                if spawned.is_err() {
                    handshakes.remove(id);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                let _ = wait_fd(
                    sock.as_raw_fd(),
                    libc::POLLIN,
                    Some(Instant::now() + Duration::from_millis(100)),
                );
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if matches!(e.raw_os_error(), Some(libc::ECONNABORTED | libc::EPROTO)) => {}
            // Out of descriptors, say: try again shortly rather than end the server.
            Err(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn handshakes_past_the_limit_end_the_oldest() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let hs = Handshakes::default();
        let mut clients = Vec::new();
        for id in 0..(MAX_HANDSHAKES as u64 + 3) {
            let c = TcpStream::connect(addr).unwrap();
            let (s, _) = l.accept().unwrap();
            hs.add(id, s);
            clients.push(c);
        }
        assert_eq!(hs.len(), MAX_HANDSHAKES);
        // The three oldest were shut down: their clients read the end.
        let mut b = [0u8; 1];
        for c in &mut clients[..3] {
            c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            assert_eq!(c.read(&mut b).unwrap(), 0);
        }
        hs.end_overdue(Duration::ZERO);
        assert_eq!(hs.len(), 0);
    }
}
