//! The messages between a parent and its children: a postcard-encoded [`Envelope`] as the first
//! ZeroMQ frame, then the frames it announces (a `.t7` body, raw storage bytes).

use serde::{Deserialize, Serialize};

/// Large storages (at least this many bytes) leave the `.t7` body: to a local peer through a
/// shared-memory segment, to a remote one as a frame of their own.
pub const BESIDE_MIN_BYTES: usize = 1 << 20;

/// Where one storage left out of a `.t7` body is found.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Beside {
    /// A file in /dev/shm that the receiver maps and unlinks.
    Shm { name: String, dtype: u8, len: u64 },
    /// The next raw frame of the message.
    Frame { dtype: u8, len: u64 },
    /// A device storage staged by the sender for this machine's receiver (see `cuda::share`):
    /// the receiver opens the CUDA IPC handle and releases `name` when done.
    CudaIpc {
        name: String,
        handle: Vec<u8>,
        /// Where the storage starts in the allocation, in bytes.
        offset: u64,
        /// The sender's 0-based ordinal and the GPU's UUID.
        device: u32,
        uuid: Vec<u8>,
        dtype: u8,
        len: u64,
    },
    /// A device storage's bytes as the next raw frame (between machines): the receiver puts them
    /// on its current device.
    DeviceFrame { dtype: u8, len: u64 },
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Envelope {
    /// Child to parent, first message on a connection: who it is, and the run's secret.
    Hello { id: u32, secret: Vec<u8>, pid: u32 },
    /// Parent to child, the answer to `Hello`, followed by a `.t7` frame: the child's identity,
    /// fork's arguments and the parent's package paths.
    Welcome,
    /// Parent to child: run code (followed by one frame: bytecode or source).
    Exec { bytecode: bool },
    /// Parent to child: the rendezvous `join(msg)` (followed by one frame: msg).
    Join,
    /// Child to parent: `yield` answered a join.
    YieldAck,
    /// Either way: a Lua value (followed by its `.t7` frame, then one frame per `Frame` entry).
    Data { beside: Vec<Beside> },
    /// Child to parent: the exec'd code returned.
    Done,
    /// Child to parent: the exec'd code raised (followed by one frame: message and traceback).
    Failed,
    /// Parent to child: end the process.
    Quit,
    /// Either way: the receiver is done with these shared-memory segments (see `shm`).
    Release { names: Vec<String> },
    /// Parent to child: the failure report arrived (the child may exit now).
    FailureSeen,
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

/// The line a parent writes to a child's stdin: how to reach the parent and prove it.
#[derive(Debug, Clone, PartialEq)]
pub struct Bootstrap {
    pub endpoint: String,
    pub id: u32,
    pub secret: Vec<u8>,
    /// Names the whole tree of processes (shared-memory segments carry it).
    pub run: String,
}

const BOOTSTRAP_TAG: &str = "luatorch-parallel/1";

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

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// `n` bytes from the kernel's random source.
pub fn random_bytes(n: usize) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0u8; n];
    let mut filled = 0;
    while filled < n {
        // SAFETY: writes at most n - filled bytes into our buffer.
        let r = unsafe { libc::getrandom(buf[filled..].as_mut_ptr().cast(), n - filled, 0) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        filled += r as usize;
    }
    Ok(buf)
}

/// Compares secrets in time independent of where they differ.
pub fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_round_trip() {
        for e in [
            Envelope::Hello {
                id: 3,
                secret: vec![1, 2, 3],
                pid: 77,
            },
            Envelope::Data {
                beside: vec![
                    Beside::Shm {
                        name: "luatorch-x".into(),
                        dtype: 5,
                        len: 9,
                    },
                    Beside::Frame { dtype: 1, len: 2 },
                ],
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
        assert_eq!(Bootstrap::parse("luatorch-parallel/1 e 1 0g r"), None);
    }

    #[test]
    fn secrets_compare() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"ab"));
    }
}
