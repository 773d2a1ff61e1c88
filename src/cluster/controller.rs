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

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::connfile::{self, Connection};
use super::launcher::Launcher;
use super::peer::zmq_err;
use super::protocol::{BEAT_TIMEOUT, EngineStatus, Msg, Outcome, Role, Status, Targets, hostname, rss_kb};
use crate::error::{Error, Result};
use crate::parallel::gate;
use crate::wire::handshake::{self, Challenge};

/// Tasks an engine holds at once (one running, one ready).
const IN_HAND: usize = 2;
/// How long one wait of the loop lasts before processes, heartbeats and timeouts are looked at.
const TICK_MS: i64 = 100;
/// Handshakes under way at once (a stranger's push out the oldest).
const HANDSHAKES_MAX: usize = 64;
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
    started: Option<Instant>,
    engine: Option<u32>,
}

struct Engine {
    route: Vec<u8>,
    pid: u32,
    host: String,
    slot: u32,
    /// Sent to the engine, in the order it runs them.
    in_hand: VecDeque<TaskKey>,
    /// Direct tasks waiting for it.
    direct: VecDeque<TaskKey>,
    tasks_done: u64,
    rss_kb: u64,
    last_heard: Instant,
    /// Whether it maps segments (else it gets frames).
    shm: bool,
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
        crate::parallel::sweep::sweep_stale();
        let run = crate::parallel::sweep::new_run(&handshake::hex(
            &handshake::random_bytes(6).map_err(|e| Error::io(format!("no random bytes: {e}")))?,
        ));
        let probe = crate::parallel::shm::create_once(&run, &[0u8; 8]).unwrap_or_default();
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
        while !self.stopping {
            if STOP_REQUESTED.load(Ordering::Relaxed) {
                break;
            }
            let ready = match self.router.poll(zmq::POLLIN, TICK_MS) {
                Ok(n) => n,
                Err(zmq::Error::EINTR) => 0,
                Err(e) => return Err(zmq_err("cannot wait for messages", e)),
            };
            if ready > 0 {
                // Everything there is, without waiting again.
                for _ in 0..10_000 {
                    match self.recv() {
                        Ok(Some(frames)) => self.dispatch(frames),
                        Ok(None) => break,
                        Err(e) => return Err(e),
                    }
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

    fn recv(&self) -> Result<Option<Vec<zmq::Message>>> {
        let mut frames = Vec::with_capacity(3);
        loop {
            match self.router.recv_msg(if frames.is_empty() { zmq::DONTWAIT } else { 0 }) {
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
        if self.router.send(first, if more { zmq::SNDMORE } else { 0 }).is_err() {
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

    fn challenge(&mut self, route: Vec<u8>, role: Role, pid: u32, host: String) {
        let Ok(challenge) = Challenge::new() else { return };
        let msg = Msg::Challenge {
            challenge: challenge.bytes(),
        };
        if !self.reply(&route, &msg) {
            return;
        }
        self.pending.retain(|(r, _)| *r != route);
        if self.pending.len() >= HANDSHAKES_MAX {
            self.pending.pop_front();
        }
        self.pending.push_back((
            route,
            Pending {
                role,
                pid,
                host,
                challenge,
            },
        ));
    }

    fn welcome(&mut self, route: Vec<u8>, answer: &[u8]) {
        let Some(at) = self.pending.iter().position(|(r, _)| *r == route) else {
            return;
        };
        let (_, p) = self.pending.remove(at).expect("found");
        let Ok(confirmation) = p.challenge.check(&self.secret, answer) else {
            self.reply(
                &route,
                &Msg::Refused {
                    why: "wrong secret".into(),
                },
            );
            return;
        };
        let id = match p.role {
            Role::Client { key } => {
                // A client that comes back with its key finds its results.
                let existing = self.clients.iter().find(|(_, c)| c.key == key).map(|(&n, _)| n);
                let n = existing.unwrap_or_else(|| {
                    let n = self.next_client;
                    self.next_client += 1;
                    n
                });
                if let Some(old) = self.clients.get(&n).and_then(|c| c.route.clone()) {
                    self.routes.remove(&old);
                }
                let c = self.clients.entry(n).or_insert_with(|| Client {
                    key,
                    route: None,
                    pid: p.pid,
                    host: p.host.clone(),
                    undelivered: VecDeque::new(),
                    gone_since: None,
                    shm: false,
                });
                c.route = Some(route.clone());
                c.pid = p.pid;
                c.gone_since = None;
                self.routes.insert(route.clone(), Who::Client(n));
                n
            }
            Role::Engine { slot } => {
                // A slot's new engine means its old one is gone.
                if slot != 0 {
                    let old: Vec<u32> = self
                        .engines
                        .iter()
                        .filter(|(_, e)| e.slot == slot)
                        .map(|(&id, _)| id)
                        .collect();
                    for id in old {
                        self.engine_died(id, "was replaced by a new engine in its slot");
                    }
                }
                let id = self.next_engine;
                self.next_engine += 1;
                self.engines.insert(
                    id,
                    Engine {
                        route: route.clone(),
                        pid: p.pid,
                        host: p.host.clone(),
                        slot,
                        in_hand: VecDeque::new(),
                        direct: VecDeque::new(),
                        tasks_done: 0,
                        rss_kb: 0,
                        last_heard: Instant::now(),
                        shm: false,
                    },
                );
                self.routes.insert(route.clone(), Who::Engine(id));
                id
            }
            Role::Beat { engine } => {
                if !self.engines.contains_key(&engine) {
                    self.reply(
                        &route,
                        &Msg::Refused {
                            why: format!("there is no engine {engine}"),
                        },
                    );
                    return;
                }
                self.routes.insert(route.clone(), Who::Beat(engine));
                engine
            }
        };
        let welcome = Msg::Welcome {
            confirmation,
            id,
            run: self.run.clone(),
            probe: self.probe.clone(),
        };
        self.reply(&route, &welcome);
        if let Some(Who::Client(n)) = self.routes.get(&route).copied() {
            self.flush_undelivered(n);
        }
        self.schedule();
    }

    #[allow(clippy::too_many_arguments)]
    fn submit(
        &mut self,
        client: u32,
        id: u64,
        targets: Targets,
        retries: u32,
        timeout_ms: u64,
        body: Vec<u8>,
        raw: Vec<zmq::Message>,
    ) {
        let timeout = (timeout_ms > 0).then(|| Duration::from_millis(timeout_ms));
        let now = Instant::now();
        match targets {
            Targets::Any => {
                let key = self.new_task(client, id, None, retries, timeout, body, raw, now);
                self.queue.push_back(key);
            }
            Targets::Engines(list) => {
                let n = list.len();
                // Each engine gets its own copy of the frames; the last takes the originals.
                let mut raw = Some(raw);
                for (i, e) in list.into_iter().enumerate() {
                    let frames = if i + 1 == n {
                        raw.take().unwrap_or_default()
                    } else {
                        raw.as_ref()
                            .map(|r| r.iter().map(|m| zmq::Message::from(&m[..])).collect())
                            .unwrap_or_default()
                    };
                    let key = self.new_task(client, id + i as u64, Some(e), 0, timeout, body.clone(), frames, now);
                    match self.engines.get_mut(&e) {
                        Some(eng) => eng.direct.push_back(key),
                        None => self.lose(key, format!("there is no engine {e}")),
                    }
                }
            }
        }
        self.schedule();
    }

    #[allow(clippy::too_many_arguments)]
    fn new_task(
        &mut self,
        client: u32,
        id: u64,
        target: Option<u32>,
        retries: u32,
        timeout: Option<Duration>,
        body: Vec<u8>,
        raw: Vec<zmq::Message>,
        now: Instant,
    ) -> TaskKey {
        let key = self.next_task;
        self.next_task += 1;
        let segments = super::shm::segment_names(&body);
        for n in &segments {
            *self.segments.entry(n.clone()).or_default() += 1;
        }
        self.tasks.insert(
            key,
            Task {
                client,
                id,
                target,
                retries,
                timeout,
                body,
                raw,
                segments,
                submitted: now,
                started: None,
                engine: None,
            },
        );
        key
    }

    /// Hands out tasks: each engine's direct ones first, then the common queue to the least
    /// loaded engines.
    fn schedule(&mut self) {
        let ids: Vec<u32> = self.engines.keys().copied().collect();
        for e in ids {
            while self.engines[&e].in_hand.len() < IN_HAND {
                let Some(key) = self.engines.get_mut(&e).and_then(|eng| eng.direct.pop_front()) else {
                    break;
                };
                self.start(e, key);
            }
        }
        while !self.queue.is_empty() {
            let Some((&e, _)) = self
                .engines
                .iter()
                .filter(|(_, eng)| eng.in_hand.len() < IN_HAND)
                .min_by_key(|(_, eng)| eng.in_hand.len() + eng.direct.len())
            else {
                break;
            };
            let key = self.queue.pop_front().expect("not empty");
            self.start(e, key);
        }
    }

    fn start(&mut self, e: u32, key: TaskKey) {
        let Some(t) = self.tasks.get_mut(&key) else { return };
        let Some(eng) = self.engines.get_mut(&e) else { return };
        let raw: Vec<zmq::Message> = t.raw.iter().map(|m| zmq::Message::from(&m[..])).collect();
        let (first, raw) = if eng.shm || t.segments.is_empty() {
            (Msg::Run { task: key }.with_body(&t.body), raw)
        } else {
            match super::shm::to_frames(&t.body, raw) {
                Some((body, raw)) => (Msg::Run { task: key }.with_body(&body), raw),
                None => {
                    self.lose(key, "its shared-memory segments could not be read".into());
                    return;
                }
            }
        };
        t.started = Some(Instant::now());
        t.engine = Some(e);
        eng.in_hand.push_back(key);
        let route = eng.route.clone();
        if !self.send(&route, &first, raw) {
            self.engine_died(e, "could not be reached");
        }
    }

    fn finished(&mut self, e: u32, key: TaskKey, ok: bool, ran_us: u64, body: &[u8], raw: Vec<zmq::Message>) {
        if let Some(eng) = self.engines.get_mut(&e) {
            eng.in_hand.retain(|k| *k != key);
            eng.tasks_done += 1;
            eng.last_heard = Instant::now();
        }
        self.tasks_done += 1;
        let result_segments = super::shm::segment_names(body);
        // A task that timed out or was forgotten is no longer here: its result goes nowhere.
        let Some(t) = self.take_task(key) else {
            super::shm::unlink_all(&result_segments);
            self.schedule();
            return;
        };
        {
            let client_maps = self.clients.get(&t.client).is_some_and(|c| c.shm);
            let (body, raw) = if client_maps || result_segments.is_empty() {
                (body.to_vec(), raw)
            } else {
                let converted = super::shm::to_frames(body, raw);
                super::shm::unlink_all(&result_segments);
                match converted {
                    Some(c) => c,
                    None => {
                        let msg = Msg::Result {
                            task: t.id,
                            engine: e,
                            outcome: Outcome::Lost("its result's shared memory could not be read".into()),
                            queued_us: 0,
                            ran_us,
                        };
                        self.deliver(t.client, msg.encode(), Vec::new());
                        self.schedule();
                        return;
                    }
                }
            };
            let outcome = if ok { Outcome::Done } else { Outcome::Raised };
            let queued_us = t
                .started
                .map(|s| s.duration_since(t.submitted).as_micros() as u64)
                .unwrap_or(0);
            let msg = Msg::Result {
                task: t.id,
                engine: e,
                outcome,
                queued_us,
                ran_us,
            };
            self.deliver(t.client, msg.with_body(&body), raw);
        }
        self.schedule();
    }

    /// Removes a task, and the names of the segments no other task holds.
    fn take_task(&mut self, key: TaskKey) -> Option<Task> {
        let t = self.tasks.remove(&key)?;
        for n in &t.segments {
            if let Some(c) = self.segments.get_mut(n) {
                *c -= 1;
                if *c == 0 {
                    self.segments.remove(n);
                    let _ = crate::parallel::sweep::unlink(n);
                }
            }
        }
        Some(t)
    }

    /// Sends a result to its client, or keeps it until the client comes back.
    fn deliver(&mut self, client: u32, first: Vec<u8>, raw: Vec<zmq::Message>) {
        let Some(c) = self.clients.get(&client) else { return };
        if let Some(route) = c.route.clone()
            && c.undelivered.is_empty()
        {
            // With ROUTER_MANDATORY a gone peer fails the first frame, so nothing half-sent
            // stays behind; the frames are kept from the copy below.
            if self.router.send(&route[..], zmq::SNDMORE | zmq::DONTWAIT).is_ok() {
                let more = !raw.is_empty();
                let _ = self.router.send(&first[..], if more { zmq::SNDMORE } else { 0 });
                let n = raw.len();
                for (i, m) in raw.into_iter().enumerate() {
                    let _ = self.router.send(m, if i + 1 < n { zmq::SNDMORE } else { 0 });
                }
                return;
            }
            self.client_gone(client);
        }
        if let Some(c) = self.clients.get_mut(&client) {
            let mut frames = vec![zmq::Message::from(&first[..])];
            frames.extend(raw);
            c.undelivered.push_back(frames);
        }
    }

    fn client_gone(&mut self, client: u32) {
        if let Some(c) = self.clients.get_mut(&client) {
            if let Some(r) = c.route.take() {
                self.routes.remove(&r);
            }
            c.gone_since.get_or_insert_with(Instant::now);
        }
    }

    fn flush_undelivered(&mut self, client: u32) {
        let Some(c) = self.clients.get_mut(&client) else { return };
        let Some(route) = c.route.clone() else { return };
        let pending: Vec<_> = c.undelivered.drain(..).collect();
        for mut frames in pending {
            let first = frames.remove(0);
            if !self.send(&route, &first, frames) {
                self.client_gone(client);
                return;
            }
        }
    }

    fn forget(&mut self, client: u32, ids: &[u64]) {
        let keys: Vec<TaskKey> = self
            .tasks
            .iter()
            .filter(|(_, t)| t.client == client && ids.contains(&t.id))
            .map(|(&k, _)| k)
            .collect();
        for k in keys {
            self.queue.retain(|q| *q != k);
            for eng in self.engines.values_mut() {
                eng.direct.retain(|q| *q != k);
            }
            // A running one finishes; its result then finds no task and is dropped.
            self.take_task(k);
        }
    }

    /// Ends task `key` with a `Lost` result.
    fn lose(&mut self, key: TaskKey, why: String) {
        let Some(t) = self.take_task(key) else { return };
        let msg = Msg::Result {
            task: t.id,
            engine: t.engine.or(t.target).unwrap_or(0),
            outcome: Outcome::Lost(why),
            queued_us: 0,
            ran_us: 0,
        };
        self.deliver(t.client, msg.encode(), Vec::new());
    }

    fn engine_label(&self, e: u32) -> String {
        match self.engines.get(&e) {
            Some(eng) => format!("engine {e} (pid {} on {})", eng.pid, eng.host),
            None => format!("engine {e}"),
        }
    }

    /// Engine `e` is gone: its tasks are rerun elsewhere while they have retries, else lost.
    fn engine_died(&mut self, e: u32, how: &str) {
        let label = self.engine_label(e);
        let Some(eng) = self.engines.remove(&e) else { return };
        self.routes.retain(|_, w| *w != Who::Engine(e) && *w != Who::Beat(e));
        let mut requeue = Vec::new();
        for key in eng.in_hand {
            let retry = self
                .tasks
                .get_mut(&key)
                .is_some_and(|t| t.target.is_none() && t.retries > 0);
            if retry {
                let t = self.tasks.get_mut(&key).expect("checked");
                t.retries -= 1;
                t.engine = None;
                t.started = None;
                requeue.push(key);
            } else {
                self.lose(key, format!("{label} {how} while running the task"));
            }
        }
        for key in eng.direct {
            self.lose(key, format!("{label} {how} before the task started"));
        }
        // Retried tasks go first: they have waited longest.
        for key in requeue.into_iter().rev() {
            self.queue.push_front(key);
        }
        self.schedule();
    }

    /// Once per tick: ended engine processes, silent engines, tasks past their time, clients
    /// long gone.
    fn look_around(&mut self) {
        for ended in self.launcher.reap(self.stopping) {
            let ids: Vec<u32> = self
                .engines
                .iter()
                .filter(|(_, e)| e.slot == ended.slot)
                .map(|(&id, _)| id)
                .collect();
            let how = format!("died ({})", ended.how);
            for id in ids {
                self.engine_died(id, &how);
            }
            if ended.restarted {
                eprintln!("thcluster: engine slot {} {how}; started again", ended.slot);
            } else {
                eprintln!("thcluster: engine slot {} {how}; no restarts left", ended.slot);
            }
        }
        let silent: Vec<u32> = self
            .engines
            .iter()
            .filter(|(_, e)| e.last_heard.elapsed() > BEAT_TIMEOUT)
            .map(|(&id, _)| id)
            .collect();
        for id in silent {
            let slot = self.engines[&id].slot;
            self.engine_died(id, "stopped answering");
            if slot != 0 {
                self.launcher.kill(slot);
            }
        }
        let late: Vec<(TaskKey, u32, Duration)> = self
            .tasks
            .iter()
            .filter_map(|(&k, t)| {
                let limit = t.timeout?;
                let e = t.engine?;
                (t.started?.elapsed() > limit).then_some((k, e, limit))
            })
            .collect();
        for (key, e, limit) in late {
            let label = self.engine_label(e);
            self.lose(
                key,
                format!(
                    "the task ran past its time limit ({} s) on {label}, which was stopped",
                    limit.as_secs_f64()
                ),
            );
            // The engine is still running it: only ending it frees the engine.
            if let Some(slot) = self.engines.get(&e).map(|eng| eng.slot) {
                self.engine_died(e, "was stopped (a task ran past its time limit)");
                if slot != 0 {
                    self.launcher.kill(slot);
                }
            }
        }
        let here = hostname();
        let drop: Vec<u32> = self
            .clients
            .iter()
            .filter(|(_, c)| {
                c.route.is_none()
                    && (c.gone_since.is_some_and(|g| g.elapsed() > CLIENT_GRACE)
                        || (c.host == here && process_gone(c.pid)))
            })
            .map(|(&n, _)| n)
            .collect();
        for n in drop {
            if let Some(c) = self.clients.remove(&n) {
                for frames in c.undelivered {
                    if let Some((_, body)) = frames.first().and_then(|f| Msg::split(f)) {
                        super::shm::unlink_all(&super::shm::segment_names(body));
                    }
                }
            }
            let keys: Vec<TaskKey> = self
                .tasks
                .iter()
                .filter(|(_, t)| t.client == n)
                .map(|(&k, _)| k)
                .collect();
            for k in keys {
                self.queue.retain(|q| *q != k);
                self.take_task(k);
            }
        }
        // A client on this machine that ended is gone at once (its results go nowhere).
        let ended: Vec<u32> = self
            .clients
            .iter()
            .filter(|(_, c)| c.route.is_some() && c.host == here && process_gone(c.pid))
            .map(|(&n, _)| n)
            .collect();
        for n in ended {
            self.client_gone(n);
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
        crate::parallel::sweep::sweep_run(&self.run);
    }
}

fn process_gone(pid: u32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    pid != 0
        && unsafe { libc::kill(pid as i32, 0) } != 0
        && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}
