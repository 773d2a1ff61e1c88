//! Lua values, tensors and storages on a connection, for clients and servers alike: what a
//! `send` argument becomes, what `recv` gives back, errors as Lua sees them, and `netStats`.

use std::collections::HashSet;

use mlua::{Function, Lua, Result, Table, Value};

use super::conn::Conn;
use super::cuda;
use super::error::{NetError, Res};
use super::frame;
use super::stats::NetStats;
use crate::args::{error, type_name};
use crate::cuda::family::Cuda;
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::Tensor;
use crate::torch::family::Family;
use crate::torch::t7;
use crate::torch::userdata::{Object, classify, classify_in, storage_of, tensor_of};
use crate::wire::value::{self, NOTHING_BESIDE};

/// What a `send` argument becomes on the wire.
pub enum Outgoing {
    Value(Vec<u8>),
    Tensor(Tensor),
    Storage(Storage),
    /// cutorch's: by CUDA IPC handle to a peer on this machine (see `cuda`).
    DeviceTensor(Tensor),
    DeviceStorage(Storage),
}

/// The first userdata (or other value the wire cannot carry) inside `v`, by type name.
fn find_userdata(lua: &Lua, v: &Value) -> Result<Option<String>> {
    let getupvalue: Option<Function> = lua
        .globals()
        .get::<Option<Table>>("debug")
        .ok()
        .flatten()
        .and_then(|d| d.get::<Option<Function>>("getupvalue").ok().flatten());
    let mut seen = HashSet::new();
    let mut stack = vec![v.clone()];
    while let Some(v) = stack.pop() {
        match &v {
            Value::UserData(_) | Value::LightUserData(_) => return Ok(Some(type_name(&v))),
            Value::Thread(_) => return Ok(Some("thread".into())),
            Value::Table(t) if seen.insert(t.to_pointer() as usize) => {
                for pair in t.pairs::<Value, Value>() {
                    let (k, x) = pair?;
                    stack.push(k);
                    stack.push(x);
                }
            }
            Value::Function(f) => {
                if let Some(gu) = &getupvalue
                    && seen.insert(f.to_pointer() as usize)
                {
                    for i in 1i64.. {
                        let (name, x): (Value, Value) = gu.call((f.clone(), i))?;
                        if name.is_nil() {
                            break;
                        }
                        stack.push(x);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(None)
}

/// A value message's `.t7` body: no userdata inside, at most `frame::MAX_MESSAGE` long. The
/// message is a wire value with nothing beside that body: torch-ipc's messages hold no userdata
/// (tensors travel in frames of their own).
pub fn encode_value(lua: &Lua, v: &Value, method: &str) -> Result<Vec<u8>> {
    if let Some(what) = find_userdata(lua, v)? {
        return Err(error(
            method,
            format!(
                "a message cannot hold userdata (it holds a {what}); send a tensor or storage on its own, \
                 as send(x), and receive it with recv(x) into a preallocated one"
            ),
        ));
    }
    let bytes = t7::serialize(lua, v, t7::Mode::Binary).map_err(|e| error(method, e))?;
    if bytes.len() > frame::MAX_MESSAGE {
        return Err(error(
            method,
            format!(
                "message too large: {} bytes serialised, the limit is {} (send large data as tensors)",
                bytes.len(),
                frame::MAX_MESSAGE
            ),
        ));
    }
    Ok(bytes)
}

pub fn outgoing(lua: &Lua, v: &Value, method: &str) -> Result<Outgoing> {
    let not_classified = || error(method, "internal error: unclassified tensor or storage");
    match (classify(v), classify_in::<Cuda>(v)) {
        (Some(Object::Tensor(..)), _) => tensor_of(v).map(Outgoing::Tensor).ok_or_else(not_classified),
        (Some(Object::Storage(..)), _) => storage_of(v).map(Outgoing::Storage).ok_or_else(not_classified),
        (None, Some(Object::Tensor(..))) => Cuda::tensor_of(v)
            .map(Outgoing::DeviceTensor)
            .ok_or_else(not_classified),
        (None, Some(Object::Storage(..))) => Cuda::storage_of(v)
            .map(Outgoing::DeviceStorage)
            .ok_or_else(not_classified),
        (None, None) => encode_value(lua, v, method).map(Outgoing::Value),
    }
}

pub fn send_on(conn: &mut Conn, out: &Outgoing) -> Res<()> {
    match out {
        Outgoing::Value(b) => conn.send_value(&[NOTHING_BESIDE, b]),
        Outgoing::Tensor(t) => conn.send_tensor(t),
        Outgoing::Storage(s) => conn.send_storage(s),
        Outgoing::DeviceTensor(t) => cuda::send_tensor(conn, t),
        Outgoing::DeviceStorage(s) => cuda::send_storage(conn, s),
    }
}

/// A Lua error for a failed call on `conn`'s connection.
pub fn net_error(method: &str, peer: &str, e: &NetError) -> mlua::Error {
    error(method, format!("{} (peer {peer})", e.message()))
}

fn decode_value(lua: &Lua, bytes: &[u8], method: &str, peer: &str) -> Result<Value> {
    let malformed = |e: &dyn std::fmt::Display| error(method, format!("malformed message from {peer}: {e}"));
    let body = match value::decode(bytes) {
        Ok((beside, body)) if beside.is_empty() => body,
        Ok(_) => return Err(malformed(&"storages beside a message")),
        Err(e) => return Err(malformed(&e)),
    };
    t7::deserialize(lua, body, t7::Mode::Binary).map_err(|e| malformed(&e))
}

/// What `recv([x])` got: a value message's bytes (decoded by the caller, after releasing the
/// connection, since decoding may run Lua code), or the tensor/storage `x`, filled.
pub enum Received {
    Bytes(Vec<u8>, String),
    Into(Value),
}

impl Received {
    pub fn into_value(self, lua: &Lua, method: &str) -> Result<Value> {
        match self {
            Received::Bytes(b, peer) => decode_value(lua, &b, method, &peer),
            Received::Into(v) => Ok(v),
        }
    }
}

/// `recv([x])` on a connection: a value message, or a tensor/storage received into `x`.
pub fn recv_on(conn: &mut Conn, into: Option<&Value>, method: &str) -> Result<Received> {
    let peer = conn.peer.to_string();
    let fail = |e: NetError| net_error(method, &peer, &e);
    let not_classified = || error(method, "internal error: unclassified tensor or storage");
    match into {
        None | Some(Value::Nil) => {
            let bytes = conn
                .recv_value(true)
                .map_err(fail)?
                .ok_or_else(|| error(method, "no message after a blocking wait"))?;
            Ok(Received::Bytes(bytes, peer.clone()))
        }
        Some(v) => match classify(v) {
            Some(Object::Tensor(..)) => {
                let t = tensor_of(v).ok_or_else(not_classified)?;
                conn.recv_tensor(&t).map_err(fail)?;
                Ok(Received::Into(v.clone()))
            }
            Some(Object::Storage(..)) => {
                let s = storage_of(v).ok_or_else(not_classified)?;
                conn.recv_storage(&s).map_err(fail)?;
                Ok(Received::Into(v.clone()))
            }
            None => match classify_in::<Cuda>(v) {
                Some(Object::Tensor(..)) => {
                    let t = Cuda::tensor_of(v).ok_or_else(not_classified)?;
                    cuda::recv_tensor(conn, &t).map_err(fail)?;
                    Ok(Received::Into(v.clone()))
                }
                Some(Object::Storage(..)) => {
                    let s = Cuda::storage_of(v).ok_or_else(not_classified)?;
                    cuda::recv_storage(conn, &s).map_err(fail)?;
                    Ok(Received::Into(v.clone()))
                }
                None => Err(error(
                    method,
                    format!("expected a tensor or storage to receive into, got {}", type_name(v)),
                )),
            },
        },
    }
}

/// `recvAsync()`: a whole value message's bytes if one has arrived.
pub fn recv_async_on(conn: &mut Conn, method: &str) -> Result<Option<Received>> {
    let peer = conn.peer.to_string();
    match conn.recv_value(false).map_err(|e| net_error(method, &peer, &e))? {
        Some(bytes) => Ok(Some(Received::Bytes(bytes, peer))),
        None => Ok(None),
    }
}

/// torch-ipc's `netStats()` table: `{tx = {...}, rx = {...}}`.
pub fn stats_table(lua: &Lua, s: &NetStats) -> Result<Table> {
    let t = lua.create_table()?;
    for (name, d) in [("tx", &s.tx), ("rx", &s.rx)] {
        let x = lua.create_table()?;
        x.set("num_bytes", d.num_bytes as f64)?;
        x.set("num_regions", d.num_regions as f64)?;
        x.set("num_calls", d.num_calls as f64)?;
        x.set("num_system_calls", d.num_system_calls as f64)?;
        x.set("total_seconds", d.total_seconds)?;
        x.set("system_seconds", d.system_seconds)?;
        x.set("cuda_sync_seconds", 0.0)?;
        // torch-ipc's name for the seconds spent in CUDA IPC transfers (sic).
        x.set("cudacliser_profile_seconds", d.cuda_ipc_seconds)?;
        x.set("cuda_ipc_bytes", d.cuda_ipc_bytes as f64)?;
        let rate = |bytes: u64, secs: f64| if secs > 0.0 { bytes as f64 / 1e6 / secs } else { 0.0 };
        x.set("NETWORK MB/s", rate(d.num_bytes, d.total_seconds))?;
        x.set("CUDA IPC MB/s", rate(d.cuda_ipc_bytes, d.cuda_ipc_seconds))?;
        t.set(name, x)?;
    }
    Ok(t)
}
