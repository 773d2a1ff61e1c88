//! Who may talk to the controller: the handshake (challenge, then welcome with the controller's
//! own proof) and the registration of clients and engines that passed it.
use std::collections::VecDeque;
use std::time::Instant;

use super::{Client, Controller, Engine, HANDSHAKES_MAX, Pending, Who};
use crate::cluster::protocol::{Msg, Role};
use crate::wire::handshake::Challenge;

impl Controller {
    pub(super) fn challenge(&mut self, route: Vec<u8>, role: Role, pid: u32, host: String) {
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

    pub(super) fn welcome(&mut self, route: Vec<u8>, answer: &[u8]) {
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
                        let how = self.engines[&id]
                            .dying
                            .as_ref()
                            .map(|(_, how)| how.clone())
                            .unwrap_or_else(|| "was replaced by a new engine in its slot".into());
                        self.engine_died(id, &how);
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
                        dying: None,
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
}
