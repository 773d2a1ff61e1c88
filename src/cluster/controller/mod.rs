//! The controller: one ROUTER socket that engines and clients connect to, the engines' registry,
//! and the task queues. It never decodes a task: it forwards a client's value to an engine and
//! the engine's answer back, and keeps a task only until its result has gone to the client, so
//! its memory stays flat however many tasks pass.
//!
//! Scheduling: a direct task waits in its engine's queue; a load-balanced one in the common
//! queue, and goes to the engine with the fewest tasks in hand. Each engine holds at most
//! `IN_HAND` tasks, so that the next one is there when the last ends.
//!
//! An engine's death (its process ended, or no heartbeat for `BEAT_TIMEOUT`) turns its tasks into
//! `Lost` results, or back into the queue while a load-balanced task has retries left; the
//! launcher starts the engine again in its slot.

mod admit;
mod health;
mod tasks;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::connfile::{self, Connection};
use super::frames;
use super::launcher::Launcher;
use super::peer::zmq_err;
use super::protocol::{EngineStatus, Msg, Role, Status, hostname, rss_kb};
use crate::error::{Error, Result};
use crate::process::gate;
use crate::wire::handshake::{self, Challenge};

/// Tasks an engine holds at once (one running, one ready).
const IN_HAND: usize = 2;
/// How long one wait of the loop lasts before processes, heartbeats and timeouts are looked at.
const TICK_MS: i64 = 100;
/// Handshakes under way at once (a stranger's push out the oldest).
const HANDSHAKES_MAX: usize = 64;
/// Why an engine whose connection failed is given up (until its process's end says more).
const UNREACHABLE: &str = "could not be reached";
/// How long the messages an engine sent before its process ended get to arrive.
const DEATH_GRACE: Duration = Duration::from_millis(300);
/// How long a client that went away keeps its undelivered results.
const CLIENT_GRACE: Duration = Duration::from_secs(600);

/// Set by SIGINT/SIGTERM in `thcluster start`: the loop stops the cluster.
pub static STOP_REQUESTED: AtomicBool = AtomicBool::new(false);

type TaskKey = u64;

struct Task {
    client: u32,
    /// The client's id for it.
    id: u64,
    /// Direct tasks name their engine.
    target: Option<u32>,
    retries: u32,
    timeout: Option<Duration>,
    /// The value, as it came after the client's message, and its raw frames.
    body: Vec<u8>,
    raw: Vec<zmq::Message>,
    /// The shared-memory segments the value names (counted in `Controller::segments`).
    segments: Vec<String>,
    submitted: Instant,
    /// When it was handed to its engine.
    started: Option<Instant>,
    /// When its engine began it: it was handed to an idle engine, or the one before it in the
    /// engine's hand finished. Its time limit counts from here.
    running: Option<Instant>,
    engine: Option<u32>,
}

struct Engine {
    route: Vec<u8>,
    pid: u32,
    host: String,
    slot: u32,
    /// Sent to the engine, in the order it runs them: the first is running, the others have
    /// not started.
    in_hand: VecDeque<TaskKey>,
    /// Direct tasks waiting for it.
    direct: VecDeque<TaskKey>,
    tasks_done: u64,
    rss_kb: u64,
    last_heard: Instant,
    /// Whether it maps segments (else it gets frames).
    shm: bool,
    /// Its process ended (when, how): it gets no more tasks, and what it sent before it died is
    /// read before its tasks are given up (`DEATH_GRACE`).
    dying: Option<(Instant, String)>,
}

struct Client {
    key: u64,
    route: Option<Vec<u8>>,
    pid: u32,
    host: String,
    /// Results it was not there to take (frames ready to send).
    undelivered: VecDeque<Vec<zmq::Message>>,
    gone_since: Option<Instant>,
    shm: bool,
}

struct Pending {
    role: Role,
    pid: u32,
    host: String,
    challenge: Challenge,
}

pub struct Controller {
    router: zmq::Socket,
    _gate: gate::Gate,
    _ctx: zmq::Context,
    secret: Vec<u8>,
    pub endpoint: String,
    profile: String,
    launcher: Launcher,
    pending: VecDeque<(Vec<u8>, Pending)>,
    engines: BTreeMap<u32, Engine>,
    clients: HashMap<u32, Client>,
    /// Authenticated routes: who is who.
    routes: HashMap<Vec<u8>, Who>,
    tasks: HashMap<TaskKey, Task>,
    queue: VecDeque<TaskKey>,
    next_engine: u32,
    next_client: u32,
    next_task: TaskKey,
    tasks_done: u64,
    stopping: bool,
    /// The run that segment names carry, and the probe segment peers try to open.
    run: String,
    probe: String,
    /// Tasks holding each segment; its name goes when the count does.
    segments: HashMap<String, usize>,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Who {
    Client(u32),
    Engine(u32),
    Beat(u32),
}

impl Controller {
    /// Binds on `ip` (loopback unless told otherwise), port `port` (0: any).
    pub fn bind(
        profile: &str,
        ip: &str,
        port: u16,
        launcher_for: impl FnOnce(&str, &[u8]) -> Launcher,
    ) -> Result<Controller> {
        connfile::check_profile(profile)?;
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
        let secret = handshake::random_bytes(32).map_err(|e| Error::io(format!("no random bytes: {e}")))?;
        let gate = gate::guard(&ctx, &router, &secret)?;
        let addr = if ip.contains(':') {
            router.set_ipv6(true).map_err(|e| zmq_err("cannot enable IPv6", e))?;
            format!("[{ip}]")
        } else {
            ip.to_string()
        };
        let port_text = if port == 0 { "*".to_string() } else { port.to_string() };
        router
            .bind(&format!("tcp://{addr}:{port_text}"))
            .map_err(|e| zmq_err(&format!("cannot listen on {ip}:{port_text}"), e))?;
        let endpoint = router
            .get_last_endpoint()
            .map_err(|e| zmq_err("cannot read the endpoint", e))?
            .map_err(|_| Error::io("the endpoint is not text"))?;
        let launcher = launcher_for(&endpoint, &secret);
        // What killed runs left goes first; this run's segments go when it ends (`shut_down`).
        crate::process::sweep::sweep_stale();
        let run = crate::process::sweep::new_run(&handshake::hex(
            &handshake::random_bytes(6).map_err(|e| Error::io(format!("no random bytes: {e}")))?,
        ));
        let probe = crate::process::segments::create_once(&run, &[0u8; 8]).unwrap_or_default();
        Ok(Controller {
            router,
            _gate: gate,
            _ctx: ctx,
            secret,
            endpoint,
            profile: profile.to_string(),
            launcher,
            pending: VecDeque::new(),
            engines: BTreeMap::new(),
            clients: HashMap::new(),
            routes: HashMap::new(),
            tasks: HashMap::new(),
            queue: VecDeque::new(),
            next_engine: 1,
            next_client: 1,
            next_task: 1,
            tasks_done: 0,
            stopping: false,
            run,
            probe,
            segments: HashMap::new(),
        })
    }

    pub fn launcher(&mut self) -> &mut Launcher {
        &mut self.launcher
    }

    pub fn connection(&self) -> Connection {
        Connection::new(&self.profile, &self.endpoint, &self.secret)
    }

    /// Serves until stopped (a client's `Stop`, or a signal); then ends the engines.
    pub fn serve(&mut self) -> Result<()> {
        let mut last_look = Instant::now();
        self.router
            .set_rcvtimeo(TICK_MS as i32)
            .map_err(|e| zmq_err("socket option", e))?;
        while !self.stopping {
            if STOP_REQUESTED.load(Ordering::Relaxed) {
                break;
            }
            // Waits for the first message (a blocking receive with a timeout: fewer system
            // calls than poll, then receive), then takes everything there is without waiting.
            let mut flags = 0;
            for _ in 0..10_000 {
                match self.recv(flags)? {
                    Some(frames) => self.dispatch(frames),
                    None => break,
                }
                flags = zmq::DONTWAIT;
                if self.stopping {
                    break;
                }
            }
            if last_look.elapsed() >= Duration::from_millis(TICK_MS as u64) {
                last_look = Instant::now();
                self.look_around();
            }
        }
        self.shut_down();
        Ok(())
    }

    fn recv(&self, flags: i32) -> Result<Option<Vec<zmq::Message>>> {
        let mut frames = Vec::with_capacity(3);
        loop {
            match self.router.recv_msg(if frames.is_empty() { flags } else { 0 }) {
                Ok(m) => {
                    let more = m.get_more();
                    frames.push(m);
                    if !more {
                        return Ok(Some(frames));
                    }
                }
                Err(zmq::Error::EAGAIN) | Err(zmq::Error::EINTR) if frames.is_empty() => return Ok(None),
                Err(e) => return Err(zmq_err("cannot receive", e)),
            }
        }
    }

    /// Sends frames to `route`; false when the peer is gone.
    fn send(&self, route: &[u8], first: &[u8], raw: Vec<zmq::Message>) -> bool {
        let more = !raw.is_empty();
        if self.router.send(route, zmq::SNDMORE).is_err() {
            return false;
        }
        if frames::send_first(&self.router, first, if more { zmq::SNDMORE } else { 0 }).is_err() {
            return false;
        }
        let n = raw.len();
        for (i, m) in raw.into_iter().enumerate() {
            if self.router.send(m, if i + 1 < n { zmq::SNDMORE } else { 0 }).is_err() {
                return false;
            }
        }
        true
    }

    fn reply(&self, route: &[u8], msg: &Msg) -> bool {
        self.send(route, &msg.encode(), Vec::new())
    }

    fn dispatch(&mut self, mut frames: Vec<zmq::Message>) {
        if frames.len() < 2 {
            return;
        }
        let route = frames.remove(0).to_vec();
        // A handshake's messages are single frames: only a peer that passed it has longer
        // messages put back together.
        if !self.routes.contains_key(&route) && frames.len() != 1 {
            return;
        }
        let Ok(mut frames) = frames::join_first(frames) else {
            return;
        };
        let first = frames.remove(0);
        let Some((msg, body)) = Msg::split(&first) else { return };
        let Some(&who) = self.routes.get(&route) else {
            // Nothing from an unknown peer is looked at but the handshake.
            match msg {
                Msg::Hello { role, pid, host } => self.challenge(route, role, pid, host),
                Msg::Answer { answer } => self.welcome(route, &answer),
                _ => {}
            }
            return;
        };
        match (who, msg) {
            (
                Who::Client(c),
                Msg::Submit {
                    first: id,
                    targets,
                    retries,
                    timeout_ms,
                },
            ) => self.submit(c, id, targets, retries, timeout_ms, body.to_vec(), frames),
            (Who::Client(_), Msg::ListEngines) => {
                let ids = self.engines.keys().copied().collect();
                self.reply(&route, &Msg::Engines { ids });
            }
            (Who::Client(_), Msg::GetStatus) => {
                let status = self.status();
                self.reply(&route, &Msg::State { status });
            }
            (Who::Client(_), Msg::Stop) => {
                self.reply(&route, &Msg::Stopping);
                self.stopping = true;
            }
            (Who::Client(c), Msg::Forget { tasks }) => self.forget(c, &tasks),
            (Who::Client(c), Msg::Attached { shm }) => {
                if let Some(cl) = self.clients.get_mut(&c) {
                    cl.shm = shm;
                }
            }
            (Who::Engine(e), Msg::Attached { shm }) => {
                if let Some(eng) = self.engines.get_mut(&e) {
                    eng.shm = shm;
                }
                self.schedule();
            }
            (Who::Engine(e), Msg::Finished { task, ok, ran_us }) => self.finished(e, task, ok, ran_us, body, frames),
            (Who::Engine(e) | Who::Beat(e), Msg::Beat { rss_kb }) => {
                if let Some(eng) = self.engines.get_mut(&e) {
                    eng.last_heard = Instant::now();
                    eng.rss_kb = rss_kb;
                }
                self.reply(&route, &Msg::BeatAck);
            }
            _ => {}
        }
    }

    pub fn status(&self) -> Status {
        let engines = self
            .engines
            .iter()
            .map(|(&id, e)| EngineStatus {
                id,
                host: e.host.clone(),
                pid: e.pid,
                state: if e.in_hand.is_empty() { "idle" } else { "busy" }.into(),
                tasks_done: e.tasks_done,
                queued: (e.in_hand.len() + e.direct.len()) as u32,
                rss_kb: e.rss_kb,
            })
            .collect();
        Status {
            profile: self.profile.clone(),
            pid: std::process::id(),
            host: hostname(),
            rss_kb: rss_kb(0),
            engines,
            queued: self.queue.len() as u64,
            tasks_done: self.tasks_done,
            restarts: self.launcher.restarts_used(),
            undelivered: self.clients.values().map(|c| c.undelivered.len() as u64).sum(),
        }
    }

    fn shut_down(&mut self) {
        let routes: Vec<Vec<u8>> = self.engines.values().map(|e| e.route.clone()).collect();
        for r in routes {
            self.reply(&r, &Msg::Quit);
        }
        let keys: Vec<TaskKey> = self.tasks.keys().copied().collect();
        for k in keys {
            self.lose(k, "the cluster was stopped".into());
        }
        self.launcher.stop_all();
        connfile::remove_if_ours(&self.profile, std::process::id());
        // Every segment of the run: tasks', results' nobody took, the probe.
        crate::process::sweep::sweep_run(&self.run);
    }
}

fn process_gone(pid: u32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    pid != 0
        && unsafe { libc::kill(pid as i32, 0) } != 0
        && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}
