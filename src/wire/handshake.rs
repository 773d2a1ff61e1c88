//! Two peers prove to each other that they know the same secret before anything else passes
//! between them: a `.t7` value may hold function bytecode, which LuaJIT does not verify, so
//! nothing reachable from the network may run or read more than a handshake from a peer that has
//! not proved itself. The proof is a challenge and response, HMAC-SHA256 over fresh nonces from
//! both sides, so the secret itself never crosses the wire and a recorded handshake cannot be
//! replayed.
//!
//! The side that is reached (ipc's server, parallel's parent) challenges; the side that reaches
//! it (a client, a child) answers; the challenger checks the answer and confirms with its own
//! proof, which the other checks before it trusts anything the challenger sends. The three
//! messages are plain bytes, carried however the transport carries bytes (ipc writes them on its
//! TCP stream, parallel puts them in envelopes):
//!
//! | message | bytes |
//! |---|---|
//! | challenge | `LTA1`, nonce S (32) |
//! | answer | `LTA1`, nonce C (32), HMAC(secret, "client" S C) (32) |
//! | confirmation | HMAC(secret, "server" S C) (32) |
//!
//! Whose secret it is belongs to the caller: the user's for ipc (`ipc::net::auth`), one made per
//! run for parallel (handed to each child on its stdin).

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::error::{Error, Result};

const MAGIC: &[u8; 4] = b"LTA1";
const NONCE: usize = 32;
const MAC: usize = 32;

pub const CHALLENGE_LEN: usize = 4 + NONCE;
pub const ANSWER_LEN: usize = 4 + NONCE + MAC;
pub const CONFIRMATION_LEN: usize = MAC;

fn proof(secret: &[u8], who: &[u8], server_nonce: &[u8], client_nonce: &[u8]) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC accepts any key length");
    mac.update(who);
    mac.update(server_nonce);
    mac.update(client_nonce);
    mac
}

fn nonce() -> Result<Vec<u8>> {
    random_bytes(NONCE).map_err(|e| Error::io(format!("no random bytes: {e}")))
}

/// The challenger's side: the challenge it sent, to check the answer against.
pub struct Challenge {
    nonce: Vec<u8>,
}

impl Challenge {
    pub fn new() -> Result<Challenge> {
        Ok(Challenge { nonce: nonce()? })
    }

    /// The challenge message.
    pub fn bytes(&self) -> Vec<u8> {
        [&MAGIC[..], &self.nonce].concat()
    }

    /// Checks the peer's answer; the confirmation to send back when it holds. The errors say
    /// what the peer got wrong, for the challenger's own logs (the peer is told nothing).
    pub fn check(&self, secret: &[u8], answer: &[u8]) -> Result<Vec<u8>> {
        if answer.len() != ANSWER_LEN || &answer[..4] != MAGIC {
            return Err(Error::peer("the peer does not speak this protocol"));
        }
        let c_nonce = &answer[4..4 + NONCE];
        proof(secret, b"client", &self.nonce, c_nonce)
            .verify_slice(&answer[4 + NONCE..])
            .map_err(|_| Error::peer("the peer does not know the secret"))?;
        Ok(proof(secret, b"server", &self.nonce, c_nonce)
            .finalize()
            .into_bytes()
            .to_vec())
    }
}

/// The answering side, once it answered: what the challenger's confirmation must be.
pub struct Answered {
    expected: Hmac<Sha256>,
}

/// Answers `challenge` with `secret`: the answer message, and what to check the confirmation
/// against.
pub fn answer(secret: &[u8], challenge: &[u8]) -> Result<(Vec<u8>, Answered)> {
    if challenge.len() != CHALLENGE_LEN || &challenge[..4] != MAGIC {
        return Err(Error::peer("the peer does not speak this protocol"));
    }
    let s_nonce = &challenge[4..];
    let c_nonce = nonce()?;
    let answer = [
        &MAGIC[..],
        &c_nonce,
        &proof(secret, b"client", s_nonce, &c_nonce).finalize().into_bytes(),
    ]
    .concat();
    let expected = proof(secret, b"server", s_nonce, &c_nonce);
    Ok((answer, Answered { expected }))
}

impl Answered {
    /// Whether the challenger proved that it knows the secret too.
    pub fn check(self, confirmation: &[u8]) -> Result<()> {
        self.expected
            .verify_slice(confirmation)
            .map_err(|_| Error::peer("the peer does not know the secret"))
    }
}

/// `n` bytes from the kernel's random source (nonces, secrets, names nobody can guess).
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

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peers_with_the_secret_agree() {
        let c = Challenge::new().unwrap();
        let (answer, answered) = super::answer(b"s3cret", &c.bytes()).unwrap();
        let confirmation = c.check(b"s3cret", &answer).unwrap();
        assert_eq!(confirmation.len(), CONFIRMATION_LEN);
        answered.check(&confirmation).unwrap();
    }

    #[test]
    fn strangers_and_impostors_are_refused() {
        let c = Challenge::new().unwrap();
        // An answer made with another secret.
        let (answer, _) = super::answer(b"other", &c.bytes()).unwrap();
        assert!(
            c.check(b"s3cret", &answer)
                .unwrap_err()
                .message()
                .contains("does not know")
        );
        // An answer to another challenge (a replay).
        let old = Challenge::new().unwrap();
        let (replayed, _) = super::answer(b"s3cret", &old.bytes()).unwrap();
        assert!(c.check(b"s3cret", &replayed).is_err());
        // Garbage, and a challenger that does not know the secret.
        assert!(c.check(b"s3cret", b"GET / HTTP/1.1").is_err());
        let (answer, answered) = super::answer(b"s3cret", &c.bytes()).unwrap();
        let wrong = c.check(b"s3cret", &answer).map(|mut m| {
            m[0] ^= 1;
            m
        });
        assert!(answered.check(&wrong.unwrap()).is_err());
        assert!(super::answer(b"s3cret", b"LTA1").is_err());
    }

    #[test]
    fn hex_round_trips() {
        let b = random_bytes(32).unwrap();
        assert_eq!(unhex(&hex(&b)).unwrap(), b);
        assert_eq!(unhex("0g"), None);
        assert_eq!(unhex("abc"), None);
    }
}
