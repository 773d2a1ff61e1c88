//! Lua values between a cluster's client and its engines: the wire form of `src/wire` (a `.t7`
//! body with the large storages beside it), every storage beside the body travelling as raw
//! frames. A storage larger than the gate's frame limit goes in consecutive pieces, which the
//! receiver puts back together; one that came in one piece becomes a storage over the received
//! frame itself, with no copy.

use std::sync::Mutex;

use mlua::{Lua, Value};

use super::peer::{MAX_FRAME, zmq_err};
use crate::cuda;
use crate::error::{Error, Named, Result};
use crate::torch::base::storage::Storage;
use crate::torch::t7;
use crate::wire::travel::{self, Bytes, Policy};
use crate::wire::value::{self, BESIDE_MIN_BYTES, Beside};

/// A value ready to send: descriptors and body, and the host storages whose bytes follow.
pub struct Encoded {
    pub body: Vec<u8>,
    storages: Vec<Storage>,
}

/// `shm_run`: the cluster's run when the receiver can map segments on this machine (large host
/// storages then go into segments), else None.
pub fn encode(lua: &Lua, v: &Value, shm_run: Option<&str>) -> mlua::Result<Encoded> {
    let (t7, storages) = t7::serialize_beside(lua, v, BESIDE_MIN_BYTES)?;
    let (beside, placed) = travel::place(&storages, &mut ToPeer { shm_run });
    let mut host = Vec::with_capacity(placed.len());
    for b in placed {
        host.push(match b {
            Bytes::Host(s) => s.clone(),
            Bytes::Device(s) => cuda::memory::download(s).map_err(|e| mlua::Error::external(e.context("download")))?,
        });
    }
    let mut body = Vec::with_capacity(t7.len() + 8);
    value::encode_into(&mut body, &beside, &t7);
    Ok(Encoded { body, storages: host })
}

/// The cluster's policy (`wire::travel`): a peer that shares the controller's /dev/shm maps a
/// segment made once for the value (whoever ends its life removes it, see `shm.rs`); device
/// storages and everything for a peer elsewhere go as frames.
struct ToPeer<'a> {
    shm_run: Option<&'a str>,
}

impl Policy for ToPeer<'_> {
    fn segment(&mut self, s: &Storage) -> Option<String> {
        // SAFETY: a read-only view while it is copied into the segment.
        crate::process::segments::create_once(self.shm_run?, unsafe { s.bytes() }).ok()
    }
}

impl Encoded {
    /// Sends `head` (an encoded message) with this value as its body, then the storages' bytes.
    pub fn send(&self, socket: &zmq::Socket, head: &[u8]) -> Result<()> {
        let mut first = Vec::with_capacity(head.len() + self.body.len());
        first.extend_from_slice(head);
        first.extend_from_slice(&self.body);
        let pieces: Vec<&[u8]> = self
            .storages
            .iter()
            .flat_map(|s| {
                // SAFETY: read-only views while they are copied into ZeroMQ's messages.
                let bytes = unsafe { s.bytes() };
                if bytes.is_empty() {
                    vec![bytes]
                } else {
                    bytes.chunks(MAX_FRAME).collect()
                }
            })
            .collect();
        let flags = if pieces.is_empty() { 0 } else { zmq::SNDMORE };
        super::frames::send_first(socket, &first, flags).map_err(|e| zmq_err("cannot send", e))?;
        for (i, p) in pieces.iter().enumerate() {
            let flags = if i + 1 < pieces.len() { zmq::SNDMORE } else { 0 };
            socket.send(*p, flags).map_err(|e| zmq_err("cannot send", e))?;
        }
        Ok(())
    }
}

/// Keeps a received frame alive under the storage made over it.
struct Frame(#[allow(dead_code)] Mutex<zmq::Message>);

/// The host storage of `len` elements of `dtype` whose bytes are the next frames of `raw`.
fn take_storage(
    dtype: crate::torch::base::dtype::DType,
    len: u64,
    raw: &mut std::iter::Peekable<std::vec::IntoIter<zmq::Message>>,
) -> Result<Storage> {
    let wrong = || Error::corrupt("corrupt message: a storage has the wrong size");
    let len = usize::try_from(len).map_err(|_| wrong())?;
    let bytes = len.checked_mul(dtype.size_of()).ok_or_else(wrong)?;
    if bytes == 0 {
        raw.next().ok_or_else(wrong)?;
        return Storage::new(dtype, 0);
    }
    let first = raw.next().ok_or_else(wrong)?;
    if first.len() == bytes && (first.as_ptr() as usize).is_multiple_of(dtype.size_of()) {
        let ptr = first.as_ptr() as *mut u8;
        // SAFETY: the message holds exactly `bytes` bytes at `ptr`, suitably aligned, and lives
        // as long as the storage (its owner). Nobody else holds the message.
        return Ok(unsafe { Storage::from_external(dtype, ptr, len, Box::new(Frame(Mutex::new(first)))) });
    }
    let s = Storage::new(dtype, len)?;
    let mut at = 0;
    let mut piece = Some(first);
    while at < bytes {
        let p = piece.take().or_else(|| raw.next()).ok_or_else(wrong)?;
        if p.len() > bytes - at {
            return Err(wrong());
        }
        // SAFETY: copies into the fresh storage, within its `bytes` bytes.
        unsafe { std::ptr::copy_nonoverlapping(p.as_ptr(), s.data_ptr().add(at), p.len()) };
        at += p.len();
        if p.is_empty() {
            return Err(wrong());
        }
    }
    Ok(s)
}

/// The value whose wire form is `body`, its storages in the frames `raw` or in segments, whose
/// names are removed once mapped when `unlink` (the receiver is the last to see them).
pub fn decode(lua: &Lua, body: &[u8], raw: Vec<zmq::Message>, method: &str, unlink: bool) -> mlua::Result<Value> {
    let (beside, t7) = value::decode(body).named(method)?;
    let mut raw = raw.into_iter().peekable();
    let mut storages = Vec::with_capacity(beside.len());
    for b in beside {
        let s = match b {
            Beside::Frame { dtype, len } => take_storage(dtype, len, &mut raw).named(method)?,
            Beside::DeviceFrame { dtype, len } => {
                let host = take_storage(dtype, len, &mut raw).named(method)?;
                cuda::memory::upload(&host)
                    .map_err(|e| {
                        Error::device(format!("cannot put a received CUDA storage on the device: upload: {e}"))
                    })
                    .named(method)?
            }
            Beside::Shm { name, dtype, len } => {
                let mapped = crate::process::segments::map_whole(&name, dtype, len as usize)
                    .map_err(|e| Error::io(format!("cannot map shared memory segment {name}: {e}")));
                if unlink {
                    let _ = crate::process::sweep::unlink(&name);
                }
                mapped.named(method)?
            }
            Beside::Lent(_) => {
                return Err(Error::corrupt("corrupt message: unexpected storage descriptor").named(method));
            }
        };
        storages.push(s);
    }
    t7::deserialize_beside(lua, t7, storages, BESIDE_MIN_BYTES)
}
