//! The parent side: its children, each reached through a pipe of its own (a local child, the fast
//! path, pipe.rs) or through the hub's ZeroMQ socket (a remote child, or a local one when
//! `LUATORCH_PARALLEL_FAST=0`; router.rs), and what each child has sent that nobody has read yet.
//!
//! Every wait here watches the child's process as well as its connection, so a child that dies
//! turns into an error instead of a hang.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

use super::data::{Reach, Serialized};
use super::envelope::{Bootstrap, Envelope};
use super::kid::{Child, QUIT_GRACE, State};
use super::owed::{self, Owed, Peer};
use super::pipe::{self, Got};
use super::router::Router;
use super::shm;
use crate::error::{Error, Result};
use crate::process::launch::{self, Spec};
use crate::wire::handshake;

/// How long one wait for messages lasts before the children's processes are looked at again.
const POLL_MS: i64 = 100;
/// How long `exec` waits for a child's previous code to return.
const EXEC_PATIENCE: Duration = Duration::from_secs(10);
/// What `wait` says when its deadline passed.
const TIMED_OUT: &str = "timed out";
/// Set to 0, local children are reached through ZeroMQ as remote ones are (the fast path off).
pub const FAST_ENV: &str = crate::settings::PARALLEL_FAST;

/// Whether local children get a pipe of their own.
fn fast_path() -> bool {
    !crate::settings::is_off(FAST_ENV)
}

pub struct Hub {
    /// The ZeroMQ side, made when the first child that needs it is forked.
    router: Option<Router>,
    secret: Vec<u8>,
    run: String,
    children: BTreeMap<u32, Child>,
    /// Children that are gone, and why (for errors on stale handles).
    gone: HashMap<u32, String>,
}

/// What the parent is waiting for.
enum Want {
    Connected,
    Ack,
    Data,
    NotRunning,
}

impl Hub {
    pub fn new(run: &str) -> Result<Hub> {
        Ok(Hub {
            router: None,
            secret: handshake::random_bytes(32)?,
            run: run.to_string(),
            children: BTreeMap::new(),
            gone: HashMap::new(),
        })
    }

    pub fn run(&self) -> &str {
        &self.run
    }

    fn router(&mut self) -> Result<&mut Router> {
        if self.router.is_none() {
            self.router = Some(Router::new(&self.secret)?);
        }
        Ok(self.router.as_mut().expect("made above"))
    }

    fn socket(&self) -> Option<&zmq::Socket> {
        self.router.as_ref().map(|r| &r.socket)
    }

    /// Starts child `id`; `connect_ip` is the address a remote child connects back to.
    pub fn fork(&mut self, id: u32, spec: &Spec, connect_ip: Option<&str>, welcome: Vec<u8>) -> Result<u32> {
        if self.children.contains_key(&id) {
            return Err(Error::argument(format!("child {id} exists already")));
        }
        let fast = spec.host.is_none() && fast_path();
        let (pipe, inherited) = if fast {
            let (mine, theirs) = pipe::pair()?;
            (Some(mine), Some(theirs))
        } else {
            (None, None)
        };
        let (endpoint, reach) = match (&spec.host, connect_ip, &inherited) {
            (None, _, Some(fd)) => (
                format!("{}{}", super::envelope::FD_SCHEME, std::os::fd::AsRawFd::as_raw_fd(fd)),
                Reach::Local,
            ),
            (None, _, None) => (self.router()?.ipc_endpoint.clone(), Reach::Local),
            (Some(_), Some(ip), _) => (self.router()?.tcp_endpoint(ip)?, Reach::Remote),
            (Some(_), None, _) => {
                return Err(Error::argument("no address for the remote child to connect back to"));
            }
        };
        let boot = Bootstrap {
            endpoint,
            id,
            secret: self.secret.clone(),
            run: self.run.clone(),
        };
        let keep: Option<RawFd> = inherited.as_ref().map(std::os::fd::AsRawFd::as_raw_fd);
        let launched = launch::spawn_with(spec, &boot.line(), keep)?;
        // The child has its copy; ours would keep its end open after it died.
        drop(inherited);
        let pid = launched.process.id();
        let label = match &spec.host {
            None => format!("child {id} (pid {pid})"),
            Some(h) => format!("child {id} (on {h}, ssh pid {pid})"),
        };
        // A child on a pipe needs no handshake (nobody else has the pipe): its welcome waits for
        // it there, and its hello says it is up.
        if let Some(p) = &pipe {
            let env = Envelope::Welcome {
                confirmation: Vec::new(),
            };
            // A child that died at once shows as such while it is awaited.
            let _ = p.send(vec![env.with_body(&welcome)]);
        }
        self.gone.remove(&id);
        self.children.insert(
            id,
            Child {
                label,
                reach,
                process: launched.process,
                stdin: Some(launched.stdin),
                stderr: launched.stderr,
                pipe,
                route: None,
                state: State::Connecting,
                data: VecDeque::new(),
                acks: 0,
                ended: None,
                welcome,
                challenges: VecDeque::new(),
                pool: shm::Pool::new(&self.run),
                let_go: false,
            },
        );
        Ok(pid)
    }

    fn child(&mut self, id: u32) -> Result<&mut Child> {
        if !self.children.contains_key(&id) {
            return Err(match self.gone.get(&id) {
                Some(why) => Error::peer(format!("child {id} {why}")),
                None => Error::argument(format!("there is no child {id}")),
            });
        }
        Ok(self.children.get_mut(&id).expect("checked"))
    }

    /// Reads what arrived, waiting up to `timeout_ms` for the first message; returns how many
    /// messages came. Waiting on `focus`, a child with a pipe, reads only its pipe (what the
    /// others send waits in their sockets): one blocking read, the fewest system calls.
    fn pump(&mut self, timeout_ms: i64, focus: Option<u32>) -> Result<usize> {
        self.send_releases();
        let open_pipe = |c: &Child| c.pipe.as_ref().is_some_and(|p| !p.is_closed());
        if let Some(id) = focus
            && self.children.get(&id).is_some_and(open_pipe)
        {
            return self.pump_pipe(id, timeout_ms);
        }
        let pipes: Vec<(u32, RawFd)> = self
            .children
            .iter()
            .filter(|(_, c)| open_pipe(c))
            .map(|(&id, c)| (id, c.pipe.as_ref().expect("open").raw_fd()))
            .collect();
        // The socket matters only while a child is reached through it.
        let zmq_children = self.children.values().any(|c| c.pipe.is_none() && c.ended.is_none());
        let use_router = zmq_children && self.router.is_some();
        if timeout_ms == 0 {
            let mut count = 0;
            for (id, _) in pipes {
                count += self.pump_pipe(id, 0)?;
            }
            if use_router {
                count += self.pump_router(0)?;
            }
            return Ok(count);
        }
        match (pipes.as_slice(), use_router) {
            ([], false) => {
                // Nothing to read from: the caller looks at the processes again soon.
                std::thread::sleep(Duration::from_millis(timeout_ms.clamp(0, 5) as u64));
                Ok(0)
            }
            ([], true) => self.pump_router(timeout_ms),
            (&[(id, _)], false) => self.pump_pipe(id, timeout_ms),
            _ => {
                let ready = self.poll(&pipes, use_router, timeout_ms)?;
                let mut count = 0;
                for (i, &(id, _)) in pipes.iter().enumerate() {
                    if ready[i] {
                        count += self.pump_pipe(id, 0)?;
                    }
                }
                if use_router && ready[pipes.len()] {
                    count += self.pump_router(0)?;
                }
                Ok(count)
            }
        }
    }

    /// Which of `pipes` (and then the socket, when `with_router`) have something to read.
    fn poll(&self, pipes: &[(u32, RawFd)], with_router: bool, timeout_ms: i64) -> Result<Vec<bool>> {
        let mut items: Vec<zmq::PollItem> = pipes
            .iter()
            .map(|&(_, fd)| zmq::PollItem::from_fd(fd, zmq::POLLIN))
            .collect();
        if with_router && let Some(s) = self.socket() {
            items.push(s.as_poll_item(zmq::POLLIN));
        }
        match zmq::poll(&mut items, timeout_ms) {
            Ok(_) | Err(zmq::Error::EINTR) => {}
            Err(e) => return Err(Error::io(format!("poll failed: {e}"))),
        }
        let mut ready: Vec<bool> = items.iter().map(|i| i.get_revents().bits() != 0).collect();
        ready.resize(pipes.len() + 1, false);
        Ok(ready)
    }

    /// Reads child `id`'s pipe: one message, waiting up to `timeout_ms` for it (0: all there
    /// is), and any others read with it.
    fn pump_pipe(&mut self, id: u32, timeout_ms: i64) -> Result<usize> {
        let mut count = 0;
        loop {
            let Some(pipe) = self.children.get_mut(&id).and_then(|c| c.pipe.as_mut()) else {
                return Ok(count);
            };
            // After a wait, what came with the message is enough: an empty look costs a system
            // call, and the caller looks again.
            let got = if count > 0 && timeout_ms != 0 {
                pipe.take_buffered().map(|m| m.map_or(Got::Nothing, Got::Message))
            } else {
                pipe.recv(timeout_ms)
            };
            match got {
                Ok(Got::Message(frames)) => {
                    self.handle(id, frames);
                    count += 1;
                }
                Ok(Got::Nothing) => return Ok(count),
                Ok(Got::Closed) => {
                    if let Some(c) = self.children.get_mut(&id) {
                        c.reap();
                    }
                    return Ok(count);
                }
                Err(e) => {
                    // A child that garbles its stream is of no use: it goes, with the reason.
                    let child = self.child(id)?;
                    child.terminate(None, false);
                    child.ended = Some(format!("was ended: {e}"));
                    return Ok(count);
                }
            }
        }
    }

    /// Reads the ZeroMQ socket: everything there, or after a wait of up to `timeout_ms`, one
    /// message (the caller looks again, and an empty non-blocking receive costs a system call).
    fn pump_router(&mut self, timeout_ms: i64) -> Result<usize> {
        let mut count = 0;
        let mut wait = timeout_ms;
        loop {
            let Some(router) = self.router.as_mut() else {
                return Ok(count);
            };
            let Some(frames) = router.recv(wait)? else {
                return Ok(count);
            };
            count += 1;
            if let Some((id, frames)) = router.admit(frames, &mut self.children, &self.secret) {
                self.handle(id, frames);
            }
            if wait != 0 {
                return Ok(count);
            }
            wait = 0;
        }
    }

    /// Tells children what they sent that our collected storages no longer use.
    fn send_releases(&mut self) {
        let mut by_child: BTreeMap<u32, Vec<Owed>> = BTreeMap::new();
        for (peer, o) in owed::take_releases(|p| matches!(p, Peer::Child(_))) {
            if let Peer::Child(id) = peer {
                by_child.entry(id).or_default().push(o);
            }
        }
        for (id, owed) in by_child {
            if let Some(child) = self.children.get(&id) {
                let _ = child.send(self.socket(), vec![Envelope::Release { owed }.encode()], zmq::DONTWAIT);
            }
        }
    }

    /// A message from child `id`.
    fn handle(&mut self, id: u32, frames: Vec<Vec<u8>>) {
        let Some(env) = frames.first().and_then(|f| Envelope::decode(f)) else {
            return;
        };
        let socket = self.router.as_ref().map(|r| &r.socket);
        let Some(child) = self.children.get_mut(&id) else {
            return;
        };
        match env {
            Envelope::YieldAck => child.acks += 1,
            Envelope::Data => child.data.push_back(frames),
            Envelope::Done if child.state == State::Running => child.state = State::Idle,
            // Over a pipe, the hello is the whole handshake.
            Envelope::Hello { .. } if child.state == State::Connecting && child.pipe.is_some() => {
                child.state = State::Idle;
            }
            Envelope::Release { owed } => {
                for o in owed {
                    child.pool.release(o);
                }
            }
            Envelope::Failed => {
                let msg = Envelope::split(&frames[0]).map(|(_, m)| String::from_utf8_lossy(m).into_owned());
                child.state = State::Failed(msg.unwrap_or_else(|| "(no message)".into()));
                // Over ZeroMQ, a failing child stays until we took its report (a pipe keeps
                // what a dead peer wrote).
                if child.pipe.is_none() {
                    let _ = child.send(socket, vec![Envelope::FailureSeen.encode()], zmq::DONTWAIT);
                }
            }
            _ => {}
        }
    }

    /// Whether `want` holds; an error when it never will (the child failed, died, or finished its
    /// code with nothing more to give).
    fn satisfied(child: &mut Child, want: &Want) -> Result<bool> {
        let idle = |child: &mut Child, what: &str| -> Result<bool> {
            // A dead child is reported as dead, not as idle.
            child.reap();
            Err(child
                .trouble()
                .unwrap_or_else(|| Error::peer(format!("{} {what}", child.label))))
        };
        let done = match want {
            Want::Connected => child.state != State::Connecting,
            Want::Ack if child.acks > 0 => {
                child.acks -= 1;
                true
            }
            Want::Data if !child.data.is_empty() => true,
            Want::NotRunning => child.state != State::Running,
            Want::Ack if child.state == State::Idle => return idle(child, "has finished its code (nothing yields)"),
            Want::Data if child.state == State::Idle => {
                return idle(child, "is not running code and sent nothing more");
            }
            Want::Ack | Want::Data => false,
        };
        if !done
            && matches!(child.state, State::Failed(_))
            && let Some(t) = child.trouble()
        {
            return Err(t);
        }
        Ok(done)
    }

    /// Waits until `want` holds for child `id`, its code fails, or its process ends.
    fn wait(&mut self, id: u32, want: Want, deadline: Option<Instant>) -> Result<()> {
        let mut drained_after_end = false;
        // Whether the last look at the connection found nothing: only then is the process checked
        // (a message answers sooner than a look at the process would).
        let mut quiet = false;
        loop {
            {
                let child = self.child(id)?;
                if Self::satisfied(child, &want)? {
                    return Ok(());
                }
                if quiet {
                    child.reap();
                }
                if let Some(how) = &child.ended {
                    // A pipe that reached its end holds nothing more to wait for.
                    if drained_after_end || child.drained() {
                        let why = child
                            .trouble()
                            .unwrap_or_else(|| Error::peer(format!("{} {how}", child.label)));
                        child.let_go_of_segments();
                        return Err(why);
                    }
                    drained_after_end = true;
                }
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(Error::peer(TIMED_OUT));
            }
            if crate::interrupt::pending() {
                return Err(Error::peer("interrupted"));
            }
            if drained_after_end {
                // The process ended: give what it sent last time to arrive. A child whose code
                // raised exits with status 1 right after sending its failure, which can reach us
                // well after the exit is seen: wait longer for it then.
                let failing = self.child(id)?.ended.as_deref() == Some("exited with status 1");
                let until = Instant::now()
                    + if failing {
                        QUIT_GRACE
                    } else {
                        Duration::from_millis(200)
                    };
                while Instant::now() < until && !matches!(self.child(id)?.state, State::Failed(_)) {
                    self.pump(20, Some(id))?;
                }
                while self.pump(0, Some(id))? > 0 {}
            } else {
                quiet = self.pump(POLL_MS, Some(id))? == 0;
            }
        }
    }

    /// Waits until every child in `ids` has connected; the first failure is the error (after
    /// which the caller should `kill` them).
    pub fn await_connected(&mut self, ids: &[u32], timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        for &id in ids {
            match self.wait(id, Want::Connected, Some(deadline)) {
                Ok(()) => {}
                Err(e) if e.message() == TIMED_OUT => {
                    let label = self.child(id)?.label.clone();
                    return Err(Error::peer(format!(
                        "{label} did not connect within {} s",
                        timeout.as_secs()
                    )));
                }
                Err(e) => {
                    let child = self.child(id)?;
                    let why = child.ended.as_ref().map(|how| {
                        Error::peer(format!(
                            "{} {how} before connecting{}",
                            child.label,
                            child.stderr_text()
                        ))
                    });
                    return Err(why.unwrap_or(e));
                }
            }
        }
        Ok(())
    }

    fn send_frames(&mut self, id: u32, frames: Vec<Vec<u8>>) -> Result<()> {
        let no_such_child = || Error::argument("no such child");
        let child = self.children.get(&id).ok_or_else(no_such_child)?;
        if child.pipe.is_none() && child.route.is_none() {
            return Err(Error::peer(format!("{} is not connected", child.label)));
        }
        match child.send(self.socket(), frames, 0) {
            Ok(()) => Ok(()),
            // The child disconnected: it is ending. Its last words (a failure) or its exit
            // status say why; give them a moment to arrive.
            Err(_) => {
                let deadline = Instant::now() + QUIT_GRACE;
                loop {
                    let child = self.children.get_mut(&id).ok_or_else(no_such_child)?;
                    child.reap();
                    if let Some(t) = child.trouble() {
                        return Err(t);
                    }
                    if Instant::now() >= deadline {
                        return Err(Error::peer(format!("{} cannot be reached", child.label)));
                    }
                    self.pump(20, Some(id))?;
                }
            }
        }
    }

    /// Refuses to talk to a child known to have failed or ended (a send to a child that died
    /// unnoticed fails, and its wait notices).
    fn usable(&mut self, id: u32) -> Result<&mut Child> {
        let child = self.child(id)?;
        match child.trouble() {
            Some(t) => Err(t),
            None => Ok(child),
        }
    }

    pub fn exec(&mut self, id: u32, code: Vec<u8>, bytecode: bool) -> Result<()> {
        self.pump(0, None)?;
        if self.usable(id)?.state == State::Running {
            // The code may be finishing (it sent its last result, its `Done` is on the way):
            // give it a while before calling this a mistake.
            match self.wait(id, Want::NotRunning, Some(Instant::now() + EXEC_PATIENCE)) {
                Err(e) if e.message() == TIMED_OUT => {
                    let label = &self.child(id)?.label;
                    return Err(Error::peer(format!(
                        "{label} is still running code (exec works again once that code has returned)"
                    )));
                }
                other => other?,
            }
        }
        self.usable(id)?;
        self.send_frames(id, vec![Envelope::Exec { bytecode }.with_body(&code)])?;
        self.child(id)?.state = State::Running;
        Ok(())
    }

    /// Sends the join message to every child first, then collects the answers: the children
    /// meet the parent at the same time rather than one after another. The first error is
    /// returned after every answer has been collected.
    pub fn join(&mut self, ids: &[u32], msg: &[u8]) -> Result<()> {
        let mut first_err = None;
        let mut sent = Vec::with_capacity(ids.len());
        for &id in ids {
            let r = self
                .usable(id)
                .and_then(|child| match child.state {
                    // Nothing would answer: a join queued now would meet the next exec's yield.
                    State::Idle => Err(Error::peer(format!(
                        "{} has finished its code (nothing yields)",
                        child.label
                    ))),
                    _ => Ok(()),
                })
                .and_then(|_| self.send_frames(id, vec![Envelope::Join.with_body(msg)]));
            match r {
                Ok(()) => sent.push(id),
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        for id in sent {
            if let Err(e) = self.wait(id, Want::Ack, None) {
                first_err.get_or_insert(e);
            }
        }
        first_err.map_or(Ok(()), Err)
    }

    pub fn send(&mut self, ids: &[u32], value: &Serialized) -> Result<()> {
        self.send_releases();
        for &id in ids {
            let child = self.usable(id)?;
            let frames = value.frames(child.reach, &mut child.pool)?;
            self.send_frames(id, frames)?;
        }
        Ok(())
    }

    /// The next data message of child `id` (frames after the envelope's routing), waiting for one
    /// unless `noblock`.
    pub fn receive(&mut self, id: u32, noblock: bool) -> Result<Option<Vec<Vec<u8>>>> {
        if noblock {
            self.pump(0, None)?;
        }
        let child = self.child(id)?;
        if let Some(m) = child.data.pop_front() {
            return Ok(Some(m));
        }
        if noblock {
            child.reap();
            return match child.trouble() {
                Some(t) => {
                    child.let_go_of_segments();
                    Err(t)
                }
                None => Ok(None),
            };
        }
        self.wait(id, Want::Data, None)?;
        Ok(self.child(id)?.data.pop_front())
    }

    /// The next data message from whichever of `ids` sends first, as `(id, Ok(frames))`; a child
    /// among them that failed or ended with nothing left to read is `(id, Err(why))`, so that the
    /// caller (a scheduler) can hand its work to another.
    pub fn receive_any(&mut self, ids: &[u32]) -> Result<(u32, Result<Vec<Vec<u8>>>)> {
        if ids.is_empty() {
            return Err(Error::argument("no children to receive from"));
        }
        let mut quiet = false;
        loop {
            for &id in ids {
                let child = match self.child(id) {
                    Ok(c) => c,
                    Err(e) => return Ok((id, Err(e))),
                };
                if let Some(m) = child.data.pop_front() {
                    return Ok((id, Ok(m)));
                }
                if quiet {
                    child.reap();
                }
                if child.ended.is_some() || matches!(child.state, State::Failed(_)) {
                    // What it sent before it went may still be on its way.
                    while self.pump(20, Some(id))? > 0 {}
                    let child = self.child(id)?;
                    if let Some(m) = child.data.pop_front() {
                        return Ok((id, Ok(m)));
                    }
                    let why = child
                        .trouble()
                        .unwrap_or_else(|| Error::peer(format!("{} ended", child.label)));
                    child.let_go_of_segments();
                    return Ok((id, Err(why)));
                }
            }
            if crate::interrupt::pending() {
                return Err(Error::peer("interrupted"));
            }
            quiet = self.pump(POLL_MS, None)? == 0;
        }
    }

    /// Waits for the child's code to finish, then ends the child. Its failure, if any, is the
    /// error, after the child is gone.
    pub fn sync(&mut self, id: u32) -> Result<()> {
        let waited = self.wait(id, Want::NotRunning, None);
        let Some(mut child) = self.children.remove(&id) else {
            return Err(waited
                .err()
                .unwrap_or_else(|| Error::argument(format!("there is no child {id}"))));
        };
        if let (Some(route), Some(router)) = (&child.route, self.router.as_mut()) {
            router.forget(route);
        }
        let trouble = child.trouble();
        child.terminate(self.socket(), trouble.is_none());
        self.forget_segments(&child);
        self.gone.insert(id, "was synced (its process has ended)".into());
        match (waited, trouble) {
            (_, Some(t)) => Err(t),
            (Err(e), None) => Err(e),
            (Ok(()), None) => Ok(()),
        }
    }

    /// A local child's segments (what it sent us) are no longer needed once it is gone; storages
    /// we received from it keep their mappings.
    fn forget_segments(&self, child: &Child) {
        if child.reach == Reach::Local {
            shm::forget_sender(&self.run, child.process.id());
            crate::cuda::share::forget_lender(child.process.id());
        }
    }

    /// Kills child `id` (close, reset, a failed fork).
    pub fn kill(&mut self, id: u32, why: &str) {
        if let Some(mut child) = self.children.remove(&id) {
            if let (Some(route), Some(router)) = (&child.route, self.router.as_mut()) {
                router.forget(route);
            }
            child.terminate(None, false);
            self.forget_segments(&child);
            self.gone.insert(id, why.to_string());
        }
    }

    pub fn kill_all(&mut self, why: &str) {
        let ids: Vec<u32> = self.children.keys().copied().collect();
        // Remote children end when their ssh's stdin closes: close every pipe first so that
        // they all wind down at once.
        for child in self.children.values_mut() {
            child.stdin = None;
        }
        for id in ids {
            self.kill(id, why);
        }
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.kill_all("was closed");
    }
}
