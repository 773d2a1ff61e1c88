//! The child side: the connection to the parent, read from the bootstrap line on stdin: the pipe
//! it inherited (a local child, the fast path, `pipe.rs`) or a ZeroMQ DEALER.
//!
//! After the line, stdin stays open for as long as the parent lives; a thread waits for its end
//! and ends the process then. For a remote child (whose parent is an ssh client far away) that is
//! how the parent's death, or `close()`, reaches it.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::data::Reach;
use super::envelope::{Bootstrap, Envelope, FD_SCHEME};
use super::owed::{self, Peer};
use super::pipe::{Got, Pipe};
use super::{pieces, shm};
use crate::error::{Error, Result};
use crate::process::gate;
use crate::process::stdin::{read_line_from_stdin, watch_stdin};
use crate::wire::handshake;

/// How long a child waits for its parent's welcome before giving up.
const WELCOME_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a failing child's last message may take to leave.
const FLUSH_MS: i32 = 5000;
const FLUSH: Duration = Duration::from_millis(FLUSH_MS as u64);
/// How long a failing child waits for its parent to take the failure before exiting anyway.
const FAILED_PATIENCE: Duration = Duration::from_secs(2);

/// The DEALER and its context (dropped in this order: the context waits for the socket's
/// queued messages to leave, up to the linger time).
struct Dealer {
    socket: zmq::Socket,
    _ctx: zmq::Context,
}

enum Conn {
    Zmq(Dealer),
    Pipe(Pipe),
}

pub struct Link {
    conn: Option<Conn>,
    pub id: u32,
    pub run: String,
    pub reach: Reach,
    joins: VecDeque<Vec<u8>>,
    data: VecDeque<Vec<Vec<u8>>>,
    execs: VecDeque<(bool, Vec<u8>)>,
    quit: bool,
    rcvtimeo: i32,
    /// The parent acknowledged our failure report.
    failure_seen: bool,
    /// Shared-memory segments of what we sent the parent.
    pub pool: shm::Pool,
}

fn zmq_err(what: &str, e: zmq::Error) -> Error {
    Error::io(format!("{what}: {e}"))
}

impl Link {
    /// Reads the bootstrap line, connects to the parent, and waits for the welcome, the two having
    /// proved the run's secret to each other; returns the welcome's `.t7` body.
    pub fn connect() -> Result<(Link, Vec<u8>)> {
        let line = read_line_from_stdin()?;
        let boot =
            Bootstrap::parse(&line).ok_or_else(|| Error::argument("this process was not started by parallel.fork"))?;
        watch_stdin();
        if let Some(fd) = boot.endpoint.strip_prefix(FD_SCHEME) {
            let fd = fd
                .parse()
                .map_err(|_| Error::argument(format!("bad endpoint {}", boot.endpoint)))?;
            return Link::connect_pipe(&boot, Pipe::inherited(fd)?);
        }
        let ctx = zmq::Context::new();
        let dealer = ctx
            .socket(zmq::DEALER)
            .map_err(|e| zmq_err("cannot make a socket", e))?;
        let setup = || -> zmq::Result<()> {
            dealer.set_sndhwm(0)?;
            dealer.set_rcvhwm(0)?;
            dealer.set_linger(FLUSH_MS)?;
            gate::present(&dealer, &boot.secret)?;
            dealer.connect(&boot.endpoint)
        };
        setup().map_err(|e| zmq_err(&format!("cannot connect to {}", boot.endpoint), e))?;
        let hello = Envelope::Hello {
            id: boot.id,
            pid: std::process::id(),
        };
        dealer
            .send(hello.encode(), 0)
            .map_err(|e| zmq_err("cannot greet the parent", e))?;
        let reach = if boot.endpoint.starts_with("tcp://") {
            Reach::Remote
        } else {
            Reach::Local
        };
        if reach == Reach::Local {
            crate::process::sweep::sweep_as_child(&boot.run);
        }
        let conn = Conn::Zmq(Dealer {
            socket: dealer,
            _ctx: ctx,
        });
        let mut link = Link::new(&boot, conn, reach);
        let deadline = Instant::now() + WELCOME_TIMEOUT;
        let mut answered = None;
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(Error::peer("the parent did not answer"));
            }
            let Some(frames) = link.recv(remaining.as_millis() as i64)? else {
                continue;
            };
            match frames.first().and_then(|f| Envelope::split(f)) {
                Some((Envelope::Challenge { challenge }, _)) => {
                    let (answer, expect) = handshake::answer(&boot.secret, &challenge)?;
                    link.send_frames(vec![Envelope::Answer { answer }.encode()])?;
                    answered = Some(expect);
                }
                // Nothing from the parent is run before it proved the secret too.
                Some((Envelope::Welcome { confirmation }, body)) => {
                    let expect = answered
                        .take()
                        .ok_or_else(|| Error::peer("the parent welcomed this child unasked"))?;
                    expect
                        .check(&confirmation)
                        .map_err(|_| Error::peer("the parent does not know the run's secret"))?;
                    return Ok((link, body.to_vec()));
                }
                _ => {}
            }
        }
    }

    fn new(boot: &Bootstrap, conn: Conn, reach: Reach) -> Link {
        Link {
            conn: Some(conn),
            id: boot.id,
            run: boot.run.clone(),
            reach,
            joins: VecDeque::new(),
            data: VecDeque::new(),
            execs: VecDeque::new(),
            quit: false,
            rcvtimeo: -1,
            failure_seen: false,
            pool: shm::Pool::new(&boot.run),
        }
    }

    /// The fast path: the pipe is ours and the parent's alone, so there is nothing to prove. The
    /// parent wrote the welcome before we started; our hello tells it we are up.
    fn connect_pipe(boot: &Bootstrap, pipe: Pipe) -> Result<(Link, Vec<u8>)> {
        crate::process::sweep::sweep_as_child(&boot.run);
        let mut link = Link::new(boot, Conn::Pipe(pipe), Reach::Local);
        let hello = Envelope::Hello {
            id: boot.id,
            pid: std::process::id(),
        };
        link.send_frames(vec![hello.encode()])?;
        let deadline = Instant::now() + WELCOME_TIMEOUT;
        while Instant::now() < deadline {
            let Some(frames) = link.recv(100)? else {
                continue;
            };
            if let Some((Envelope::Welcome { .. }, body)) = frames.first().and_then(|f| Envelope::split(f)) {
                return Ok((link, body.to_vec()));
            }
        }
        Err(Error::peer("the parent did not answer"))
    }

    /// One message, waiting up to `timeout_ms` (0: only what is there).
    fn recv(&mut self, timeout_ms: i64) -> Result<Option<Vec<Vec<u8>>>> {
        let closed = || Error::peer("the connection to the parent is closed");
        let s = match self.conn.as_mut().ok_or_else(closed)? {
            Conn::Pipe(p) => {
                return match p.recv(timeout_ms)? {
                    Got::Message(m) => Ok(Some(m)),
                    Got::Nothing => Ok(None),
                    // The parent is gone: as when stdin closes (see `watch_stdin`), and at
                    // once, before this process could end some other way and leave the run's
                    // segments behind.
                    Got::Closed => {
                        crate::process::sweep::sweep_after_stdin_closed();
                        // SAFETY: ends the process without running anything else.
                        unsafe { libc::_exit(1) }
                    }
                };
            }
            Conn::Zmq(d) => &d.socket,
        };
        let t = i32::try_from(timeout_ms).unwrap_or(i32::MAX);
        let flags = if t == 0 {
            zmq::DONTWAIT
        } else {
            if self.rcvtimeo != t {
                s.set_rcvtimeo(t).map_err(|e| zmq_err("socket option", e))?;
                self.rcvtimeo = t;
            }
            0
        };
        match s.recv_multipart(flags) {
            Ok(f) => Ok(Some(f)),
            Err(zmq::Error::EAGAIN) | Err(zmq::Error::EINTR) => Ok(None),
            Err(e) => Err(zmq_err("receive failed", e)),
        }
    }

    /// Sorts everything that arrived into its queue; waits up to `timeout_ms` for the first.
    fn pump(&mut self, timeout_ms: i64) -> Result<()> {
        self.send_releases()?;
        let mut wait = timeout_ms;
        while let Some(frames) = self.recv(wait)? {
            // After a wait, one message is enough (see Hub::pump).
            let waited = wait != 0;
            wait = 0;
            let Some((env, body)) = frames.first().and_then(|f| Envelope::split(f)) else {
                continue;
            };
            match env {
                Envelope::Join => self.joins.push_back(body.to_vec()),
                Envelope::Data => self.data.push_back(frames),
                Envelope::Exec { bytecode } => {
                    // Joins from before the exec were meant for the code that ended.
                    self.joins.clear();
                    self.execs.push_back((bytecode, body.to_vec()));
                }
                Envelope::Quit => self.quit = true,
                Envelope::FailureSeen => self.failure_seen = true,
                Envelope::Release { owed } => {
                    for o in owed {
                        self.pool.release(o);
                    }
                }
                _ => {}
            }
            if waited {
                break;
            }
        }
        Ok(())
    }

    /// Waits (a parent that dies ends this process: no timeout needed) until `ready` holds.
    fn wait_for(&mut self, mut ready: impl FnMut(&mut Link) -> bool) -> Result<()> {
        while !ready(self) {
            if self.quit {
                return Err(Error::peer("the parent asked this child to quit"));
            }
            if crate::interrupt::pending() {
                return Err(Error::peer("interrupted"));
            }
            self.pump(1000)?;
        }
        Ok(())
    }

    /// Tells the parent what it sent that our collected storages no longer use.
    pub fn send_releases(&self) -> Result<()> {
        let owed: Vec<_> = owed::take_releases(|p| p == Peer::Parent)
            .into_iter()
            .map(|(_, o)| o)
            .collect();
        if owed.is_empty() {
            return Ok(());
        }
        self.send_frames(vec![Envelope::Release { owed }.encode()])
    }

    pub fn send_frames(&self, frames: Vec<Vec<u8>>) -> Result<()> {
        match &self.conn {
            Some(Conn::Pipe(p)) => p.send(frames).map_err(|e| e.context("cannot send to the parent")),
            Some(Conn::Zmq(d)) => d
                .socket
                .send_multipart(pieces::split(frames), 0)
                .map_err(|e| zmq_err("cannot send to the parent", e)),
            None => Err(Error::peer("the connection to the parent is closed")),
        }
    }

    /// `parallel.yield()`: the next join's message, acknowledged.
    pub fn yield_now(&mut self) -> Result<Vec<u8>> {
        self.wait_for(|l| !l.joins.is_empty())?;
        let msg = self.joins.pop_front().unwrap_or_default();
        self.send_frames(vec![Envelope::YieldAck.encode()])?;
        Ok(msg)
    }

    pub fn receive(&mut self, noblock: bool) -> Result<Option<Vec<Vec<u8>>>> {
        if noblock {
            self.pump(0)?;
        } else {
            self.wait_for(|l| !l.data.is_empty())?;
        }
        Ok(self.data.pop_front())
    }

    /// The next code to run, or None when the parent wants this child to end.
    pub fn next_exec(&mut self) -> Result<Option<(bool, Vec<u8>)>> {
        match self.wait_for(|l| !l.execs.is_empty() || l.quit) {
            Ok(()) => Ok(self.execs.pop_front()),
            Err(e) if self.quit => {
                let _ = e;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    pub fn done(&mut self) -> Result<()> {
        // A join that arrived as the code ended belongs to no yield; the next code must not take it.
        self.pump(0)?;
        self.joins.clear();
        self.send_frames(vec![Envelope::Done.encode()])
    }

    /// Reports a failure and makes sure it has left before the process ends.
    pub fn failed(&mut self, message: &str) -> Result<()> {
        let sent = self.send_frames(vec![Envelope::Failed.with_body(message.as_bytes())]);
        // Over ZeroMQ, stay connected until the parent has taken the failure (it answers
        // FailureSeen) or a while has passed: a message from a peer that disconnected at once can
        // sit unread in the parent's socket. A pipe keeps it for the parent: flushing is enough.
        let pipe = matches!(self.conn, Some(Conn::Pipe(_)));
        if sent.is_ok() && !pipe {
            let deadline = std::time::Instant::now() + FAILED_PATIENCE;
            while std::time::Instant::now() < deadline && !self.failure_seen {
                if self.pump(50).is_err() {
                    break;
                }
            }
        }
        self.flush();
        sent
    }

    /// Closes the connection, waiting (up to the linger time) for queued messages to leave.
    pub fn flush(&mut self) {
        if let Some(Conn::Pipe(p)) = &self.conn {
            p.flush(FLUSH);
        }
        self.conn = None;
    }
}
