//! The client's native side (`libcluster`'s `connect`): one authenticated connection to the
//! controller, task submission, and the results that arrived and were not taken yet. A result's
//! frames stay undecoded until Lua takes it, and are dropped then: nothing is kept after that.
//! Every wait here notices Ctrl-C (the tasks go on; their results can still be taken), and a
//! controller that ended or stopped answering (`watch.rs`): the wait then fails within
//! `watch::NOTICE`, naming it, while the results that had arrived can still be taken. The client
//! owns the segments its tasks were sent in until their results come back; with the controller
//! gone, it removes them (then, or when it closes).

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use mlua::{Lua, Table, UserData, UserDataMethods, Value};

use super::connfile;
use super::peer::{self, Peer, recv_frames};
use super::protocol::{Msg, Outcome, Role, Status, Targets};
use super::value;
use super::watch::Heard;
use crate::error::{Error, Named};
use crate::wire::handshake::random_bytes;

struct Arrived {
    engine: u32,
    outcome: Outcome,
    queued_us: u64,
    ran_us: u64,
    /// Its place in the order results arrived.
    seq: u64,
    /// The first frame (message and body) and the raw frames.
    first: zmq::Message,
    raw: Vec<zmq::Message>,
}

impl Arrived {
    /// Removes the names of the segments of a result nobody will take.
    fn drop_segments(&self) {
        if let Some((_, body)) = Msg::split(&self.first) {
            super::shm::unlink_all(&super::shm::segment_names(body));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        for (_, a) in self.arrived.drain() {
            a.drop_segments();
        }
        self.check_controller();
        if self.gone.is_some() {
            self.drop_task_segments();
        }
    }
}

/// The segments one submission's value went in, and its tasks whose results have not come.
struct Sent {
    names: Vec<String>,
    waiting: HashSet<u64>,
}

pub struct Client {
    peer: Option<Peer>,
    next_task: u64,
    arrived: HashMap<u64, Arrived>,
    /// Answers to requests (engine lists, status), oldest first.
    answers: VecDeque<Msg>,
    arrivals: u64,
    pub profile: String,
    /// The controller's pid, as its connection file says.
    controller_pid: u32,
    /// Why the controller is known to be gone.
    gone: Option<String>,
    /// Submissions whose value is in segments, by their first task.
    sent: HashMap<u64, Sent>,
    /// Each waiting task's submission.
    sent_by_task: HashMap<u64, u64>,
}

fn seconds(method: &str, t: Option<f64>) -> mlua::Result<Option<Duration>> {
    match t {
        None => Ok(None),
        Some(s) if s.is_finite() && s >= 0.0 => Ok(Some(Duration::from_secs_f64(s))),
        Some(s) if s.is_infinite() && s > 0.0 => Ok(None),
        Some(s) => Err(Error::argument(format!("bad timeout {s}")).named(method)),
    }
}

impl Client {
    pub fn connect(profile: &str, timeout: Duration) -> crate::error::Result<Client> {
        let conn = connfile::read(profile)?;
        let secret = conn.secret_bytes()?;
        let key = u64::from_le_bytes(
            random_bytes(8)
                .map_err(|e| Error::io(e.to_string()))?
                .try_into()
                .expect("8 bytes"),
        );
        let peer = peer::connect(&conn.endpoint, &secret, Role::Client { key }, timeout, Some(conn.pid))?;
        Ok(Client {
            peer: Some(peer),
            next_task: 1,
            arrived: HashMap::new(),
            answers: VecDeque::new(),
            arrivals: 0,
            profile: profile.to_string(),
            controller_pid: conn.pid,
            gone: None,
            sent: HashMap::new(),
            sent_by_task: HashMap::new(),
        })
    }

    /// Looks at the connection's events (and the pid, for a controller here); records why the
    /// controller is gone, once it is, and removes the task segments nobody else will.
    fn check_controller(&mut self) {
        if self.gone.is_some() {
            return;
        }
        let Some(w) = self.peer.as_ref().and_then(|p| p.watch.as_ref()) else {
            return;
        };
        let ended = w.process_ended();
        let why = match (w.heard(), ended) {
            (_, true) => "has ended",
            (Some(Heard::Closed), false) if w.is_local() => "stopped answering (its heartbeats stopped)",
            (Some(Heard::Closed), false) => "closed the connection or stopped answering",
            (Some(Heard::Refused), false) => "refused the connection",
            (None, false) => return,
        };
        self.gone = Some(format!(
            "the controller of cluster '{}' (pid {}) {why}",
            self.profile, self.controller_pid
        ));
        self.drop_task_segments();
    }

    fn drop_task_segments(&mut self) {
        for (_, s) in self.sent.drain() {
            super::shm::unlink_all(&s.names);
        }
        self.sent_by_task.clear();
    }

    /// The error of a wait that cannot end now that the controller is gone.
    fn gone_error(&self, done: usize, of: usize) -> Option<Error> {
        let why = self.gone.as_ref()?;
        Some(Error::peer(format!(
            "{why}; {done} of {of} tasks had finished (their results can still be taken)"
        )))
    }

    /// The submission of `task` no longer waits for it.
    fn settled(&mut self, task: u64) {
        let Some(first) = self.sent_by_task.remove(&task) else {
            return;
        };
        if let Some(s) = self.sent.get_mut(&first) {
            s.waiting.remove(&task);
            if s.waiting.is_empty() {
                self.sent.remove(&first);
            }
        }
    }

    fn peer(&self) -> crate::error::Result<&Peer> {
        self.peer
            .as_ref()
            .ok_or_else(|| Error::argument("the client is closed"))
    }

    /// Files one message; returns whether it was a result.
    fn file(&mut self, mut frames: Vec<zmq::Message>) {
        if frames.is_empty() {
            return;
        }
        let first = frames.remove(0);
        let Some((msg, _)) = Msg::split(&first) else { return };
        match msg {
            Msg::Result {
                task,
                engine,
                outcome,
                queued_us,
                ran_us,
            } => {
                self.arrivals += 1;
                self.settled(task);
                self.arrived.insert(
                    task,
                    Arrived {
                        engine,
                        outcome,
                        queued_us,
                        ran_us,
                        seq: self.arrivals,
                        first,
                        raw: frames,
                    },
                );
            }
            other => self.answers.push_back(other),
        }
    }

    /// Reads what has come, waiting up to `timeout` for the first message (None: no wait). It
    /// waits in slices, looking at the controller between them; once the controller is gone it
    /// returns what it read (see `gone`).
    fn pump(&mut self, timeout: Option<Duration>) -> crate::error::Result<usize> {
        let mut n = 0;
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let slice = deadline.map(|d| {
                d.saturating_duration_since(Instant::now())
                    .min(Duration::from_millis(100))
            });
            let got = {
                let p = self.peer()?;
                match slice {
                    Some(t) if n == 0 && self.gone.is_none() => recv_frames(&p.socket, Some(t), true)?,
                    _ => recv_frames(&p.socket, Some(Duration::ZERO), false)?,
                }
            };
            match got {
                Some(frames) => {
                    self.file(frames);
                    n += 1;
                }
                None => {
                    self.check_controller();
                    let waited_out = deadline.is_none_or(|d| Instant::now() >= d);
                    if n > 0 || waited_out || self.gone.is_some() {
                        return Ok(n);
                    }
                }
            }
        }
    }

    /// Sends a request and waits for the answer `want` picks.
    fn ask<T>(&mut self, msg: &Msg, timeout: Duration, want: impl Fn(&Msg) -> Option<T>) -> crate::error::Result<T> {
        self.check_controller();
        if let Some(why) = &self.gone {
            return Err(Error::peer(why.clone()));
        }
        self.peer()?.send(&msg.encode(), &[])?;
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(at) = self.answers.iter().position(|m| want(m).is_some()) {
                let m = self.answers.remove(at).expect("found");
                return Ok(want(&m).expect("checked"));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Error::peer(format!(
                    "the controller of cluster '{}' did not answer within {} s (is it still running?)",
                    self.profile,
                    timeout.as_secs_f64()
                )));
            }
            self.pump(Some(left.min(Duration::from_millis(200))))?;
            if let Some(why) = &self.gone {
                return Err(Error::peer(why.clone()));
            }
        }
    }

    /// The cluster's state.
    pub fn status_now(&mut self, timeout: Duration) -> crate::error::Result<Status> {
        self.ask(&Msg::GetStatus, timeout, |m| match m {
            Msg::State { status } => Some(status.clone()),
            _ => None,
        })
    }

    /// Asks the controller to end the cluster.
    pub fn stop_now(&mut self, timeout: Duration) -> crate::error::Result<()> {
        self.ask(&Msg::Stop, timeout, |m| matches!(m, Msg::Stopping).then_some(()))
    }

    pub fn engine_ids(&mut self, timeout: Duration) -> crate::error::Result<Vec<u32>> {
        self.ask(&Msg::ListEngines, timeout, |m| match m {
            Msg::Engines { ids } => Some(ids.clone()),
            _ => None,
        })
    }
}

fn status_table(lua: &Lua, s: &Status) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("profile", s.profile.as_str())?;
    let controller = lua.create_table()?;
    controller.set("pid", s.pid)?;
    controller.set("host", s.host.as_str())?;
    controller.set("rss_kb", s.rss_kb)?;
    t.set("controller", controller)?;
    t.set("queued", s.queued)?;
    t.set("tasks_done", s.tasks_done)?;
    t.set("restarts", s.restarts)?;
    t.set("undelivered", s.undelivered)?;
    for (i, e) in s.engines.iter().enumerate() {
        let r = lua.create_table()?;
        r.set("id", e.id)?;
        r.set("host", e.host.as_str())?;
        r.set("pid", e.pid)?;
        r.set("state", e.state.as_str())?;
        r.set("tasks", e.tasks_done)?;
        r.set("queued", e.queued)?;
        r.set("rss_kb", e.rss_kb)?;
        t.set(i + 1, r)?;
    }
    Ok(t)
}

/// `submit`'s arguments: value, engines (nil: any), retries, timeout in seconds, caller's name.
type SubmitArgs = (Value, Option<Vec<u32>>, Option<u32>, Option<f64>, Option<String>);

impl UserData for Client {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        // submit(value, engines|nil, retries, timeout_s, caller) -> first task id; errors name
        // `cluster.<caller>`, the Lua function the user called.
        m.add_method_mut(
            "submit",
            |lua, this, (v, engines, retries, timeout, caller): SubmitArgs| {
                let name = format!("cluster.{}", caller.as_deref().unwrap_or("submit"));
                let method = name.as_str();
                this.check_controller();
                if let Some(why) = &this.gone {
                    return Err(Error::peer(why.clone()).named(method));
                }
                let timeout_ms = seconds(method, timeout)?.map(|d| d.as_millis() as u64).unwrap_or(0);
                let first = this.next_task;
                let targets = match engines {
                    Some(list) => {
                        if list.is_empty() {
                            return Err(Error::argument("no engines to send the task to").named(method));
                        }
                        this.next_task += list.len() as u64;
                        Targets::Engines(list)
                    }
                    None => {
                        this.next_task += 1;
                        Targets::Any
                    }
                };
                let enc = value::encode(lua, &v, this.peer().named(method)?.shm_run.as_deref())
                    .map_err(|e| Error::argument(format!("cannot send the task: {e}")).named(method))?;
                let head = Msg::Submit {
                    first,
                    targets,
                    retries: retries.unwrap_or(0),
                    timeout_ms,
                }
                .encode();
                enc.send(&this.peer().named(method)?.socket, &head).named(method)?;
                let names = super::shm::segment_names(&enc.body);
                if !names.is_empty() {
                    let waiting: HashSet<u64> = (first..this.next_task).collect();
                    for &t in &waiting {
                        this.sent_by_task.insert(t, first);
                    }
                    this.sent.insert(first, Sent { names, waiting });
                }
                Ok(first)
            },
        );
        // wait(ids, timeout_s|nil) -> whether every one has arrived; false and why once the
        // controller is gone with some missing
        m.add_method_mut("wait", |_, this, (ids, timeout): (Vec<u64>, Option<f64>)| {
            const M: &str = "cluster.wait";
            let timeout = seconds(M, timeout)?;
            let deadline = timeout.map(|t| Instant::now() + t);
            let of = ids.len();
            let mut missing: HashSet<u64> = ids.into_iter().filter(|i| !this.arrived.contains_key(i)).collect();
            this.pump(None).named(M)?;
            loop {
                missing.retain(|i| !this.arrived.contains_key(i));
                if missing.is_empty() {
                    return Ok((true, None));
                }
                if let Some(e) = this.gone_error(of - missing.len(), of) {
                    return Ok((false, Some(e.to_string())));
                }
                let slice = match deadline {
                    Some(d) => {
                        let left = d.saturating_duration_since(Instant::now());
                        if left.is_zero() {
                            return Ok((false, None));
                        }
                        left.min(Duration::from_millis(100))
                    }
                    None => Duration::from_millis(100),
                };
                this.pump(Some(slice)).named(M)?;
            }
        });
        // wait_any(ids, timeout_s|nil) -> the first of ids (in their order) whose result has
        // arrived, or nil at the deadline (nil and why once the controller is gone)
        m.add_method_mut("wait_any", |_, this, (ids, timeout): (Vec<u64>, Option<f64>)| {
            const M: &str = "cluster.wait";
            let deadline = seconds(M, timeout)?.map(|t| Instant::now() + t);
            this.pump(None).named(M)?;
            loop {
                if let Some(&id) = ids.iter().find(|i| this.arrived.contains_key(i)) {
                    return Ok((Some(id), None));
                }
                if let Some(e) = this.gone_error(0, ids.len()) {
                    return Ok((None, Some(e.to_string())));
                }
                let slice = match deadline {
                    Some(d) => {
                        let left = d.saturating_duration_since(Instant::now());
                        if left.is_zero() {
                            return Ok((None, None));
                        }
                        left.min(Duration::from_millis(100))
                    }
                    None => Duration::from_millis(100),
                };
                this.pump(Some(slice)).named(M)?;
            }
        });
        // count(ids) -> how many of them have arrived (after reading what is there)
        m.add_method_mut("count", |_, this, ids: Vec<u64>| {
            this.pump(None).named("cluster.count")?;
            Ok(ids.iter().filter(|i| this.arrived.contains_key(i)).count())
        });
        // take(id) -> 'ok'|'error'|'lost', value or message, engine, queued_us, ran_us
        m.add_method_mut("take", |lua, this, id: u64| {
            const M: &str = "cluster.take";
            let Some(a) = this.arrived.remove(&id) else {
                return Err(Error::argument(format!("task {id} has no result yet")).named(M));
            };
            let (kind, v) = match a.outcome {
                Outcome::Done | Outcome::Raised => {
                    let Some((_, body)) = Msg::split(&a.first) else {
                        return Err(Error::corrupt("corrupt result").named(M));
                    };
                    // This client is the last to see the result's segments.
                    let names = super::shm::segment_names(body);
                    let v = value::decode(lua, body, a.raw, M, false);
                    super::shm::unlink_all(&names);
                    let v = v?;
                    (if a.outcome == Outcome::Done { "ok" } else { "error" }, v)
                }
                Outcome::Lost(why) => ("lost", Value::String(lua.create_string(why)?)),
            };
            Ok((kind, v, a.engine, a.queued_us, a.ran_us, a.seq))
        });
        m.add_method_mut("forget", |_, this, ids: Vec<u64>| {
            for i in &ids {
                if let Some(a) = this.arrived.remove(i) {
                    a.drop_segments();
                }
                // The controller ends a forgotten task, and its segments with it.
                this.settled(*i);
            }
            this.peer()
                .and_then(|p| p.send(&Msg::Forget { tasks: ids }.encode(), &[]))
                .named("cluster.forget")
        });
        m.add_method_mut("engines", |_, this, timeout: Option<f64>| {
            const M: &str = "cluster.ids";
            let t = seconds(M, timeout)?.unwrap_or(Duration::from_secs(10));
            this.engine_ids(t).named(M)
        });
        m.add_method_mut("status", |lua, this, timeout: Option<f64>| {
            const M: &str = "cluster.status";
            let t = seconds(M, timeout)?.unwrap_or(Duration::from_secs(10));
            let s = this.status_now(t).named(M)?;
            status_table(lua, &s)
        });
        m.add_method_mut("stop", |_, this, timeout: Option<f64>| {
            const M: &str = "cluster.stop";
            let t = seconds(M, timeout)?.unwrap_or(Duration::from_secs(10));
            this.stop_now(t).named(M)
        });
        // pause(seconds): reads what comes meanwhile (Ctrl-C ends it).
        m.add_method_mut("pause", |_, this, secs: f64| {
            const M: &str = "cluster.pause";
            let Some(d) = seconds(M, Some(secs))? else {
                return Ok(());
            };
            let end = Instant::now() + d;
            loop {
                let left = end.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Ok(());
                }
                this.pump(Some(left)).named(M)?;
                if let Some(why) = &this.gone {
                    return Err(Error::peer(why.clone()).named(M));
                }
            }
        });
        m.add_method_mut("pending", |_, this, ()| Ok(this.arrived.len()));
        // gone() -> why the controller is known to be gone, or nil
        m.add_method_mut("gone", |_, this, ()| {
            this.check_controller();
            Ok(this.gone.clone())
        });
        m.add_method_mut("close", |_, this, ()| {
            this.check_controller();
            if this.gone.is_some() {
                this.drop_task_segments();
            }
            this.peer = None;
            for (_, a) in this.arrived.drain() {
                a.drop_segments();
            }
            Ok(())
        });
        m.add_method("profile", |_, this, ()| Ok(this.profile.clone()));
    }
}
