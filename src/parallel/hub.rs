//! The parent side: one ZeroMQ ROUTER socket that every child connects to (an abstract unix
//! socket; plus a TCP endpoint once a remote child needs one), the child processes, and what each
//! child has sent that nobody has read yet.
//!
//! Every wait here watches the child's process as well as the socket, so a child that dies turns
//! into an error instead of a hang.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::process::ChildStdin;
use std::time::{Duration, Instant};

use super::data::{Reach, Serialized};
use super::envelope::{Bootstrap, Envelope};
use super::launch::{self, Spec, StderrTail};
use super::owed::{self, Owed, Peer};
use super::{gate, shm};
use crate::error::{Error, Result};
use crate::wire::handshake::{self, Challenge};

/// How long one poll of the socket lasts before the children's processes are looked at again.
const POLL_MS: i64 = 100;
/// How long a child that was asked to quit (or whose ssh lost its stdin) gets before SIGKILL.
const QUIT_GRACE: Duration = Duration::from_secs(2);
/// How long `exec` waits for a child's previous code to return.
const EXEC_PATIENCE: Duration = Duration::from_secs(10);
/// Handshakes a child may have under way at once (others from its id, an impostor's, push out the
/// oldest).
const CHALLENGES_MAX: usize = 4;
/// What `wait` says when its deadline passed.
const TIMED_OUT: &str = "timed out";

#[derive(Debug, Clone, PartialEq)]
enum State {
    /// Started, not yet proved the run's secret.
    Connecting,
    /// Connected, waiting for code.
    Idle,
    /// Running exec'd code.
    Running,
    /// Its code raised: message and traceback.
    Failed(String),
}

struct Child {
    label: String,
    reach: Reach,
    process: std::process::Child,
    stdin: Option<ChildStdin>,
    stderr: Option<StderrTail>,
    route: Option<Vec<u8>>,
    state: State,
    /// Data messages (frames after the routing id), oldest first.
    data: VecDeque<Vec<Vec<u8>>>,
    /// Yield acknowledgements not yet consumed by a join.
    acks: usize,
    /// How the process ended, once it has.
    ended: Option<String>,
    /// Sent with the welcome (`.t7`).
    welcome: Vec<u8>,
    /// The handshakes under way for this child's id, by route, oldest first.
    challenges: VecDeque<(Vec<u8>, Challenge)>,
    /// Shared-memory segments of what we sent this child.
    pool: shm::Pool,
    /// Whether the segments between us were removed after the process ended.
    let_go: bool,
}

impl Child {
    /// Notices the end of the process.
    fn reap(&mut self) {
        if self.ended.is_none()
            && let Ok(Some(status)) = self.process.try_wait()
        {
            self.ended = Some(launch::describe_status(status));
        }
    }

    fn stderr_text(&self) -> String {
        let Some(tail) = &self.stderr else { return String::new() };
        let t = tail.lock().unwrap_or_else(|e| e.into_inner());
        let text = String::from_utf8_lossy(&t).trim().to_string();
        if text.is_empty() { text } else { format!(": {text}") }
    }

    /// The error for a child that failed or ended, if it did.
    fn trouble(&self) -> Option<Error> {
        if let State::Failed(m) = &self.state {
            return Some(Error::peer(format!("{} failed: {m}", self.label)));
        }
        self.ended
            .as_ref()
            .map(|how| Error::peer(format!("{} died ({how}){}", self.label, self.stderr_text())))
    }

    /// Once the process has ended and what it sent has been read: removes the segments it made
    /// (its messages are all read) and those we made for it (nobody reads them any more), rather
    /// than when the child is synced or the run ends. Storages already received keep their
    /// mappings.
    fn let_go_of_segments(&mut self) {
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
    fn terminate(&mut self, router: &zmq::Socket, polite: bool) {
        if polite
            && self.ended.is_none()
            && let Some(route) = &self.route
        {
            let _ = router.send_multipart([route.clone(), Envelope::Quit.encode()], zmq::DONTWAIT);
        }
        self.stdin = None;
        if polite || self.reach == Reach::Remote {
            let deadline = Instant::now() + QUIT_GRACE;
            while self.ended.is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
                self.reap();
            }
        }
        if self.ended.is_none() {
            let _ = self.process.kill();
            if let Ok(status) = self.process.wait() {
                self.ended = Some(launch::describe_status(status));
            }
        }
        self.data.clear();
    }
}

pub struct Hub {
    _ctx: zmq::Context,
    /// Admits only peers of this run to `router` (see gate.rs).
    _gate: gate::Gate,
    router: zmq::Socket,
    ipc_endpoint: String,
    /// TCP endpoints by the address they are bound on.
    tcp_endpoints: HashMap<String, String>,
    secret: Vec<u8>,
    run: String,
    children: BTreeMap<u32, Child>,
    routes: HashMap<Vec<u8>, u32>,
    /// Children that are gone, and why (for errors on stale handles).
    gone: HashMap<u32, String>,
    /// The receive timeout the socket has now (ms).
    rcvtimeo: i32,
}

fn zmq_err(what: &str, e: zmq::Error) -> Error {
    Error::io(format!("{what}: {e}"))
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
        let ctx = zmq::Context::new();
        let router = ctx
            .socket(zmq::ROUTER)
            .map_err(|e| zmq_err("cannot make a socket", e))?;
        let setup = || -> zmq::Result<()> {
            router.set_router_mandatory(true)?;
            router.set_sndhwm(0)?;
            router.set_rcvhwm(0)?;
            router.set_linger(0)?;
            Ok(())
        };
        setup().map_err(|e| zmq_err("cannot set up the socket", e))?;
        let secret = handshake::random_bytes(32)?;
        let gate = gate::guard(&ctx, &router, &secret)?;
        let nonce = handshake::hex(&handshake::random_bytes(8)?);
        // An abstract unix socket: nothing in the file system to clean up, and no port.
        let ipc_endpoint = format!("ipc://@luatorch-{}-{nonce}", std::process::id());
        router
            .bind(&ipc_endpoint)
            .map_err(|e| zmq_err(&format!("cannot bind {ipc_endpoint}"), e))?;
        Ok(Hub {
            _ctx: ctx,
            _gate: gate,
            router,
            ipc_endpoint,
            tcp_endpoints: HashMap::new(),
            secret,
            run: run.to_string(),
            children: BTreeMap::new(),
            routes: HashMap::new(),
            gone: HashMap::new(),
            rcvtimeo: -1,
        })
    }

    pub fn run(&self) -> &str {
        &self.run
    }

    /// The TCP endpoint remote children reach us on, bound on `ip` at first use.
    fn tcp_endpoint(&mut self, ip: &str) -> Result<String> {
        if let Some(e) = self.tcp_endpoints.get(ip) {
            return Ok(e.clone());
        }
        let addr = if ip.contains(':') {
            format!("[{ip}]")
        } else {
            ip.to_string()
        };
        if ip.contains(':') {
            self.router
                .set_ipv6(true)
                .map_err(|e| zmq_err("cannot enable IPv6", e))?;
        }
        self.router
            .bind(&format!("tcp://{addr}:*"))
            .map_err(|e| zmq_err(&format!("cannot listen on {ip}"), e))?;
        let endpoint = self
            .router
            .get_last_endpoint()
            .map_err(|e| zmq_err("cannot read the endpoint", e))?
            .map_err(|_| Error::io("the endpoint is not text"))?;
        self.tcp_endpoints.insert(ip.to_string(), endpoint.clone());
        Ok(endpoint)
    }

    /// Starts child `id`; `connect_ip` is the address a remote child connects back to.
    pub fn fork(&mut self, id: u32, spec: &Spec, connect_ip: Option<&str>, welcome: Vec<u8>) -> Result<u32> {
        if self.children.contains_key(&id) {
            return Err(Error::argument(format!("child {id} exists already")));
        }
        let (endpoint, reach) = match (&spec.host, connect_ip) {
            (None, _) => (self.ipc_endpoint.clone(), Reach::Local),
            (Some(_), Some(ip)) => (self.tcp_endpoint(ip)?, Reach::Remote),
            (Some(_), None) => {
                return Err(Error::argument("no address for the remote child to connect back to"));
            }
        };
        let boot = Bootstrap {
            endpoint,
            id,
            secret: self.secret.clone(),
            run: self.run.clone(),
        };
        let launched = launch::spawn(spec, &boot.line())?;
        let pid = launched.process.id();
        let label = match &spec.host {
            None => format!("child {id} (pid {pid})"),
            Some(h) => format!("child {id} (on {h}, ssh pid {pid})"),
        };
        self.gone.remove(&id);
        self.children.insert(
            id,
            Child {
                label,
                reach,
                process: launched.process,
                stdin: Some(launched.stdin),
                stderr: launched.stderr,
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

    /// Reads everything the socket has, waiting up to `timeout_ms` for the first message; returns
    /// how many messages came. A blocking receive with a timeout rather than poll-then-receive:
    /// half the system calls on the round trip.
    fn pump(&mut self, timeout_ms: i64) -> Result<usize> {
        self.send_releases();
        let mut flags = zmq::DONTWAIT;
        if timeout_ms != 0 {
            let t = i32::try_from(timeout_ms).unwrap_or(i32::MAX);
            if self.rcvtimeo != t {
                self.router.set_rcvtimeo(t).map_err(|e| zmq_err("socket option", e))?;
                self.rcvtimeo = t;
            }
            flags = 0;
        }
        let mut count = 0;
        loop {
            match self.router.recv_multipart(flags) {
                Ok(frames) => {
                    self.dispatch(frames);
                    count += 1;
                    // After a wait, one message is enough: the caller looks again, and an empty
                    // non-blocking receive costs a system call.
                    if flags == 0 {
                        return Ok(count);
                    }
                }
                Err(zmq::Error::EAGAIN) | Err(zmq::Error::EINTR) => return Ok(count),
                Err(e) => return Err(zmq_err("receive failed", e)),
            }
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
            if let Some(route) = self.children.get(&id).and_then(|c| c.route.clone()) {
                let env = Envelope::Release { owed }.encode();
                let _ = self.router.send_multipart([route, env], zmq::DONTWAIT);
            }
        }
    }

    fn dispatch(&mut self, mut frames: Vec<Vec<u8>>) {
        if frames.len() < 2 {
            return;
        }
        let route = frames.remove(0);
        // Only a peer that passed the gate gets here; one whose pieces do not add up is ignored.
        let Some(frames) = gate::join(frames) else {
            return;
        };
        let Some(env) = Envelope::decode(&frames[0]) else {
            return;
        };
        let Some(&id) = self.routes.get(&route) else {
            // Nothing from an unknown peer is looked at but the handshake.
            match env {
                Envelope::Hello { id, .. } => self.challenge(id, route),
                Envelope::Answer { answer } => self.welcome(&answer, route),
                _ => {}
            }
            return;
        };
        let Some(child) = self.children.get_mut(&id) else {
            return;
        };
        match env {
            Envelope::YieldAck => child.acks += 1,
            Envelope::Data => child.data.push_back(frames),
            Envelope::Done if child.state == State::Running => child.state = State::Idle,
            Envelope::Release { owed } => {
                for o in owed {
                    child.pool.release(o);
                }
            }
            Envelope::Failed => {
                let msg = Envelope::split(&frames[0]).map(|(_, m)| String::from_utf8_lossy(m).into_owned());
                child.state = State::Failed(msg.unwrap_or_else(|| "(no message)".into()));
                let _ = self
                    .router
                    .send_multipart([route.clone(), Envelope::FailureSeen.encode()], zmq::DONTWAIT);
            }
            _ => {}
        }
    }

    /// A peer that says it is child `id` gets a challenge, if that child is still to connect.
    fn challenge(&mut self, id: u32, route: Vec<u8>) {
        let Some(child) = self.children.get_mut(&id) else {
            return;
        };
        if child.state != State::Connecting {
            return;
        }
        let Ok(challenge) = Challenge::new() else { return };
        let env = Envelope::Challenge {
            challenge: challenge.bytes(),
        };
        if self
            .router
            .send_multipart([route.clone(), env.encode()], zmq::DONTWAIT)
            .is_ok()
        {
            child.challenges.retain(|(r, _)| *r != route);
            if child.challenges.len() >= CHALLENGES_MAX {
                child.challenges.pop_front();
            }
            child.challenges.push_back((route, challenge));
        }
    }

    /// A peer whose answer proves the run's secret is the child it said it was: welcomed, with
    /// the parent's own proof.
    fn welcome(&mut self, answer: &[u8], route: Vec<u8>) {
        let found = self.children.iter_mut().find_map(|(&id, child)| {
            let at = child.challenges.iter().position(|(r, _)| *r == route)?;
            Some((id, child, at))
        });
        let Some((id, child, at)) = found else {
            return;
        };
        let Some((_, challenge)) = child.challenges.remove(at) else {
            return;
        };
        if child.state != State::Connecting {
            return;
        }
        let Ok(confirmation) = challenge.check(&self.secret, answer) else {
            return;
        };
        let env = Envelope::Welcome { confirmation };
        let sent = self
            .router
            .send_multipart([route.clone(), env.with_body(&child.welcome)], 0);
        if sent.is_ok() {
            child.challenges.clear();
            child.route = Some(route.clone());
            child.state = State::Idle;
            self.routes.insert(route, id);
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
        // Whether the last look at the socket found nothing: only then is the process checked
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
                    if drained_after_end {
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
            if crate::repl::interrupt::pending() {
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
                    self.pump(20)?;
                }
                while self.pump(0)? > 0 {}
            } else {
                quiet = self.pump(POLL_MS)? == 0;
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
        let child = self.children.get_mut(&id).ok_or_else(no_such_child)?;
        let route = child
            .route
            .clone()
            .ok_or_else(|| Error::peer(format!("{} is not connected", child.label)))?;
        let mut all = Vec::with_capacity(frames.len() + 1);
        all.push(route);
        all.extend(frames);
        match self.router.send_multipart(all, 0) {
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
                    self.pump(20)?;
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
        self.pump(0)?;
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
            self.pump(0)?;
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
                    while self.pump(20)? > 0 {}
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
            if crate::repl::interrupt::pending() {
                return Err(Error::peer("interrupted"));
            }
            quiet = self.pump(POLL_MS)? == 0;
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
        if let Some(route) = &child.route {
            self.routes.remove(route);
        }
        let trouble = child.trouble();
        child.terminate(&self.router, trouble.is_none());
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
            if let Some(route) = &child.route {
                self.routes.remove(route);
            }
            child.terminate(&self.router, false);
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
