//! The connecting side of the cluster's handshake, shared by clients, engines and heartbeats:
//! a DEALER that passes the controller's gate, says who it is, answers the challenge, and checks
//! the controller's own proof before it trusts anything the controller sends.

use std::time::{Duration, Instant};

use super::protocol::{Msg, Role, hostname};
use super::watch::{self, Heard, Watch};
use crate::error::{Error, Result};
use crate::process::gate;
use crate::wire::handshake;

/// The largest frame a peer sends (larger storages go in pieces, see `value.rs`); it is the
/// controller's gate limit too.
pub const MAX_FRAME: usize = gate::MAX_FRAME;

pub fn zmq_err(what: &str, e: zmq::Error) -> Error {
    Error::io(format!("{what}: {e}"))
}

/// A connected, authenticated peer of a controller.
pub struct Peer {
    // The sockets go before their context (field order is drop order).
    pub socket: zmq::Socket,
    /// The connection's events, for a client (see `watch.rs`).
    pub watch: Option<Watch>,
    pub ctx: zmq::Context,
    /// What the controller's welcome said: an engine's id, a client's number.
    pub id: u32,
    /// The cluster's run, when this peer shares the controller's shared memory.
    pub shm_run: Option<String>,
}

/// Waits up to `timeout` for a message, watching for Ctrl-C when `interruptible`. Returns its
/// frames, or None at the deadline. A blocking receive with a timeout rather than poll, then
/// receive: fewer system calls on every round trip.
pub fn recv_frames(
    socket: &zmq::Socket,
    timeout: Option<Duration>,
    interruptible: bool,
) -> Result<Option<Vec<zmq::Message>>> {
    let deadline = timeout.map(|t| Instant::now() + t);
    loop {
        let mut slice: i64 = if interruptible { 50 } else { 1000 };
        if let Some(d) = deadline {
            let left = d.saturating_duration_since(Instant::now());
            slice = slice.min(left.as_millis() as i64);
        }
        let first = if slice <= 0 {
            socket.recv_msg(zmq::DONTWAIT)
        } else {
            socket
                .set_rcvtimeo(slice as i32)
                .map_err(|e| zmq_err("cannot wait for the controller", e))?;
            socket.recv_msg(0)
        };
        match first {
            Ok(m) => {
                let mut more = m.get_more();
                let mut frames = vec![m];
                while more {
                    let m = socket
                        .recv_msg(0)
                        .map_err(|e| zmq_err("cannot read from the controller", e))?;
                    more = m.get_more();
                    frames.push(m);
                }
                return super::frames::join_first(frames).map(Some);
            }
            Err(zmq::Error::EAGAIN) | Err(zmq::Error::EINTR) => {}
            Err(e) => return Err(zmq_err("cannot read from the controller", e)),
        }
        if interruptible && crate::interrupt::pending() {
            return Err(Error::peer("interrupted"));
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(None);
        }
    }
}

/// Connects to the controller at `endpoint` as `role`, proving `secret`, within `timeout`. A
/// client's connection is watched (`watch.rs`); `controller_pid` is the controller's pid as its
/// connection file gives it.
pub fn connect(
    endpoint: &str,
    secret: &[u8],
    role: Role,
    timeout: Duration,
    controller_pid: Option<u32>,
) -> Result<Peer> {
    let ctx = zmq::Context::new();
    let socket = ctx
        .socket(zmq::DEALER)
        .map_err(|e| zmq_err("cannot make a socket", e))?;
    let setup = || -> zmq::Result<()> {
        socket.set_sndhwm(0)?;
        socket.set_rcvhwm(0)?;
        socket.set_linger(1000)?;
        // The controller's answers are bounded too: a peer never buffers more than it asked for
        // plus one frame.
        socket.set_maxmsgsize(MAX_FRAME as i64)?;
        gate::present(&socket, secret)
    };
    setup().map_err(|e| zmq_err(&format!("cannot connect to {endpoint}"), e))?;
    let watch = match role {
        Role::Client { .. } => {
            let here = controller_pid.filter(|_| watch::is_local(endpoint));
            Some(watch::watch(&ctx, &socket, here)?)
        }
        _ => None,
    };
    socket
        .connect(endpoint)
        .map_err(|e| zmq_err(&format!("cannot connect to {endpoint}"), e))?;
    let hello = Msg::Hello {
        role,
        pid: std::process::id(),
        host: hostname(),
    };
    socket
        .send(hello.encode(), 0)
        .map_err(|e| zmq_err("cannot greet the controller", e))?;
    let deadline = Instant::now() + timeout;
    let no_answer = || {
        Error::peer(format!(
            "no answer from the controller at {endpoint} (is the cluster running, and is the secret right?)"
        ))
    };
    let mut answered = None;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(no_answer());
        }
        // In slices, so that a refusal or a closed connection ends the wait at once.
        let slice = if watch.is_some() {
            left.min(Duration::from_millis(50))
        } else {
            left
        };
        let Some(frames) = recv_frames(&socket, Some(slice), false)? else {
            if let Some(heard) = watch.as_ref().and_then(Watch::heard) {
                return Err(match heard {
                    Heard::Refused => Error::peer(format!(
                        "the controller at {endpoint} refused us: the secret is not this cluster's"
                    )),
                    Heard::Closed => Error::peer(format!("the controller at {endpoint} closed the connection")),
                });
            }
            continue;
        };
        let Some((msg, _)) = frames.first().and_then(|f| Msg::split(f)) else {
            continue;
        };
        match msg {
            Msg::Challenge { challenge } => {
                let (answer, check) = handshake::answer(secret, &challenge)?;
                socket
                    .send(Msg::Answer { answer }.encode(), 0)
                    .map_err(|e| zmq_err("cannot answer the controller", e))?;
                answered = Some(check);
            }
            Msg::Welcome {
                confirmation,
                id,
                run,
                probe,
            } => {
                let check = answered
                    .take()
                    .ok_or_else(|| Error::peer("the controller welcomed us before it challenged us"))?;
                check
                    .check(&confirmation)
                    .map_err(|_| Error::peer("the controller does not know the cluster's secret"))?;
                let shm = super::shm::can_map(&probe);
                socket
                    .send(Msg::Attached { shm }.encode(), 0)
                    .map_err(|e| zmq_err("cannot reach the controller", e))?;
                let shm_run = shm.then_some(run);
                return Ok(Peer {
                    socket,
                    watch,
                    ctx,
                    id,
                    shm_run,
                });
            }
            Msg::Refused { why } => return Err(Error::peer(format!("the controller refused us: {why}"))),
            _ => {}
        }
    }
}

impl Peer {
    /// Sends one message: `first` (message and body) and the raw frames after it.
    pub fn send(&self, first: &[u8], raw: &[Vec<u8>]) -> Result<()> {
        let flags = if raw.is_empty() { 0 } else { zmq::SNDMORE };
        super::frames::send_first(&self.socket, first, flags)
            .map_err(|e| zmq_err("cannot send to the controller", e))?;
        for (i, f) in raw.iter().enumerate() {
            let flags = if i + 1 < raw.len() { zmq::SNDMORE } else { 0 };
            self.socket
                .send(&f[..], flags)
                .map_err(|e| zmq_err("cannot send to the controller", e))?;
        }
        Ok(())
    }
}
