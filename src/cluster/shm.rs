//! Large storages between peers on the controller's machine go through shared memory: the
//! sender copies each into a fresh segment named after the cluster's run (`process::segments`'
//! naming, so `process::sweep` finds what a killed run left), and receivers map it. Whoever
//! ends a value's life removes its segments' names (mappings live on until their storages go):
//! - a task's, the controller, once every engine it went to has finished with it;
//! - a result's, the client, once it has mapped them (or dropped the result); the controller
//!   for results nobody will take;
//! - everything left, the controller when the cluster stops.
//!
//! A peer that cannot open the controller's probe segment (another machine, another /dev/shm)
//! gets frames instead: the controller turns segments into frames for it.

use crate::process::sweep;
use crate::wire::value::{self, Beside};

use crate::process::gate::MAX_FRAME;

/// The segments a value's body names.
pub fn segment_names(body: &[u8]) -> Vec<String> {
    match value::decode(body) {
        Ok((beside, _)) => beside
            .into_iter()
            .filter_map(|b| match b {
                Beside::Shm { name, .. } => Some(name),
                _ => None,
            })
            .collect(),
        Err(_) => Vec::new(),
    }
}

pub fn unlink_all(names: &[String]) {
    for n in names {
        let _ = sweep::unlink(n);
    }
}

/// Whether this process can open the controller's probe segment.
pub fn can_map(probe: &str) -> bool {
    !probe.is_empty() && crate::process::segments::map_whole(probe, crate::torch::base::dtype::DType::Byte, 8).is_ok()
}

/// The value `body` (+ `raw` frames) with every segment's bytes as frames instead, for a peer
/// that cannot map them. None when a segment cannot be read.
pub fn to_frames(body: &[u8], raw: Vec<zmq::Message>) -> Option<(Vec<u8>, Vec<zmq::Message>)> {
    let (beside, t7) = value::decode(body).ok()?;
    if !beside.iter().any(|b| matches!(b, Beside::Shm { .. })) {
        return Some((body.to_vec(), raw));
    }
    let mut raw = raw.into_iter();
    let mut out_raw = Vec::new();
    let mut out = Vec::with_capacity(beside.len());
    for b in beside {
        match b {
            Beside::Shm { name, dtype, len } => {
                let s = crate::process::segments::map_whole(&name, dtype, len as usize).ok()?;
                // SAFETY: a read-only view while it is copied into messages.
                let bytes = unsafe { s.bytes() };
                for piece in bytes.chunks(MAX_FRAME) {
                    out_raw.push(zmq::Message::from(piece));
                }
                out.push(Beside::Frame { dtype, len });
            }
            Beside::Frame { dtype, len } | Beside::DeviceFrame { dtype, len } => {
                let mut bytes = (len as usize).checked_mul(dtype.size_of())?;
                if bytes == 0 {
                    out_raw.push(raw.next()?);
                }
                while bytes > 0 {
                    let m = raw.next()?;
                    bytes = bytes.checked_sub(m.len())?;
                    out_raw.push(m);
                }
                out.push(b);
            }
            Beside::Lent(_) => return None,
        }
    }
    let mut new_body = Vec::with_capacity(t7.len() + 16);
    value::encode_into(&mut new_body, &out, t7);
    Some((new_body, out_raw))
}
