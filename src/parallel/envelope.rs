//! The messages between a parent and its children: a postcard-encoded [`Envelope`] at the start of
//! the first ZeroMQ frame, the body it announces after it in the same frame (a wire value, code, a
//! join's message), then the raw frames the value's descriptors announce. And the line a parent
//! writes to a child's stdin.
//!
//! A child proves the run's secret before the parent takes anything else from it, and the parent
//! proves it before the child runs anything (the wire's handshake, `wire::handshake`): the child
//! says hello, the parent challenges, the child answers, the parent welcomes it with its own proof.

use serde::{Deserialize, Serialize};

use super::owed::Owed;
use crate::wire::handshake::{hex, unhex};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Envelope {
    /// Child to parent, first message on a connection: who it is.
    Hello { id: u32, pid: u32 },
    /// Parent to child: the handshake's challenge.
    Challenge { challenge: Vec<u8> },
    /// Child to parent: the handshake's answer.
    Answer { answer: Vec<u8> },
    /// Parent to child, once the answer holds: the handshake's confirmation, followed by a `.t7`
    /// body: the child's identity, fork's arguments and the parent's package paths.
    Welcome { confirmation: Vec<u8> },
    /// Parent to child: run code (followed by its bytecode or source).
    Exec { bytecode: bool },
    /// Parent to child: the rendezvous `join(msg)` (followed by msg).
    Join,
    /// Child to parent: `yield` answered a join.
    YieldAck,
    /// Either way: a Lua value (followed by the value in wire form, then one frame per storage
    /// its descriptors say comes as a frame).
    Data,
    /// Child to parent: the exec'd code returned.
    Done,
    /// Child to parent: the exec'd code raised (followed by message and traceback).
    Failed,
    /// Parent to child: end the process.
    Quit,
    /// Either way: the receiver no longer reads these (see `owed`).
    Release { owed: Vec<Owed> },
    /// Parent to child: the failure report arrived (the child may exit now).
    FailureSeen,
    /// Child to parent, first frame of a message whose frames were cut to `process::gate::MAX_FRAME`:
    /// how many pieces each frame became (see `pieces.rs`).
    Pieces { counts: Vec<u32> },
}

impl Envelope {
    pub fn encode(&self) -> Vec<u8> {
        postcard::to_allocvec(self).expect("envelopes always encode")
    }

    /// The envelope at the start of a frame (whatever body follows it).
    pub fn decode(bytes: &[u8]) -> Option<Envelope> {
        Envelope::split(bytes).map(|(e, _)| e)
    }

    /// One frame: the envelope, then `body` (a message in one frame costs less than in two).
    pub fn with_body(&self, body: &[u8]) -> Vec<u8> {
        let mut frame = self.encode();
        frame.extend_from_slice(body);
        frame
    }

    /// The envelope at the start of a frame, and the body after it.
    pub fn split(frame: &[u8]) -> Option<(Envelope, &[u8])> {
        postcard::take_from_bytes(frame).ok()
    }
}

/// The line a parent writes to a child's stdin: how to reach the parent (a ZeroMQ endpoint, or its
/// inherited pipe) and prove it.
#[derive(Debug, Clone, PartialEq)]
pub struct Bootstrap {
    pub endpoint: String,
    pub id: u32,
    pub secret: Vec<u8>,
    /// Names the whole tree of processes (shared-memory segments carry it).
    pub run: String,
}

/// The endpoint of a local child on the fast path: the descriptor number of its end of the pipe
/// (`pipe.rs`), which it inherited, after this prefix.
pub const FD_SCHEME: &str = "fd:";

/// The protocol's version is in the tag: a child of another version refuses the line.
const BOOTSTRAP_TAG: &str = "luatorch-parallel/3";

impl Bootstrap {
    pub fn line(&self) -> String {
        format!(
            "{BOOTSTRAP_TAG} {} {} {} {}\n",
            self.endpoint,
            self.id,
            hex(&self.secret),
            self.run
        )
    }

    pub fn parse(line: &str) -> Option<Bootstrap> {
        let mut w = line.split_whitespace();
        if w.next()? != BOOTSTRAP_TAG {
            return None;
        }
        let endpoint = w.next()?.to_string();
        let id = w.next()?.parse().ok()?;
        let secret = unhex(w.next()?)?;
        let run = w.next()?.to_string();
        Some(Bootstrap {
            endpoint,
            id,
            secret,
            run,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::handshake::random_bytes;

    #[test]
    fn envelopes_round_trip() {
        for e in [
            Envelope::Hello { id: 3, pid: 77 },
            Envelope::Answer { answer: vec![1, 2, 3] },
            Envelope::Data,
            Envelope::Release {
                owed: vec![Owed::Segment("luatorch-x".into()), Owed::Loan(5)],
            },
            Envelope::Quit,
        ] {
            assert_eq!(Envelope::decode(&e.encode()), Some(e));
        }
        assert_eq!(Envelope::decode(&[200, 1, 2]), None);
        let frame = Envelope::Join.with_body(b"msg");
        assert_eq!(Envelope::split(&frame), Some((Envelope::Join, &b"msg"[..])));
    }

    #[test]
    fn bootstrap_lines_parse() {
        let b = Bootstrap {
            endpoint: "ipc://@luatorch-1-ab".into(),
            id: 12,
            secret: random_bytes(32).unwrap(),
            run: "r1".into(),
        };
        assert_eq!(Bootstrap::parse(&b.line()), Some(b));
        assert_eq!(Bootstrap::parse("other 1 2 3 4"), None);
        assert_eq!(Bootstrap::parse("luatorch-parallel/3 e 1 0g r"), None);
    }
}
