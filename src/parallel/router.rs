//! The parent's ZeroMQ side: one ROUTER socket that children reached through ZeroMQ connect to (an
//! abstract unix socket; plus a TCP endpoint once a remote child needs one), guarded by the gate
//! (`process::gate`), and the in-band handshake that turns a peer into a child (envelope.rs). A hub makes
//! it only when a child needs it: remote children, or local ones when the fast path is off.

use std::collections::{BTreeMap, HashMap};

use super::envelope::Envelope;
use super::kid::{Child, State};
use super::pieces;
use crate::error::{Error, Result};
use crate::process::gate;
use crate::wire::handshake::{self, Challenge};

/// Handshakes a child may have under way at once (others from its id, an impostor's, push out the
/// oldest).
const CHALLENGES_MAX: usize = 4;

fn zmq_err(what: &str, e: zmq::Error) -> Error {
    Error::io(format!("{what}: {e}"))
}

pub struct Router {
    _ctx: zmq::Context,
    /// Admits only peers of this run to `socket` (see `process::gate`).
    _gate: gate::Gate,
    pub socket: zmq::Socket,
    pub ipc_endpoint: String,
    /// TCP endpoints by the address they are bound on.
    tcp_endpoints: HashMap<String, String>,
    /// The child each connected route is.
    routes: HashMap<Vec<u8>, u32>,
    /// The receive timeout the socket has now (ms).
    rcvtimeo: i32,
}

impl Router {
    pub fn new(secret: &[u8]) -> Result<Router> {
        let ctx = zmq::Context::new();
        let socket = ctx
            .socket(zmq::ROUTER)
            .map_err(|e| zmq_err("cannot make a socket", e))?;
        let setup = || -> zmq::Result<()> {
            socket.set_router_mandatory(true)?;
            socket.set_sndhwm(0)?;
            socket.set_rcvhwm(0)?;
            socket.set_linger(0)?;
            Ok(())
        };
        setup().map_err(|e| zmq_err("cannot set up the socket", e))?;
        let gate = gate::guard(&ctx, &socket, secret)?;
        let nonce = handshake::hex(&handshake::random_bytes(8)?);
        // An abstract unix socket: nothing in the file system to clean up, and no port.
        let ipc_endpoint = format!("ipc://@luatorch-{}-{nonce}", std::process::id());
        socket
            .bind(&ipc_endpoint)
            .map_err(|e| zmq_err(&format!("cannot bind {ipc_endpoint}"), e))?;
        Ok(Router {
            _ctx: ctx,
            _gate: gate,
            socket,
            ipc_endpoint,
            tcp_endpoints: HashMap::new(),
            routes: HashMap::new(),
            rcvtimeo: -1,
        })
    }

    /// The TCP endpoint remote children reach us on, bound on `ip` at first use.
    pub fn tcp_endpoint(&mut self, ip: &str) -> Result<String> {
        if let Some(e) = self.tcp_endpoints.get(ip) {
            return Ok(e.clone());
        }
        let addr = if ip.contains(':') {
            format!("[{ip}]")
        } else {
            ip.to_string()
        };
        if ip.contains(':') {
            self.socket
                .set_ipv6(true)
                .map_err(|e| zmq_err("cannot enable IPv6", e))?;
        }
        self.socket
            .bind(&format!("tcp://{addr}:*"))
            .map_err(|e| zmq_err(&format!("cannot listen on {ip}"), e))?;
        let endpoint = self
            .socket
            .get_last_endpoint()
            .map_err(|e| zmq_err("cannot read the endpoint", e))?
            .map_err(|_| Error::io("the endpoint is not text"))?;
        self.tcp_endpoints.insert(ip.to_string(), endpoint.clone());
        Ok(endpoint)
    }

    /// One message, waiting up to `timeout_ms` for it (0: only what is there). A blocking
    /// receive with a timeout rather than poll-then-receive: half the system calls.
    pub fn recv(&mut self, timeout_ms: i64) -> Result<Option<Vec<Vec<u8>>>> {
        let mut flags = zmq::DONTWAIT;
        if timeout_ms != 0 {
            let t = i32::try_from(timeout_ms).unwrap_or(i32::MAX);
            if self.rcvtimeo != t {
                self.socket.set_rcvtimeo(t).map_err(|e| zmq_err("socket option", e))?;
                self.rcvtimeo = t;
            }
            flags = 0;
        }
        match self.socket.recv_multipart(flags) {
            Ok(frames) => Ok(Some(frames)),
            Err(zmq::Error::EAGAIN) | Err(zmq::Error::EINTR) => Ok(None),
            Err(e) => Err(zmq_err("receive failed", e)),
        }
    }

    /// Forgets a child's route (it is gone).
    pub fn forget(&mut self, route: &[u8]) {
        self.routes.remove(route);
    }

    /// A message from the socket: `(child id, frames)` from a connected child; a handshake step
    /// (or anything from a peer that did not pass the gate's bounds) is handled here.
    pub fn admit(
        &mut self,
        mut frames: Vec<Vec<u8>>,
        children: &mut BTreeMap<u32, Child>,
        secret: &[u8],
    ) -> Option<(u32, Vec<Vec<u8>>)> {
        if frames.len() < 2 {
            return None;
        }
        let route = frames.remove(0);
        // Only a peer that passed the gate gets here; one whose pieces do not add up is ignored.
        let frames = pieces::join(frames)?;
        if let Some(&id) = self.routes.get(&route) {
            return Some((id, frames));
        }
        // Nothing from an unknown peer is looked at but the handshake.
        match Envelope::decode(&frames[0])? {
            Envelope::Hello { id, .. } => self.challenge(children, id, route),
            Envelope::Answer { answer } => self.welcome(children, secret, &answer, route),
            _ => {}
        }
        None
    }

    /// A peer that says it is child `id` gets a challenge, if that child is still to connect.
    fn challenge(&mut self, children: &mut BTreeMap<u32, Child>, id: u32, route: Vec<u8>) {
        let Some(child) = children.get_mut(&id) else {
            return;
        };
        if child.state != State::Connecting || child.pipe.is_some() {
            return;
        }
        let Ok(challenge) = Challenge::new() else { return };
        let env = Envelope::Challenge {
            challenge: challenge.bytes(),
        };
        if self
            .socket
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
    fn welcome(&mut self, children: &mut BTreeMap<u32, Child>, secret: &[u8], answer: &[u8], route: Vec<u8>) {
        let found = children.iter_mut().find_map(|(&id, child)| {
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
        let Ok(confirmation) = challenge.check(secret, answer) else {
            return;
        };
        let env = Envelope::Welcome { confirmation };
        let sent = self
            .socket
            .send_multipart([route.clone(), env.with_body(&child.welcome)], 0);
        if sent.is_ok() {
            child.challenges.clear();
            child.route = Some(route.clone());
            child.state = State::Idle;
            self.routes.insert(route, id);
        }
    }
}
