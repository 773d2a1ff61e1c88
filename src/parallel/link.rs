//! The child side: the connection to the parent, read from the bootstrap line on stdin.
//!
//! After the line, stdin stays open for as long as the parent lives; a thread waits for its end
//! and ends the process then. For a remote child (whose parent is an ssh client far away) that is
//! how the parent's death, or `close()`, reaches it.

use std::collections::VecDeque;
use std::io::Read;
use std::time::{Duration, Instant};

use super::shm::{self, Peer};
use super::values::Reach;
use super::wire::{Bootstrap, Envelope};

type Res<T> = std::result::Result<T, String>;

/// How long a child waits for its parent's welcome before giving up.
const WELCOME_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a failing child's last message may take to leave.
const FLUSH_MS: i32 = 5000;
/// How long a failing child waits for its parent to take the failure before exiting anyway.
const FAILED_PATIENCE: Duration = Duration::from_secs(2);

pub struct Link {
    ctx: Option<zmq::Context>,
    dealer: Option<zmq::Socket>,
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

/// Reads one line from fd 0 a byte at a time (nothing past it may be consumed: the rest of stdin
/// is the watchdog's).
fn read_line_from_stdin() -> Res<String> {
    let mut line = Vec::new();
    let mut stdin = std::io::stdin().lock();
    let mut byte = [0u8; 1];
    loop {
        match stdin.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => {
                line.push(byte[0]);
                if line.len() > 4096 {
                    return Err("the bootstrap line is too long".into());
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("cannot read stdin: {e}")),
        }
    }
    String::from_utf8(line).map_err(|_| "the bootstrap line is not text".into())
}

/// Ends the process when stdin reaches its end: the parent is gone or closed us.
fn watch_stdin() {
    std::thread::spawn(|| {
        let mut buf = [0u8; 256];
        let mut stdin = std::io::stdin().lock();
        loop {
            match stdin.read(&mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        // SAFETY: ends the process without running anything else (the parent is gone).
        unsafe { libc::_exit(1) };
    });
}

fn zmq_err(what: &str, e: zmq::Error) -> String {
    format!("{what}: {e}")
}

impl Link {
    /// Reads the bootstrap line, connects to the parent, proves the secret and waits for the
    /// welcome, whose `.t7` body is returned.
    pub fn connect() -> Res<(Link, Vec<u8>)> {
        let line = read_line_from_stdin()?;
        let boot = Bootstrap::parse(&line).ok_or("this process was not started by parallel.fork")?;
        watch_stdin();
        let ctx = zmq::Context::new();
        let dealer = ctx
            .socket(zmq::DEALER)
            .map_err(|e| zmq_err("cannot make a socket", e))?;
        let setup = || -> zmq::Result<()> {
            dealer.set_sndhwm(0)?;
            dealer.set_rcvhwm(0)?;
            dealer.set_linger(FLUSH_MS)?;
            dealer.connect(&boot.endpoint)
        };
        setup().map_err(|e| zmq_err(&format!("cannot connect to {}", boot.endpoint), e))?;
        let hello = Envelope::Hello {
            id: boot.id,
            secret: boot.secret.clone(),
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
        let mut link = Link {
            ctx: Some(ctx),
            dealer: Some(dealer),
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
        };
        let deadline = Instant::now() + WELCOME_TIMEOUT;
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err("the parent did not answer".into());
            }
            let frames = link.recv(remaining.as_millis() as i64)?;
            if let Some(frames) = frames
                && let Some((Envelope::Welcome, body)) = frames.first().and_then(|f| Envelope::split(f))
            {
                return Ok((link, body.to_vec()));
            }
        }
    }

    fn socket(&self) -> Res<&zmq::Socket> {
        self.dealer
            .as_ref()
            .ok_or_else(|| "the connection to the parent is closed".into())
    }

    /// One message, waiting up to `timeout_ms` (-1: forever; 0: only what is there).
    fn recv(&mut self, timeout_ms: i64) -> Res<Option<Vec<Vec<u8>>>> {
        let t = i32::try_from(timeout_ms).unwrap_or(i32::MAX);
        let s = self.dealer.as_ref().ok_or("the connection to the parent is closed")?;
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
    fn pump(&mut self, timeout_ms: i64) -> Res<()> {
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
                Envelope::Data { .. } => self.data.push_back(frames),
                Envelope::Exec { bytecode } => {
                    // Joins from before the exec were meant for the code that ended.
                    self.joins.clear();
                    self.execs.push_back((bytecode, body.to_vec()));
                }
                Envelope::Quit => self.quit = true,
                Envelope::FailureSeen => self.failure_seen = true,
                Envelope::Release { names } => {
                    for n in names {
                        self.pool.release(&n);
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
    fn wait_for(&mut self, mut ready: impl FnMut(&mut Link) -> bool) -> Res<()> {
        while !ready(self) {
            if self.quit {
                return Err("the parent asked this child to quit".into());
            }
            if crate::repl::interrupt::pending() {
                return Err("interrupted".into());
            }
            self.pump(1000)?;
        }
        Ok(())
    }

    /// Tells the parent which of its segments our collected storages no longer use.
    pub fn send_releases(&self) -> Res<()> {
        let names: Vec<String> = shm::take_releases(|p| p == Peer::Parent)
            .into_iter()
            .map(|(_, n)| n)
            .collect();
        if names.is_empty() {
            return Ok(());
        }
        self.send_frames(vec![Envelope::Release { names }.encode()])
    }

    pub fn send_frames(&self, frames: Vec<Vec<u8>>) -> Res<()> {
        self.socket()?
            .send_multipart(frames, 0)
            .map_err(|e| zmq_err("cannot send to the parent", e))
    }

    /// `parallel.yield()`: the next join's message, acknowledged.
    pub fn yield_now(&mut self) -> Res<Vec<u8>> {
        self.wait_for(|l| !l.joins.is_empty())?;
        let msg = self.joins.pop_front().unwrap_or_default();
        self.send_frames(vec![Envelope::YieldAck.encode()])?;
        Ok(msg)
    }

    pub fn receive(&mut self, noblock: bool) -> Res<Option<Vec<Vec<u8>>>> {
        if noblock {
            self.pump(0)?;
        } else {
            self.wait_for(|l| !l.data.is_empty())?;
        }
        Ok(self.data.pop_front())
    }

    /// The next code to run, or None when the parent wants this child to end.
    pub fn next_exec(&mut self) -> Res<Option<(bool, Vec<u8>)>> {
        match self.wait_for(|l| !l.execs.is_empty() || l.quit) {
            Ok(()) => Ok(self.execs.pop_front()),
            Err(e) if self.quit => {
                let _ = e;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    pub fn done(&mut self) -> Res<()> {
        // A join that arrived as the code ended belongs to no yield; the next code must not take it.
        self.pump(0)?;
        self.joins.clear();
        self.send_frames(vec![Envelope::Done.encode()])
    }

    /// Reports a failure and makes sure it has left before the process ends.
    pub fn failed(&mut self, message: &str) -> Res<()> {
        let sent = self.send_frames(vec![Envelope::Failed.with_body(message.as_bytes())]);
        // Stay connected until the parent has taken the failure (it answers with a Release of
        // nothing) or a while has passed: a message from a peer that disconnected at once can
        // sit unread in the parent's socket.
        if sent.is_ok() {
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
        self.dealer = None;
        self.ctx = None;
    }
}
