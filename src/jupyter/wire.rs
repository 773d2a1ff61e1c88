//! Jupyter's wire format: a message is `[identities…, "<IDS|MSG>", signature, header,
//! parent_header, metadata, content, buffers…]`, the signature being the hex HMAC-SHA256 (keyed
//! by the connection file's key) of the four JSON frames as sent. Every message received is
//! checked against it; `decode` refuses one that does not match.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::wire::handshake::{hex, unhex};

const DELIMITER: &[u8] = b"<IDS|MSG>";
pub const PROTOCOL_VERSION: &str = "5.3";

/// Signs and checks messages with the connection file's key (an empty key: no signatures).
#[derive(Clone)]
pub struct Signer {
    key: Vec<u8>,
}

impl Signer {
    pub fn new(key: &str) -> Self {
        Signer {
            key: key.as_bytes().to_vec(),
        }
    }

    fn mac(&self, parts: &[&[u8]]) -> Hmac<Sha256> {
        // HMAC takes keys of any length.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.key).expect("HMAC takes any key length");
        for p in parts {
            mac.update(p);
        }
        mac
    }

    pub fn sign(&self, parts: &[&[u8]]) -> String {
        if self.key.is_empty() {
            return String::new();
        }
        hex(&self.mac(parts).finalize().into_bytes())
    }

    /// Whether `signature` (hex) is the one of `parts`, compared in constant time.
    pub fn verify(&self, signature: &[u8], parts: &[&[u8]]) -> bool {
        if self.key.is_empty() {
            return true;
        }
        match std::str::from_utf8(signature).ok().and_then(unhex) {
            Some(bytes) => self.mac(parts).verify_slice(&bytes).is_ok(),
            None => false,
        }
    }
}

/// One message, its JSON parts parsed.
#[derive(Clone, Debug)]
pub struct Message {
    pub identities: Vec<Vec<u8>>,
    pub header: Value,
    pub parent: Value,
    pub metadata: Value,
    pub content: Value,
}

impl Message {
    pub fn msg_type(&self) -> &str {
        self.header["msg_type"].as_str().unwrap_or("")
    }
}

/// Why a received message was dropped.
#[derive(Debug, PartialEq)]
pub enum WireError {
    NoDelimiter,
    TooShort,
    BadSignature,
    BadJson(&'static str),
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::NoDelimiter => write!(f, "no <IDS|MSG> delimiter"),
            WireError::TooShort => write!(f, "fewer than the five frames after the delimiter"),
            WireError::BadSignature => write!(f, "wrong signature"),
            WireError::BadJson(part) => write!(f, "its {part} is not a JSON object"),
        }
    }
}

/// Checks the signature and parses a message's frames.
pub fn decode(frames: Vec<Vec<u8>>, signer: &Signer) -> Result<Message, WireError> {
    let at = frames
        .iter()
        .position(|f| f.as_slice() == DELIMITER)
        .ok_or(WireError::NoDelimiter)?;
    if frames.len() < at + 6 {
        return Err(WireError::TooShort);
    }
    let parts: Vec<&[u8]> = frames[at + 2..at + 6].iter().map(Vec::as_slice).collect();
    if !signer.verify(&frames[at + 1], &parts) {
        return Err(WireError::BadSignature);
    }
    let object = |bytes: &[u8], name: &'static str| -> Result<Value, WireError> {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(v @ Value::Object(_)) => Ok(v),
            _ => Err(WireError::BadJson(name)),
        }
    };
    Ok(Message {
        identities: frames[..at].to_vec(),
        header: object(parts[0], "header")?,
        parent: object(parts[1], "parent header")?,
        metadata: object(parts[2], "metadata")?,
        content: object(parts[3], "content")?,
    })
}

/// The frames of a message: identities, delimiter, signature and the four JSON parts.
pub fn encode(msg: &Message, signer: &Signer) -> Vec<Vec<u8>> {
    let parts: Vec<Vec<u8>> = [&msg.header, &msg.parent, &msg.metadata, &msg.content]
        .iter()
        .map(|v| serde_json::to_vec(v).unwrap_or_else(|_| b"{}".to_vec()))
        .collect();
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    let signature = signer.sign(&refs);
    let mut frames = msg.identities.clone();
    frames.push(DELIMITER.to_vec());
    frames.push(signature.into_bytes());
    frames.extend(parts);
    frames
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A header for a new message of this kernel's `session`: a fresh msg_id each time (clients
/// refuse a repeated signature, so no two messages may be alike).
pub fn header(msg_type: &str, session: &str) -> Value {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    json!({
        "msg_id": format!("{session}_{}_{n}", std::process::id()),
        "session": session,
        "username": "kernel",
        "date": now_iso8601(),
        "msg_type": msg_type,
        "version": PROTOCOL_VERSION,
    })
}

/// A reply or side effect of `parent`, with its identities (for a ROUTER) or none (for iopub).
pub fn child(parent: Option<&Message>, msg_type: &str, session: &str, content: Value) -> Message {
    Message {
        identities: parent.map(|p| p.identities.clone()).unwrap_or_default(),
        header: header(msg_type, session),
        parent: parent.map_or_else(|| json!({}), |p| p.header.clone()),
        metadata: json!({}),
        content,
    }
}

/// The time now as ISO 8601 in UTC with microseconds, as Jupyter's headers carry it.
pub fn now_iso8601() -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = now.as_secs();
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:06}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60,
        now.subsec_micros()
    )
}

/// Standard base64 with padding (for image/png in display_data).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_signature() {
        let signer = Signer::new("secret");
        let msg = child(None, "status", "s", json!({"execution_state": "idle"}));
        let mut frames = encode(&msg, &signer);
        frames.insert(0, b"client".to_vec());
        let back = decode(frames.clone(), &signer).unwrap();
        assert_eq!(back.identities, vec![b"client".to_vec()]);
        assert_eq!(back.msg_type(), "status");
        let mut bad = frames.clone();
        bad[2] = b"00".repeat(32);
        assert_eq!(decode(bad, &signer).unwrap_err(), WireError::BadSignature);
        assert_eq!(
            decode(frames, &Signer::new("other")).unwrap_err(),
            WireError::BadSignature
        );
        assert_eq!(
            decode(vec![b"x".to_vec()], &signer).unwrap_err(),
            WireError::NoDelimiter
        );
    }

    #[test]
    fn known_values() {
        // RFC 4231 test case 2.
        let s = Signer::new("Jefe").sign(&[b"what do ya want ", b"for nothing?"]);
        assert_eq!(s, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(now_iso8601().len(), 27);
    }
}
