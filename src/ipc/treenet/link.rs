//! The data links of a tree's socket allreduce: authenticated TCP connections to other nodes,
//! non-blocking, each with a queue of byte ranges to send and one byte range to fill, all moved
//! forward together by `drive` in one poll loop (so that a node sends, receives and sums at once,
//! and no order of blocking calls can deadlock).
//!
//! A link whose peer went away (end of stream, reset) fails the call, naming the node; a wait
//! notices Ctrl-C in the REPL.

use std::collections::VecDeque;
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::ipc::net::wait::{errno, os_text, wait_fds};

pub struct Link {
    /// The peer's node index (1-based, as users count).
    pub node: usize,
    sock: TcpStream,
    /// Byte ranges to send, in order; the first has `sent` bytes gone.
    sendq: VecDeque<(*const u8, usize)>,
    sent: usize,
    /// The range being filled, and how much of it has come.
    recv: Option<(*mut u8, usize)>,
    pub got: usize,
}

impl Link {
    pub fn new(node: usize, sock: TcpStream) -> Result<Link> {
        sock.set_nonblocking(true)
            .map_err(|e| Error::io(format!("cannot set up the link to node {node}: {e}")))?;
        let _ = sock.set_nodelay(true);
        Ok(Link {
            node,
            sock,
            sendq: VecDeque::new(),
            sent: 0,
            recv: None,
            got: 0,
        })
    }

    fn fd(&self) -> i32 {
        self.sock.as_raw_fd()
    }

    fn gone(&self, how: &str) -> Error {
        Error::peer(format!(
            "node {} left ({how}: it died, closed its tree or failed)",
            self.node
        ))
    }

    /// Queues `len` bytes at `p` to send. The caller keeps them unchanged until `idle_send`.
    pub fn send(&mut self, p: *const u8, len: usize) {
        if len > 0 {
            self.sendq.push_back((p, len));
        }
    }

    /// Starts filling `len` bytes at `p`. The caller keeps them unused until `received`.
    pub fn expect(&mut self, p: *mut u8, len: usize) {
        debug_assert!(self.recv.is_none(), "a link fills one range at a time");
        self.recv = Some((p, len));
        self.got = 0;
    }

    /// Whether everything queued has been handed to the kernel.
    pub fn idle_send(&self) -> bool {
        self.sendq.is_empty()
    }

    /// Whether the range being filled (if any) is complete; it is then forgotten.
    pub fn received(&mut self) -> bool {
        match self.recv {
            Some((_, len)) if self.got == len => {
                self.recv = None;
                true
            }
            _ => false,
        }
    }

    /// Whether a range is being filled.
    pub fn expecting(&self) -> bool {
        self.recv.is_some()
    }

    /// Sends what the kernel takes, several queued ranges per call (a header and its message
    /// go in one packet); whether anything went.
    fn pump_send(&mut self) -> Result<bool> {
        let mut moved = false;
        while !self.sendq.is_empty() {
            let mut iov = [libc::iovec {
                iov_base: std::ptr::null_mut(),
                iov_len: 0,
            }; 8];
            let mut count = 0;
            for (i, &(p, len)) in self.sendq.iter().take(iov.len()).enumerate() {
                let skip = if i == 0 { self.sent } else { 0 };
                // SAFETY: the caller of `send` keeps the range valid until it is sent.
                iov[i].iov_base = unsafe { p.add(skip) } as *mut libc::c_void;
                iov[i].iov_len = len - skip;
                count = i + 1;
            }
            // SAFETY: a zeroed msghdr is valid; it points at `count` iovecs of ours.
            let r = unsafe {
                let mut msg: libc::msghdr = std::mem::zeroed();
                msg.msg_iov = iov.as_mut_ptr();
                msg.msg_iovlen = count as _;
                libc::sendmsg(self.fd(), &msg, libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL)
            };
            if r > 0 {
                moved = true;
                let mut left = r as usize;
                while left > 0 {
                    let Some(&(_, len)) = self.sendq.front() else { break };
                    let rest = len - self.sent;
                    if left >= rest {
                        left -= rest;
                        self.sendq.pop_front();
                        self.sent = 0;
                    } else {
                        self.sent += left;
                        left = 0;
                    }
                }
                continue;
            }
            if r == 0 {
                break;
            }
            match errno() {
                libc::EINTR => continue,
                libc::EAGAIN => break,
                libc::EPIPE | libc::ECONNRESET => return Err(self.gone("its connection closed")),
                e => return Err(Error::io(format!("sending to node {}: {}", self.node, os_text(e)))),
            }
        }
        Ok(moved)
    }

    /// Receives what has come into the range being filled; whether anything came.
    fn pump_recv(&mut self) -> Result<bool> {
        let mut moved = false;
        while let Some((p, len)) = self.recv {
            if self.got == len {
                break;
            }
            // SAFETY: the caller of `expect` keeps the range valid and unused until it is full.
            let r = unsafe { libc::recv(self.fd(), p.add(self.got).cast(), len - self.got, libc::MSG_DONTWAIT) };
            if r > 0 {
                moved = true;
                self.got += r as usize;
                continue;
            }
            if r == 0 {
                return Err(self.gone("its connection closed"));
            }
            match errno() {
                libc::EINTR => continue,
                libc::EAGAIN => break,
                libc::ECONNRESET => return Err(self.gone("its connection was reset")),
                e => return Err(Error::io(format!("receiving from node {}: {}", self.node, os_text(e)))),
            }
        }
        Ok(moved)
    }

    /// Ends the link at once, so that the peer's waits end too.
    pub fn shut(&self) {
        let _ = self.sock.shutdown(std::net::Shutdown::Both);
    }
}

/// What a step of an algorithm says after looking at its links.
#[derive(PartialEq, Eq)]
pub enum Step {
    Done,
    /// It queued sends or set ranges to fill: move the links again before waiting.
    Moved,
    Waiting,
}

/// How long `drive` asks again before it sleeps in `poll`: LUATORCH_TREE_NET_SPIN_US, default 50.
fn spin_budget() -> Duration {
    static US: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    Duration::from_micros(*US.get_or_init(|| crate::settings::number(crate::settings::TREE_NET_SPIN_US).unwrap_or(50)))
}

/// Moves every link forward and calls `step` after each round, until it says Done. Waits in
/// `poll` when nothing moved for a while.
pub fn drive(links: &mut [Link], polite: bool, mut step: impl FnMut(&mut [Link]) -> Result<Step>) -> Result<()> {
    let mut fds: Vec<libc::pollfd> = Vec::with_capacity(links.len());
    let spin = spin_budget();
    let mut idle_since: Option<Instant> = None;
    loop {
        let mut moved = false;
        for l in links.iter_mut() {
            moved |= l.pump_send()?;
            moved |= l.pump_recv()?;
        }
        match step(links)? {
            Step::Done => return Ok(()),
            Step::Moved => continue,
            Step::Waiting if moved => {
                idle_since = None;
                continue;
            }
            Step::Waiting => {}
        }
        // Ask again for a while before sleeping: a running peer's bytes come within a round
        // trip, and a sleep costs a wake-up (tens of microseconds on a busy machine). `polite`
        // (more nodes than CPUs: the peer may need this one) yields between the tries.
        let since = *idle_since.get_or_insert_with(Instant::now);
        if since.elapsed() < spin {
            if polite {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
            continue;
        }
        idle_since = None;
        fds.clear();
        for l in links.iter() {
            let mut events = 0;
            if l.recv.is_some_and(|(_, len)| l.got < len) {
                events |= libc::POLLIN;
            }
            if !l.sendq.is_empty() {
                events |= libc::POLLOUT;
            }
            if events != 0 {
                fds.push(libc::pollfd {
                    fd: l.fd(),
                    events,
                    revents: 0,
                });
            }
        }
        if fds.is_empty() {
            return Err(Error::io("internal error: the allreduce waits for nothing"));
        }
        // In slices, so that Ctrl-C in the REPL is seen (wait_fds reports it).
        wait_fds(&mut fds, Some(Instant::now() + Duration::from_millis(200))).map_err(Error::from)?;
    }
}
