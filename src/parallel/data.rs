//! parallel's Data messages: a Lua value as a wire value (src/wire) and the frames after it, for
//! one peer, and back. Large storages go beside the `.t7` body: to a peer on this machine through
//! a shared-memory segment each, to a remote one as a frame of their own; device storages too: to
//! a peer on this machine lent by CUDA IPC handle, to a remote one as a frame of their bytes.

use mlua::{Lua, Value};

use super::envelope::Envelope;
use super::owed::{self, Owed, Peer};
use super::shm;
use crate::cuda::{self, share};
use crate::error::{Error, Named, Result};
use crate::torch::base::storage::Storage;
use crate::torch::t7;
use crate::wire::cuda::Lent;
use crate::wire::travel::{self, Bytes, Policy};
use crate::wire::value::{self, BESIDE_MIN_BYTES, Beside};

/// How a peer is reached: shared memory works only on this machine.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Reach {
    Local,
    Remote,
}

/// A value serialized once, to be framed for any number of peers.
pub struct Serialized {
    pub t7: Vec<u8>,
    pub storages: Vec<Storage>,
}

pub fn serialize(lua: &Lua, value: &Value) -> mlua::Result<Serialized> {
    let (t7, storages) = t7::serialize_beside(lua, value, BESIDE_MIN_BYTES)?;
    Ok(Serialized { t7, storages })
}

impl Serialized {
    /// The frames of a `Data` message for one peer: envelope and wire value, then raw storage
    /// frames. A local peer's storages go through the sender's segment pool for that peer.
    pub fn frames(&self, reach: Reach, pool: &mut shm::Pool) -> Result<Vec<Vec<u8>>> {
        let (beside, placed) = travel::place(&self.storages, &mut ToPeer { reach, pool });
        let mut first = Envelope::Data.encode();
        value::encode_into(&mut first, &beside, &self.t7);
        let mut frames = Vec::with_capacity(1 + placed.len());
        frames.push(first);
        for b in placed {
            frames.push(match b {
                // SAFETY: read-only view while it is copied into the frame.
                Bytes::Host(s) => unsafe { s.bytes() }.to_vec(),
                Bytes::Device(s) => {
                    let host = cuda::memory::download(s).map_err(|e| e.context("download"))?;
                    // SAFETY: a fresh host copy, read while it is copied into the frame.
                    unsafe { host.bytes() }.to_vec()
                }
            });
        }
        Ok(frames)
    }
}

/// parallel's policy for one peer (`wire::travel`): a peer on this machine maps segments from the
/// sender's pool for it and opens device storages lent by CUDA IPC (unless
/// `LUATORCH_CUDA_IPC=0`); one far away gets frames.
struct ToPeer<'a> {
    reach: Reach,
    pool: &'a mut shm::Pool,
}

impl Policy for ToPeer<'_> {
    fn lend(&mut self, s: &Storage) -> Option<Lent> {
        // Staging can fail (out of device memory, say): the frame still works.
        match self.reach {
            Reach::Local if !share::disabled() => self.pool.device.stage(s).ok(),
            _ => None,
        }
    }

    fn segment(&mut self, s: &Storage) -> Option<String> {
        match self.reach {
            Reach::Local => self.pool.export(s).ok(),
            Reach::Remote => None,
        }
    }
}

/// The storages a value's descriptors name: mapped, lent or read from the raw frames `raw`.
fn storages(beside: &[Beside], raw: &[Vec<u8>], from: Peer) -> Result<Vec<Storage>> {
    let mut raw = raw.iter();
    let mut storages = Vec::with_capacity(beside.len());
    for b in beside {
        let s = match b {
            Beside::Shm { name, dtype, len } => shm::import(name, *dtype, *len as usize, from)
                .map_err(|e| Error::io(format!("cannot map shared memory segment {name}: {e}")))?,
            Beside::Frame { dtype, len } => {
                value::storage_from_frame(*dtype, *len, raw.next()).map_err(|e| e.context("corrupt message"))?
            }
            Beside::DeviceFrame { dtype, len } => {
                let host =
                    value::storage_from_frame(*dtype, *len, raw.next()).map_err(|e| e.context("corrupt message"))?;
                cuda::memory::upload(&host).map_err(|e| {
                    Error::device(format!("cannot put a received CUDA storage on the device: upload: {e}"))
                })?
            }
            Beside::Lent(lent) => {
                let loan = lent.loan;
                let released = Box::new(move || owed::queue_release(from, Owed::Loan(loan)));
                share::open(lent, released).map_err(|e| {
                    // The sender may have its memory back: nothing here will use it.
                    owed::queue_release(from, Owed::Loan(loan));
                    e.context("cannot open a CUDA storage sent by CUDA IPC")
                })?
            }
        };
        storages.push(s);
    }
    Ok(storages)
}

/// The value of a received `Data` message (its frames, envelope first), for Lua function
/// `method`. The first frame's `.t7` body is read where it lies.
pub fn deserialize(lua: &Lua, mut frames: Vec<Vec<u8>>, from: Peer, method: &str) -> mlua::Result<Value> {
    let corrupt = || Error::corrupt("corrupt message").named(method);
    let body = match frames.first().and_then(|f| Envelope::split(f)) {
        Some((Envelope::Data, body)) => body,
        _ => return Err(corrupt()),
    };
    let (beside, t7) = value::decode(body).map_err(|_| corrupt())?;
    let start = frames[0].len() - t7.len();
    let storages = storages(&beside, &frames[1..], from).named(method)?;
    let first = std::mem::take(&mut frames[0]);
    t7::deserialize_beside_owned(lua, first, start, storages, BESIDE_MIN_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Small values cost little: `cargo test --release --lib small_value_timing -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn small_value_timing() {
        let lua = crate::runtime::new_state().unwrap();
        lua.load("require 'torch'").exec().unwrap();
        let v: Value = lua.load("return {a=1,b='x',c={1,2,3}}").eval().unwrap();
        let n = 100_000;
        let t = std::time::Instant::now();
        for _ in 0..n {
            serialize(&lua, &v).unwrap();
        }
        let ser = t.elapsed() / n;
        let s = serialize(&lua, &v).unwrap();
        let frames = s.frames(Reach::Remote, &mut shm::Pool::new("t")).unwrap();
        // Each read takes its message: the copies are made before the clock starts.
        let copies: Vec<_> = (0..n).map(|_| frames.clone()).collect();
        let t = std::time::Instant::now();
        for f in copies {
            deserialize(&lua, f, Peer::Parent, "t").unwrap();
        }
        eprintln!("serialize {ser:?} deserialize {:?}", t.elapsed() / n);
    }
}
