//! Tasks through the controller: submission, scheduling onto engines, results back to their
//! client (or kept until it comes back), forgetting and losing them.
use std::time::{Duration, Instant};

use super::{Controller, IN_HAND, Task, TaskKey, UNREACHABLE};
use crate::cluster::protocol::{Msg, Outcome, Targets};

impl Controller {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn submit(
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
    pub(super) fn new_task(
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
        let segments = crate::cluster::shm::segment_names(&body);
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
                running: None,
                engine: None,
            },
        );
        key
    }

    /// Hands out tasks: each engine's direct ones first, then the common queue to the least
    /// loaded engines.
    pub(super) fn schedule(&mut self) {
        let ids: Vec<u32> = self.engines.keys().copied().collect();
        for e in ids {
            if self.engines[&e].dying.is_some() {
                continue;
            }
            while self.engines[&e].in_hand.len() < IN_HAND && self.engines[&e].dying.is_none() {
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
                .filter(|(_, eng)| eng.in_hand.len() < IN_HAND && eng.dying.is_none())
                .min_by_key(|(_, eng)| eng.in_hand.len() + eng.direct.len())
            else {
                break;
            };
            let key = self.queue.pop_front().expect("not empty");
            self.start(e, key);
        }
    }

    pub(super) fn start(&mut self, e: u32, key: TaskKey) {
        let Some(t) = self.tasks.get_mut(&key) else { return };
        let Some(eng) = self.engines.get_mut(&e) else { return };
        // A direct task is sent once (its engine gone, it is lost, never resent), so its frames,
        // already copied per engine at submission, move; a load-balanced one may be sent again.
        let raw: Vec<zmq::Message> = if t.target.is_some() {
            std::mem::take(&mut t.raw)
        } else {
            t.raw.iter().map(|m| zmq::Message::from(&m[..])).collect()
        };
        let (first, raw) = if eng.shm || t.segments.is_empty() {
            (Msg::Run { task: key }.with_body(&t.body), raw)
        } else {
            match crate::cluster::shm::to_frames(&t.body, raw) {
                Some((body, raw)) => (Msg::Run { task: key }.with_body(&body), raw),
                None => {
                    self.lose(key, "its shared-memory segments could not be read".into());
                    return;
                }
            }
        };
        let route = eng.route.clone();
        if !self.send(&route, &first, raw) {
            // Its connection is gone (the process has ended, most likely, and is not reaped
            // yet): the task never reached it, so it waits for another engine (a direct one is
            // lost with its engine), and the engine gets no more while it is given up.
            let eng = self.engines.get_mut(&e).expect("found above");
            eng.dying
                .get_or_insert_with(|| (Instant::now(), UNREACHABLE.to_string()));
            match self.tasks.get(&key).and_then(|t| t.target) {
                Some(_) => eng.direct.push_front(key),
                None => self.queue.push_front(key),
            }
            return;
        }
        let eng = self.engines.get_mut(&e).expect("found above");
        let idle = eng.in_hand.is_empty();
        eng.in_hand.push_back(key);
        let t = self.tasks.get_mut(&key).expect("found above");
        let now = Instant::now();
        t.started = Some(now);
        t.running = idle.then_some(now);
        t.engine = Some(e);
    }

    pub(super) fn finished(
        &mut self,
        e: u32,
        key: TaskKey,
        ok: bool,
        ran_us: u64,
        body: &[u8],
        raw: Vec<zmq::Message>,
    ) {
        if let Some(eng) = self.engines.get_mut(&e) {
            eng.in_hand.retain(|k| *k != key);
            eng.tasks_done += 1;
            eng.last_heard = Instant::now();
            // The engine goes on to the next in its hand.
            if let Some(t) = eng.in_hand.front().and_then(|next| self.tasks.get_mut(next)) {
                t.running.get_or_insert_with(Instant::now);
            }
        }
        self.tasks_done += 1;
        let result_segments = crate::cluster::shm::segment_names(body);
        // A task that timed out or was forgotten is no longer here: its result goes nowhere.
        let Some(t) = self.take_task(key) else {
            crate::cluster::shm::unlink_all(&result_segments);
            self.schedule();
            return;
        };
        {
            let client_maps = self.clients.get(&t.client).is_some_and(|c| c.shm);
            let (body, raw) = if client_maps || result_segments.is_empty() {
                (body.to_vec(), raw)
            } else {
                let converted = crate::cluster::shm::to_frames(body, raw);
                crate::cluster::shm::unlink_all(&result_segments);
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
    pub(super) fn take_task(&mut self, key: TaskKey) -> Option<Task> {
        let t = self.tasks.remove(&key)?;
        for n in &t.segments {
            if let Some(c) = self.segments.get_mut(n) {
                *c -= 1;
                if *c == 0 {
                    self.segments.remove(n);
                    let _ = crate::process::sweep::unlink(n);
                }
            }
        }
        Some(t)
    }

    /// Sends a result to its client, or keeps it until the client comes back.
    pub(super) fn deliver(&mut self, client: u32, first: Vec<u8>, raw: Vec<zmq::Message>) {
        let Some(c) = self.clients.get(&client) else { return };
        if let Some(route) = c.route.clone()
            && c.undelivered.is_empty()
        {
            // With ROUTER_MANDATORY a gone peer fails the first frame, so nothing half-sent
            // stays behind; the frames are kept from the copy below.
            if self.router.send(&route[..], zmq::SNDMORE | zmq::DONTWAIT).is_ok() {
                let more = !raw.is_empty();
                let _ = crate::cluster::frames::send_first(&self.router, &first, if more { zmq::SNDMORE } else { 0 });
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

    pub(super) fn client_gone(&mut self, client: u32) {
        if let Some(c) = self.clients.get_mut(&client) {
            if let Some(r) = c.route.take() {
                self.routes.remove(&r);
            }
            c.gone_since.get_or_insert_with(Instant::now);
        }
    }

    pub(super) fn flush_undelivered(&mut self, client: u32) {
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

    pub(super) fn forget(&mut self, client: u32, ids: &[u64]) {
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
    pub(super) fn lose(&mut self, key: TaskKey, why: String) {
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
}
