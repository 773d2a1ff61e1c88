//! What a parent knows of one child: its process, how it is reached (its own pipe, or a route
//! through the hub's ZeroMQ socket), what it sent that nobody has read yet, and how it ended.

use std::collections::VecDeque;
use std::process::ChildStdin;
use std::time::{Duration, Instant};

use super::data::Reach;
use super::envelope::Envelope;
use super::pipe::Pipe;
use super::shm;
use crate::error::{Error, Result};
use crate::process::launch::{self, StderrTail};
use crate::wire::handshake::Challenge;

/// How long a child that was asked to quit (or whose ssh lost its stdin) gets before SIGKILL; and
/// how long a child whose pipe closed may take to end.
pub const QUIT_GRACE: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, PartialEq)]
pub enum State {
    /// Started, not yet connected (over ZeroMQ: not yet proved the run's secret).
    Connecting,
    /// Connected, waiting for code.
    Idle,
    /// Running exec'd code.
    Running,
    /// Its code raised: message and traceback.
    Failed(String),
}

pub struct Child {
    pub label: String,
    pub reach: Reach,
    pub process: std::process::Child,
    pub stdin: Option<ChildStdin>,
    pub stderr: Option<StderrTail>,
    /// A local child's own connection (the fast path); None for one reached through ZeroMQ.
    pub pipe: Option<Pipe>,
    /// Its route through the hub's ZeroMQ socket, once it proved the run's secret.
    pub route: Option<Vec<u8>>,
    pub state: State,
    /// Data messages (frames after the routing id), oldest first.
    pub data: VecDeque<Vec<Vec<u8>>>,
    /// Yield acknowledgements not yet consumed by a join.
    pub acks: usize,
    /// How the process ended, once it has.
    pub ended: Option<String>,
    /// Sent with the welcome (`.t7`).
    pub welcome: Vec<u8>,
    /// The ZeroMQ handshakes under way for this child's id, by route, oldest first.
    pub challenges: VecDeque<(Vec<u8>, Challenge)>,
    /// Shared-memory segments of what we sent this child.
    pub pool: shm::Pool,
    /// Whether the segments between us were removed after the process ended.
    pub let_go: bool,
}

impl Child {
    /// Notices the end of the process. A child whose pipe closed is ending (the kernel closes a
    /// process's descriptors just before it becomes a zombie): it is waited for, and one that
    /// closed the pipe but lives on past the grace is of no use any more and is killed.
    pub fn reap(&mut self) {
        if self.ended.is_some() {
            return;
        }
        if let Ok(Some(status)) = self.process.try_wait() {
            self.ended = Some(launch::describe_status(status));
            return;
        }
        if !self.pipe.as_ref().is_some_and(Pipe::is_closed) {
            return;
        }
        let deadline = Instant::now() + QUIT_GRACE;
        let mut nap = Duration::from_micros(50);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.process.try_wait() {
                self.ended = Some(launch::describe_status(status));
                return;
            }
            std::thread::sleep(nap);
            nap = (nap * 2).min(Duration::from_millis(20));
        }
        let _ = self.process.kill();
        let _ = self.process.wait();
        self.ended = Some("closed its connection to the parent".into());
    }

    /// Whether everything the child sent has been read: its pipe reached its end. (Over ZeroMQ
    /// nobody can tell; the hub gives a dead child's last messages a moment to arrive.)
    pub fn drained(&self) -> bool {
        self.pipe.as_ref().is_some_and(Pipe::is_closed)
    }

    pub fn stderr_text(&self) -> String {
        let Some(tail) = &self.stderr else { return String::new() };
        let t = tail.lock().unwrap_or_else(|e| e.into_inner());
        let text = String::from_utf8_lossy(&t).trim().to_string();
        if text.is_empty() { text } else { format!(": {text}") }
    }

    /// The error for a child that failed or ended, if it did.
    pub fn trouble(&self) -> Option<Error> {
        if let State::Failed(m) = &self.state {
            return Some(Error::peer(format!("{} failed: {m}", self.label)));
        }
        self.ended
            .as_ref()
            .map(|how| Error::peer(format!("{} died ({how}){}", self.label, self.stderr_text())))
    }

    /// Sends one message to the child, through its pipe or its route on `router`.
    pub fn send(&self, router: Option<&zmq::Socket>, frames: Vec<Vec<u8>>, flags: i32) -> Result<()> {
        if let Some(pipe) = &self.pipe {
            return pipe.send(frames);
        }
        let (Some(route), Some(router)) = (&self.route, router) else {
            return Err(Error::peer(format!("{} is not connected", self.label)));
        };
        let mut all = Vec::with_capacity(frames.len() + 1);
        all.push(route.clone());
        all.extend(frames);
        router
            .send_multipart(all, flags)
            .map_err(|e| Error::peer(format!("{} cannot be reached ({e})", self.label)))
    }

    /// Once the process has ended and what it sent has been read: removes the segments it made
    /// (its messages are all read) and those we made for it (nobody reads them any more), rather
    /// than when the child is synced or the run ends. Storages already received keep their
    /// mappings.
    pub fn let_go_of_segments(&mut self) {
        if self.ended.is_none() || self.let_go || !self.data.is_empty() || self.reach != Reach::Local {
            return;
        }
        self.let_go = true;
        let run = self.pool.run().to_string();
        shm::forget_sender(&run, self.process.id());
        crate::cuda::share::forget_lender(self.process.id());
        self.pool = shm::Pool::new(&run);
    }

    /// Ends the process: asks politely when it is idle, then kills. Remote children end when
    /// their ssh closes (the remote side watches ssh's stdin).
    pub fn terminate(&mut self, router: Option<&zmq::Socket>, polite: bool) {
        if polite && self.ended.is_none() {
            let _ = self.send(router, vec![Envelope::Quit.encode()], zmq::DONTWAIT);
        }
        self.stdin = None;
        if polite || self.reach == Reach::Remote {
            let deadline = Instant::now() + QUIT_GRACE;
            let mut nap = Duration::from_micros(100);
            while self.ended.is_none() && Instant::now() < deadline {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(5));
                if let Ok(Some(status)) = self.process.try_wait() {
                    self.ended = Some(launch::describe_status(status));
                }
            }
        }
        if self.ended.is_none() {
            let _ = self.process.kill();
            if let Ok(status) = self.process.wait() {
                self.ended = Some(launch::describe_status(status));
            }
        }
        self.pipe = None;
        self.data.clear();
    }
}
