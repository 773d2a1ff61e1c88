//! Lua values on the wire: one `.t7` body for the value, with its large storages beside it (a
//! shared-memory segment per storage for a local peer, a raw frame for a remote one), and its
//! device storages too (a CUDA IPC handle for a local peer, a raw frame of their bytes for a
//! remote one).

use mlua::{Lua, Result, Value};

use super::shm;
use super::wire::{BESIDE_MIN_BYTES, Beside, Envelope};
use crate::cuda::{self, share};
use crate::torch::dtype::DType;
use crate::torch::storage::Storage;
use crate::torch::t7;

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

pub fn serialize(lua: &Lua, value: &Value) -> Result<Serialized> {
    let (t7, storages) = t7::serialize_beside(lua, value, BESIDE_MIN_BYTES)?;
    Ok(Serialized { t7, storages })
}

fn dtype_code(d: DType) -> u8 {
    DType::ALL.iter().position(|x| *x == d).unwrap_or(0) as u8
}

fn dtype_of(code: u8) -> std::result::Result<DType, String> {
    DType::ALL
        .get(code as usize)
        .copied()
        .ok_or_else(|| format!("corrupt message: element type {code}"))
}

impl Serialized {
    /// The frames of a `Data` message for one peer: envelope, `.t7` body, raw storage frames.
    /// A local peer's storages go through the sender's segment pool for that peer.
    pub fn frames(&self, reach: Reach, pool: &mut shm::Pool) -> std::result::Result<Vec<Vec<u8>>, String> {
        let mut beside = Vec::with_capacity(self.storages.len());
        let mut raw = Vec::new();
        for s in &self.storages {
            let (dtype, len) = (dtype_code(s.dtype()), s.len() as u64);
            if s.is_device() {
                // Staging can fail (out of device memory, say): the host path still works.
                let staged = match reach {
                    Reach::Local if !share::disabled() => pool.device.stage(s).ok(),
                    _ => None,
                };
                match staged {
                    Some((name, e)) => beside.push(Beside::CudaIpc {
                        name,
                        handle: e.handle.to_vec(),
                        offset: e.offset as u64,
                        device: e.device as u32,
                        uuid: e.uuid.to_vec(),
                        dtype,
                        len,
                    }),
                    None => {
                        beside.push(Beside::DeviceFrame { dtype, len });
                        let host = cuda::memory::to_host(s)?;
                        // SAFETY: a fresh host copy, read while it is copied into the frame.
                        raw.push(unsafe { host.bytes() }.to_vec());
                    }
                }
                continue;
            }
            let segment = match reach {
                Reach::Local => pool.export(s).ok(),
                Reach::Remote => None,
            };
            match segment {
                Some(name) => beside.push(Beside::Shm { name, dtype, len }),
                None => {
                    beside.push(Beside::Frame { dtype, len });
                    // SAFETY: read-only view while it is copied into the frame.
                    raw.push(unsafe { s.bytes() }.to_vec());
                }
            }
        }
        let mut frames = Vec::with_capacity(1 + raw.len());
        frames.push(Envelope::Data { beside }.with_body(&self.t7));
        frames.extend(raw);
        Ok(frames)
    }
}

/// Reads a `Data` message: its `.t7` body and the raw frames after the first.
pub fn deserialize(
    lua: &Lua,
    beside: &[Beside],
    t7: &[u8],
    raw: &[Vec<u8>],
    from: shm::Peer,
    method: &str,
) -> Result<Value> {
    let fail = |m: String| crate::torch::args::error(method, m);
    let mut raw = raw.iter();
    let mut storages = Vec::with_capacity(beside.len());
    for b in beside {
        let s = match b {
            Beside::Shm { name, dtype, len } => {
                let dtype = dtype_of(*dtype).map_err(fail)?;
                shm::import(name, dtype, *len as usize, from)
                    .map_err(|e| fail(format!("cannot map shared memory segment {name}: {e}")))?
            }
            Beside::Frame { dtype, len } => {
                host_storage(dtype_of(*dtype).map_err(fail)?, *len, raw.next()).map_err(fail)?
            }
            Beside::DeviceFrame { dtype, len } => {
                let host = host_storage(dtype_of(*dtype).map_err(fail)?, *len, raw.next()).map_err(fail)?;
                cuda::memory::from_host(&host)
                    .map_err(|e| fail(format!("cannot put a received CUDA storage on the device: {e}")))?
            }
            Beside::CudaIpc {
                name,
                handle,
                offset,
                device,
                uuid,
                dtype,
                len,
            } => {
                let dtype = dtype_of(*dtype).map_err(fail)?;
                let (Ok(handle), Ok(uuid)) = (handle.as_slice().try_into(), uuid.as_slice().try_into()) else {
                    return Err(fail("corrupt message: a CUDA IPC handle of the wrong size".into()));
                };
                let e = cuda::ipc::Exported {
                    handle,
                    offset: *offset as usize,
                    bytes: (*len as usize).saturating_mul(dtype.size_of()),
                    device: *device as usize,
                    uuid,
                    dtype,
                };
                let owed = name.clone();
                share::open(name, &e, Box::new(move || shm::queue_release(from, owed))).map_err(|e| {
                    // The sender may have its memory back: nothing here will use it.
                    shm::queue_release(from, name.clone());
                    fail(format!("cannot open a CUDA storage sent by CUDA IPC: {e}"))
                })?
            }
        };
        storages.push(s);
    }
    t7::deserialize_beside(lua, t7, storages, BESIDE_MIN_BYTES)
}

/// A host storage holding a raw frame's bytes, which must be `len` elements of `dtype`.
fn host_storage(dtype: DType, len: u64, bytes: Option<&Vec<u8>>) -> std::result::Result<Storage, String> {
    let bytes = bytes.ok_or("corrupt message: a storage is missing")?;
    let len = len as usize;
    if bytes.len() != len.saturating_mul(dtype.size_of()) {
        return Err("corrupt message: a storage has the wrong size".into());
    }
    let s = Storage::new(dtype, len)?;
    // SAFETY: fresh storage of exactly bytes.len() bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), s.data_ptr(), bytes.len()) };
    Ok(s)
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
        let t = std::time::Instant::now();
        for _ in 0..n {
            let (_, body) = Envelope::split(&frames[0]).unwrap();
            deserialize(&lua, &[], body, &frames[1..], shm::Peer::Parent, "t").unwrap();
        }
        eprintln!("serialize {ser:?} deserialize {:?}", t.elapsed() / n);
    }
}
