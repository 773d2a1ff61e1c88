//! Engines and clients that are gone: ended processes (after a grace for what they sent last),
//! silent engines, tasks past their time limit, clients long away.
use std::time::{Duration, Instant};

use super::{CLIENT_GRACE, Controller, DEATH_GRACE, TaskKey, Who, process_gone};
use crate::cluster::protocol::{BEAT_TIMEOUT, Msg, hostname};

impl Controller {
    pub(super) fn engine_label(&self, e: u32) -> String {
        match self.engines.get(&e) {
            Some(eng) => format!("engine {e} (pid {} on {})", eng.pid, eng.host),
            None => format!("engine {e}"),
        }
    }

    /// Engine `e` is gone: its tasks are rerun elsewhere while they have retries, else lost.
    pub(super) fn engine_died(&mut self, e: u32, how: &str) {
        let label = self.engine_label(e);
        let Some(eng) = self.engines.remove(&e) else { return };
        self.routes.retain(|_, w| *w != Who::Engine(e) && *w != Who::Beat(e));
        // The first task in its hand was running; the others had not started, so they go back
        // to the queue whatever their retries (a direct one is lost with its engine).
        let mut requeue = Vec::new();
        for (i, key) in eng.in_hand.into_iter().enumerate() {
            let Some(t) = self.tasks.get_mut(&key) else { continue };
            let was_running = i == 0;
            if t.target.is_none() && (!was_running || t.retries > 0) {
                if was_running {
                    t.retries -= 1;
                }
                t.engine = None;
                t.started = None;
                t.running = None;
                requeue.push(key);
            } else if was_running {
                self.lose(key, format!("{label} {how} while running the task"));
            } else {
                self.lose(key, format!("{label} {how} before the task started"));
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
    pub(super) fn look_around(&mut self) {
        for ended in self.launcher.reap(self.stopping) {
            let ids: Vec<u32> = self
                .engines
                .iter()
                .filter(|(_, e)| e.slot == ended.slot)
                .map(|(&id, _)| id)
                .collect();
            let how = format!("died ({})", ended.how);
            for id in ids {
                if let Some(e) = self.engines.get_mut(&id) {
                    // How the process ended says more than a failed send did.
                    let since = match &e.dying {
                        Some((when, _)) => *when,
                        None => Instant::now(),
                    };
                    e.dying = Some((since, how.clone()));
                }
            }
            if ended.restarted {
                eprintln!("thcluster: engine slot {} {how}; started again", ended.slot);
            } else {
                eprintln!("thcluster: engine slot {} {how}; no restarts left", ended.slot);
            }
        }
        let dead: Vec<(u32, String)> = self
            .engines
            .iter()
            .filter_map(|(&id, e)| {
                let (when, how) = e.dying.as_ref()?;
                (when.elapsed() >= DEATH_GRACE).then(|| (id, how.clone()))
            })
            .collect();
        for (id, how) in dead {
            self.engine_died(id, &how);
        }
        let silent: Vec<u32> = self
            .engines
            .iter()
            .filter(|(_, e)| e.dying.is_none() && e.last_heard.elapsed() > BEAT_TIMEOUT)
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
                (t.running?.elapsed() > limit).then_some((k, e, limit))
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
                        crate::cluster::shm::unlink_all(&crate::cluster::shm::segment_names(body));
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
}
