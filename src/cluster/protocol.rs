//! The messages between a cluster's controller, its engines and its clients.
//!
//! Every peer is a ZeroMQ DEALER connected to the controller's ROUTER. A message's first frame
//! is a postcard-encoded [`Msg`], followed in the same frame by a body when the message carries
//! one (a Lua value in wire form, see `value.rs`); the raw frames the value announces come after
//! it. The controller never decodes a body: it forwards task values from a client to an engine,
//! and the engine's answer back, frames as they came.
//!
//! A peer first passes the gate (ZeroMQ's PLAIN handshake with a token derived from the
//! cluster's secret, `process::gate`), then proves the secret itself in band (`Hello`,
//! `Challenge`, `Answer`, `Welcome`: `wire::handshake`), and nothing else it sends is looked at
//! before that.

use serde::{Deserialize, Serialize};

use crate::wire::handshake::{hex, unhex};

/// What a peer is, said in its `Hello`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Role {
    /// A `cluster.client`; `key` names it across reconnections (results wait for it).
    Client { key: u64 },
    /// An engine; `slot` is the launcher's slot it was started for (0: not started by us).
    Engine { slot: u32 },
    /// An engine's heartbeat connection (`engine` is the id its welcome gave it).
    Beat { engine: u32 },
}

/// Where a task goes.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Targets {
    /// Any engine: the least loaded one takes it (the load-balanced view).
    Any,
    /// Each of these engines runs its own copy (the direct view); task ids follow in order.
    Engines(Vec<u32>),
}

/// How a task ended.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The body holds what the engine's handler returned.
    Done,
    /// The handler raised; the body holds the message with the engine's traceback.
    Raised,
    /// The task could not finish: its engine died, was gone, or the task ran past its time.
    Lost(String),
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct EngineStatus {
    pub id: u32,
    pub host: String,
    pub pid: u32,
    /// "idle" or "busy".
    pub state: String,
    pub tasks_done: u64,
    pub queued: u32,
    pub rss_kb: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Status {
    pub profile: String,
    pub pid: u32,
    pub host: String,
    pub rss_kb: u64,
    pub engines: Vec<EngineStatus>,
    /// Tasks waiting for an engine.
    pub queued: u64,
    pub tasks_done: u64,
    /// Engines restarted after they died.
    pub restarts: u32,
    /// Results kept for clients that have not fetched them (disconnected ones).
    pub undelivered: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Msg {
    // The handshake, any peer.
    Hello {
        role: Role,
        pid: u32,
        host: String,
    },
    Challenge {
        challenge: Vec<u8>,
    },
    Answer {
        answer: Vec<u8>,
    },
    /// The controller's proof, and the peer's id (an engine's id, or a client's number); the
    /// cluster's run (segment names carry it) and a segment that only peers sharing the
    /// controller's /dev/shm can open.
    Welcome {
        confirmation: Vec<u8>,
        id: u32,
        run: String,
        probe: String,
    },
    /// Peer to controller, right after the welcome: whether it could open the probe (then
    /// values to and from it may use shared memory).
    Attached {
        shm: bool,
    },

    // Client to controller.
    /// Run the value in the body as task `first` (and `first + i` for the i-th engine of
    /// `Engines`). `retries`: how many times a load-balanced task is rerun elsewhere when its
    /// engine dies; `timeout_ms`: how long it may run (0: no limit).
    Submit {
        first: u64,
        targets: Targets,
        retries: u32,
        timeout_ms: u64,
    },
    /// Asks for the engines' ids (answered by `Engines`).
    ListEngines,
    /// Asks for the cluster's state (answered by `State`).
    GetStatus,
    /// Ends the cluster: engines, controller and connection file (answered by `Stopping`).
    Stop,
    /// Drops tasks this client no longer wants: queued ones are not run, results not sent.
    Forget {
        tasks: Vec<u64>,
    },

    // Controller to client.
    Engines {
        ids: Vec<u32>,
    },
    State {
        status: Status,
    },
    /// Task `task` ended on `engine`; body per `outcome`. Times in microseconds: `queued` from
    /// submission to start, `ran` on the engine.
    Result {
        task: u64,
        engine: u32,
        outcome: Outcome,
        queued_us: u64,
        ran_us: u64,
    },
    Stopping,

    // Controller to engine.
    /// Run task `task`: the body is the client's value.
    Run {
        task: u64,
    },
    Quit,

    // Engine to controller.
    /// Task `task` ended (`ok`: returned rather than raised); the body is the handler's value
    /// or the error text.
    Finished {
        task: u64,
        ok: bool,
        ran_us: u64,
    },

    // Heartbeats: engine to controller every BEAT, answered at once.
    Beat {
        rss_kb: u64,
    },
    BeatAck,

    /// To a peer whose message was refused, and why (then it is dropped).
    Refused {
        why: String,
    },

    // Any direction (`frames.rs`).
    /// The next `count` frames are the pieces of one first frame longer than the frame limit.
    Pieces {
        count: u32,
    },
}

impl Msg {
    pub fn encode(&self) -> Vec<u8> {
        postcard::to_allocvec(self).expect("messages always encode")
    }

    /// One frame: the message, then `body`.
    pub fn with_body(&self, body: &[u8]) -> Vec<u8> {
        let mut frame = self.encode();
        frame.extend_from_slice(body);
        frame
    }

    /// The message at the start of a frame, and the body after it.
    pub fn split(frame: &[u8]) -> Option<(Msg, &[u8])> {
        postcard::take_from_bytes(frame).ok()
    }
}

/// How often an engine's heartbeat goes out.
pub const BEAT: std::time::Duration = std::time::Duration::from_secs(1);
/// An engine not heard from for this long is dead to the controller; a controller not heard
/// from for this long is gone to its engines.
pub const BEAT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// What a launched engine reads on its stdin: where the controller is, its slot, the secret.
#[derive(Debug, Clone, PartialEq)]
pub struct Bootstrap {
    pub endpoint: String,
    pub slot: u32,
    pub secret: Vec<u8>,
}

const BOOTSTRAP_TAG: &str = "luatorch-cluster/1";

impl Bootstrap {
    pub fn line(&self) -> String {
        format!(
            "{BOOTSTRAP_TAG} {} {} {}\n",
            self.endpoint,
            self.slot,
            hex(&self.secret)
        )
    }

    pub fn parse(line: &str) -> Option<Bootstrap> {
        let mut w = line.split_whitespace();
        if w.next()? != BOOTSTRAP_TAG {
            return None;
        }
        let endpoint = w.next()?.to_string();
        let slot = w.next()?.parse().ok()?;
        let secret = unhex(w.next()?)?;
        Some(Bootstrap { endpoint, slot, secret })
    }
}

/// This process's resident memory in KiB (0 where /proc does not say).
pub fn rss_kb(pid: u32) -> u64 {
    let path = if pid == 0 {
        "/proc/self/status".to_string()
    } else {
        format!("/proc/{pid}/status")
    };
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// This machine's name, for status lines.
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into our buffer.
    if unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } != 0 {
        return "localhost".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_with_their_bodies() {
        for m in [
            Msg::Hello {
                role: Role::Engine { slot: 3 },
                pid: 9,
                host: "h".into(),
            },
            Msg::Submit {
                first: 7,
                targets: Targets::Engines(vec![1, 2]),
                retries: 1,
                timeout_ms: 0,
            },
            Msg::Result {
                task: 7,
                engine: 2,
                outcome: Outcome::Lost("gone".into()),
                queued_us: 1,
                ran_us: 2,
            },
            Msg::Quit,
        ] {
            let frame = m.with_body(b"body");
            assert_eq!(Msg::split(&frame), Some((m, &b"body"[..])));
        }
        assert_eq!(Msg::split(&[250, 1]), None);
    }

    #[test]
    fn bootstrap_lines_parse() {
        let b = Bootstrap {
            endpoint: "tcp://127.0.0.1:5000".into(),
            slot: 4,
            secret: vec![1, 2, 255],
        };
        assert_eq!(Bootstrap::parse(&b.line()), Some(b));
        assert_eq!(Bootstrap::parse("luatorch-parallel/3 a 1 00"), None);
        assert_eq!(Bootstrap::parse("luatorch-cluster/1 a x 00"), None);
    }

    #[test]
    fn this_process_has_resident_memory() {
        assert!(rss_kb(0) > 0);
    }
}
