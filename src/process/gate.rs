//! What a peer that does not know the run's secret can make a parent (or a cluster's controller)
//! hold: one handshake of at most `MAX_FRAME` bytes for at most `HANDSHAKE_MS`, and at most
//! `handshakes::MAX_HANDSHAKES` such handshakes at once.
//!
//! The parent's socket is reachable by anyone on the machine (an abstract unix socket has no
//! permissions) and, for remote children, on the network. ZeroMQ reads and queues whatever a
//! connected peer sends before our code sees a byte, so the in-band handshake (`envelope.rs`)
//! alone let a stranger make the parent buffer without limit. Here ZeroMQ itself gates the
//! connection: the parent's socket is a PLAIN server whose ZAP handler (a thread answering on
//! `inproc://zeromq.zap.01`) admits only a peer presenting the run's token, derived from the
//! secret, so a stranger is dropped after its first command; and every frame is bounded by
//! `ZMQ_MAXMSGSIZE`, which ZeroMQ checks against the frame's announced size before it allocates
//! anything, and which also bounds that first command. A peer cuts larger frames into pieces
//! (`parallel::pieces`, `cluster::frames`), which the receiver puts back together. The same thread that answers ZAP
//! reads the socket's connection events and ends the oldest handshake past the bound.
//!
//! The token travels in the clear inside PLAIN's handshake; it is not the secret (an HMAC of
//! it), so a peer that reads it off the network passes this gate but not the in-band handshake,
//! which proves the secret itself without sending it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::handshakes::Handshakes;
use crate::error::{Error, Result};
use crate::wire::handshake::hex;

/// The largest frame a parent takes (a child sends larger ones in pieces). ZeroMQ holds a
/// connection to one limit from its first byte, so this is also all a stranger's first command
/// may make us hold: small. A PLAIN hello is under 100 bytes; the pieces of a large message cost
/// no throughput at this size (2.4 GB/s child to parent at 16 MiB, 2.5 at 8 KiB).
pub const MAX_FRAME: usize = 8 << 10;
/// How long a connection may take to finish ZeroMQ's handshake.
const HANDSHAKE_MS: i32 = 10_000;
const ZAP_ENDPOINT: &str = "inproc://zeromq.zap.01";
const ZAP_DOMAIN: &str = "luatorch-parallel";
const USERNAME: &str = "luatorch";

/// The password of the run with `secret`.
fn token(secret: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC accepts any key length");
    mac.update(b"luatorch-parallel ZAP token");
    hex(&mac.finalize().into_bytes())
}

fn zmq_err(what: &str, e: zmq::Error) -> Error {
    Error::io(format!("{what}: {e}"))
}

/// The ZAP handler of one context; it ends when dropped (or when the context ends).
pub struct Gate {
    stop: Arc<AtomicBool>,
}

impl Drop for Gate {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
    }
}

/// Makes `router` (not yet bound) admit only peers of the run with `secret`. Its context must
/// have no other ZAP handler.
pub fn guard(ctx: &zmq::Context, router: &zmq::Socket, secret: &[u8]) -> Result<Gate> {
    let zap = ctx
        .socket(zmq::REP)
        .map_err(|e| zmq_err("cannot make the authentication socket", e))?;
    let setup = || -> zmq::Result<()> {
        zap.set_linger(0)?;
        zap.bind(ZAP_ENDPOINT)?;
        router.set_plain_server(true)?;
        router.set_zap_domain(ZAP_DOMAIN)?;
        router.set_maxmsgsize(MAX_FRAME as i64)?;
        router.set_handshake_ivl(HANDSHAKE_MS)
    };
    setup().map_err(|e| zmq_err("cannot set up authentication", e))?;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let monitor = format!("inproc://luatorch-gate-{}", NEXT.fetch_add(1, Ordering::Relaxed));
    let events = ctx
        .socket(zmq::PAIR)
        .map_err(|e| zmq_err("cannot make the connection monitor", e))?;
    let watch = || -> zmq::Result<()> {
        router.monitor(
            &monitor,
            zmq::SocketEvent::ACCEPTED as i32 | zmq::SocketEvent::DISCONNECTED as i32,
        )?;
        events.set_linger(0)?;
        events.connect(&monitor)
    };
    watch().map_err(|e| zmq_err("cannot watch the connections", e))?;
    let expected = token(secret).into_bytes();
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::Builder::new()
        .name("parallel-zap".into())
        .spawn(move || serve(zap, events, &expected, &stopped))
        .map_err(|e| Error::io(format!("cannot start the authentication thread: {e}")))?;
    Ok(Gate { stop })
}

/// Answers ZAP requests (RFC 27) and bounds the connections in their handshake
/// (`handshakes.rs`), until stopped or the context ends.
fn serve(zap: zmq::Socket, events: zmq::Socket, expected: &[u8], stop: &AtomicBool) {
    let mut handshakes = Handshakes::default();
    while !stop.load(Ordering::Acquire) {
        let mut items = [zap.as_poll_item(zmq::POLLIN), events.as_poll_item(zmq::POLLIN)];
        // Short, so that the thread notices `stop` soon after the hub goes.
        match zmq::poll(&mut items, 200) {
            Ok(_) | Err(zmq::Error::EINTR) => {}
            Err(_) => return,
        }
        // Connections first: an accepted one is counted before its hello can be judged.
        while let Ok(frames) = events.recv_multipart(zmq::DONTWAIT) {
            let Some((id, fd)) = monitor_event(&frames) else {
                continue;
            };
            if id == zmq::SocketEvent::ACCEPTED as u16 {
                handshakes.accepted(fd);
            } else if id == zmq::SocketEvent::DISCONNECTED as u16 {
                handshakes.closed(fd);
            }
        }
        let request = match zap.recv_multipart(zmq::DONTWAIT) {
            Ok(r) => r,
            Err(zmq::Error::EAGAIN) | Err(zmq::Error::EINTR) => continue,
            Err(_) => return,
        };
        if !answer(&zap, &request, expected) {
            return;
        }
    }
}

/// A ZeroMQ monitor message (version 1): its event and its value (a descriptor for ACCEPTED and
/// DISCONNECTED, an error number for a failed handshake).
pub fn monitor_event(frames: &[Vec<u8>]) -> Option<(u16, i32)> {
    let e = frames.first().filter(|f| f.len() >= 6)?;
    Some((
        u16::from_ne_bytes([e[0], e[1]]),
        i32::from_ne_bytes([e[2], e[3], e[4], e[5]]),
    ))
}

/// Answers one ZAP request; false when the socket is gone.
fn answer(zap: &zmq::Socket, request: &[Vec<u8>], expected: &[u8]) -> bool {
    let admitted = admits(request, expected);
    let (code, text): (&[u8], &[u8]) = if admitted {
        (b"200", b"OK")
    } else {
        (b"400", b"not a peer of this run")
    };
    let id = request.get(1).cloned().unwrap_or_default();
    let reply = vec![
        b"1.0".to_vec(),
        id,
        code.to_vec(),
        text.to_vec(),
        Vec::new(),
        Vec::new(),
    ];
    zap.send_multipart(reply, 0).is_ok()
}

/// Whether a ZAP request is a PLAIN hello with this run's token.
fn admits(request: &[Vec<u8>], expected: &[u8]) -> bool {
    request.len() >= 8
        && request[0] == b"1.0"
        && request[2] == ZAP_DOMAIN.as_bytes()
        && request[5] == b"PLAIN"
        && request[6] == USERNAME.as_bytes()
        && constant_time_eq(&request[7], expected)
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Makes `dealer` (not yet connected) present the run's token.
pub fn present(dealer: &zmq::Socket, secret: &[u8]) -> zmq::Result<()> {
    dealer.set_plain_username(Some(USERNAME))?;
    dealer.set_plain_password(Some(&token(secret)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_this_runs_token_is_admitted() {
        let t = token(b"secret").into_bytes();
        let request = |mech: &[u8], user: &[u8], pass: &[u8]| -> Vec<Vec<u8>> {
            vec![
                b"1.0".to_vec(),
                b"1".to_vec(),
                ZAP_DOMAIN.as_bytes().to_vec(),
                b"127.0.0.1".to_vec(),
                Vec::new(),
                mech.to_vec(),
                user.to_vec(),
                pass.to_vec(),
            ]
        };
        assert!(admits(&request(b"PLAIN", USERNAME.as_bytes(), &t), &t));
        assert!(!admits(&request(b"PLAIN", USERNAME.as_bytes(), b"guess"), &t));
        assert!(!admits(&request(b"NULL", b"", b""), &t));
        assert_ne!(token(b"secret"), token(b"other"));
    }
}
