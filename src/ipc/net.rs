//! `ipc.server` / `ipc.client`: torch-ipc's TCP client/server (reference/parallel_ipc.md B.10),
//! the transport of the allreduce trees in lua/ipc/.
//!
//! * `ipc.server([host [, port]]) -> server, port`: listens on `host` (default `127.0.0.1`:
//!   only this machine can connect unless the caller names another address, such as `0.0.0.0`)
//!   and `port` (default 0: any free port, returned). Connections are accepted only inside
//!   `server:clients(n, fn)`.
//! * `ipc.client([host,] port [, timeout])`: retries a refused connection until `timeout`
//!   seconds have passed (default `ipc.connecttimeout`, 30; torch-ipc retried silently for 5
//!   minutes), then raises an error naming the host and port.
//! * Two kinds of transfer share a connection: value messages (any Lua value without userdata,
//!   in the `.t7` format, at most 16 MiB serialised) and raw tensors and storages, received into
//!   a preallocated receiver of the same type, sizes and contiguity. CUDA tensors and storages
//!   go by CUDA IPC handle to a peer on this machine, else through host memory (`cuda`).
//! * Unlike torch-ipc, both ends prove to each other that they hold the user's secret before any
//!   frame is read (`auth`); the loopback default stays.
//!
//! Differences from torch-ipc: a peer that crashed raises "remote peer disconnected" instead of
//! making `recv` spin; a frame that does not fit the receiver stays unread (the call may be
//! retried with the right receiver) instead of desynchronising the stream; tensors of any strides
//! can be sent and received; a malformed frame ends only its own connection; `server:clients`
//! gives up after `ipc.accepttimeout` seconds (default 300, torch-ipc's 5 minutes) or the
//! optional third argument; servers and clients close when collected.

pub mod auth;
pub mod conn;
mod cuda;
pub mod frame;
mod server;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mlua::{AnyUserData, Function, Lua, Result, Table, UserData, UserDataMethods, Value, Variadic};

use crate::cuda::family::Cuda;
use crate::torch::args::{error, type_name};
use crate::torch::family::Family;
use crate::torch::layout::Tensor;
use crate::torch::storage::Storage;
use crate::torch::t7;
use crate::torch::userdata::{Object, classify, classify_in, storage_of, tensor_of};
use conn::{Conn, NetError, NetStats};

pub const DEFAULT_CONNECT_TIMEOUT: f64 = 30.0;
pub const DEFAULT_ACCEPT_TIMEOUT: f64 = 300.0;

pub fn register(lua: &Lua, ipc: &Table) -> Result<()> {
    ipc.set("connecttimeout", DEFAULT_CONNECT_TIMEOUT)?;
    ipc.set("accepttimeout", DEFAULT_ACCEPT_TIMEOUT)?;
    let settings = ipc.clone();
    ipc.set(
        "server",
        lua.create_function(move |lua, args: Variadic<Value>| server::create(lua, &settings, args))?,
    )?;
    let settings = ipc.clone();
    ipc.set(
        "client",
        lua.create_function(move |_, args: Variadic<Value>| create_client(&settings, args))?,
    )?;
    Ok(())
}

/// A timeout in seconds from an argument, or the module setting `name`, or `default`.
fn timeout_setting(settings: &Table, arg: Option<&Value>, name: &str, default: f64, method: &str) -> Result<Duration> {
    let (v, what) = match arg {
        Some(v) if !v.is_nil() => (v.clone(), "timeout".to_string()),
        _ => (settings.get::<Value>(name)?, format!("ipc.{name}")),
    };
    let secs = match v {
        Value::Nil => default,
        Value::Integer(i) => i as f64,
        Value::Number(n) => n,
        other => {
            return Err(error(
                method,
                format!("{what} must be a number of seconds, got {}", type_name(&other)),
            ));
        }
    };
    if secs.is_nan() || secs <= 0.0 || secs >= 1e9 {
        return Err(error(
            method,
            format!("{what} must be a positive number of seconds, got {secs}"),
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// A port from a number or a numeric string.
fn port_arg(v: &Value, method: &str) -> Result<u16> {
    let n = match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Number(n) => Some(*n),
        Value::String(s) => s.to_str().ok().and_then(|s| s.trim().parse::<f64>().ok()),
        _ => None,
    };
    match n {
        Some(n) if n.fract() == 0.0 && (0.0..=65535.0).contains(&n) => Ok(n as u16),
        _ => Err(error(
            method,
            format!("expected a port number (0 to 65535), got {}", describe_arg(v)),
        )),
    }
}

fn describe_arg(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{}'", s.to_string_lossy()),
        Value::Integer(i) => i.to_string(),
        Value::Number(n) => n.to_string(),
        v => type_name(v),
    }
}

fn host_arg(v: &Value, method: &str) -> Result<String> {
    match v {
        Value::String(s) => Ok(s.to_str().map(|s| s.to_string()).unwrap_or_default()),
        v => Err(error(
            method,
            format!("expected a host name or address, got {}", type_name(v)),
        )),
    }
}

/// `ipc.client([host,] port [, timeout])`.
fn create_client(settings: &Table, args: Variadic<Value>) -> Result<Client> {
    const M: &str = "ipc.client";
    let a = |i: usize| args.get(i).cloned().unwrap_or(Value::Nil);
    let host_form =
        matches!(a(0), Value::String(_)) && matches!(a(1), Value::String(_) | Value::Number(_) | Value::Integer(_));
    let (host, port, timeout) = if host_form {
        (host_arg(&a(0), M)?, port_arg(&a(1), M)?, a(2))
    } else if a(0).is_nil() {
        return Err(error(M, "expected ([host,] port [, timeout])"));
    } else {
        ("127.0.0.1".to_string(), port_arg(&a(0), M)?, a(1))
    };
    let timeout = timeout_setting(settings, Some(&timeout), "connecttimeout", DEFAULT_CONNECT_TIMEOUT, M)?;
    let conn = Conn::connect(&host, port, timeout).map_err(|e| error(M, e))?;
    Ok(Client::new(conn))
}

// ---- values and tensors on a connection ----

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

/// A value message's bytes: no userdata inside, at most `frame::MAX_MESSAGE` long.
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

pub fn send_on(conn: &mut Conn, out: &Outgoing) -> std::result::Result<(), NetError> {
    match out {
        Outgoing::Value(b) => conn.send_value(b),
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
    t7::deserialize(lua, bytes, t7::Mode::Binary)
        .map_err(|e| error(method, format!("malformed message from {peer}: {e}")))
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

// ---- the client ----

struct ClientState {
    conn: Option<Conn>,
    peer: String,
}

/// A client connection. Shared (`Arc`) so that another Lua state of this process can hold the
/// same connection (torch-ipc returned clients from `ipc.map` threads).
#[derive(Clone)]
pub struct Client(Arc<Mutex<ClientState>>);

impl Client {
    fn new(conn: Conn) -> Client {
        let peer = conn.peer.to_string();
        Client(Arc::new(Mutex::new(ClientState { conn: Some(conn), peer })))
    }

    /// The client held by a userdata, if it is one.
    pub fn of(ud: &AnyUserData) -> Option<Client> {
        ud.borrow::<Client>().ok().map(|c| c.clone())
    }

    /// A new userdata for this client in `lua`.
    pub fn push(&self, lua: &Lua) -> Result<Value> {
        Ok(Value::UserData(lua.create_userdata(self.clone())?))
    }
}

/// A client passes between the Lua states of this process by reference, like torch-ipc's (a
/// client made in an `ipc.map` thread can be returned to the main thread).
impl t7::codec::Handle for Client {
    fn push(&self, lua: &Lua) -> Result<Value> {
        Client::push(self, lua)
    }
}

/// The shareable form of `ud` when it is a client (for `ipc/message.rs`'s handle list).
pub fn handle_of(ud: &AnyUserData) -> Option<Arc<dyn t7::codec::Handle>> {
    Client::of(ud).map(|c| Arc::new(c) as Arc<dyn t7::codec::Handle>)
}

impl Client {
    /// Runs `f` on the connection; another thread using the same client waits its turn.
    fn with<R>(&self, method: &str, f: impl FnOnce(&mut Conn, &str) -> Result<R>) -> Result<R> {
        let mut st = self
            .0
            .lock()
            .map_err(|_| error(method, "the client failed in another thread"))?;
        let st = &mut *st;
        match st.conn.as_mut() {
            Some(c) => f(c, &st.peer),
            None => Err(error(method, format!("the client is closed (peer {})", st.peer))),
        }
    }
}

impl UserData for Client {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("send", |lua, this, args: Variadic<Value>| {
            const M: &str = "ipc.client:send";
            let v = args
                .first()
                .ok_or_else(|| error(M, "expected a value, tensor or storage to send"))?;
            let out = outgoing(lua, v, M)?;
            this.with(M, |c, peer| send_on(c, &out).map_err(|e| net_error(M, peer, &e)))
        });
        m.add_method("recv", |lua, this, into: Option<Value>| {
            const M: &str = "ipc.client:recv";
            this.with(M, |c, _| recv_on(c, into.as_ref(), M))?.into_value(lua, M)
        });
        m.add_method("recvAsync", |lua, this, ()| {
            const M: &str = "ipc.client:recvAsync";
            match this.with(M, |c, _| recv_async_on(c, M))? {
                Some(r) => Ok(Variadic::from_iter([r.into_value(lua, M)?])),
                None => Ok(Variadic::new()),
            }
        });
        m.add_method("netStats", |lua, this, ()| {
            this.with("ipc.client:netStats", |c, _| stats_table(lua, &c.stats))
        });
        m.add_method("close", |_, this, ()| {
            let conn = this.0.lock().map(|mut s| s.conn.take()).unwrap_or(None);
            if let Some(mut c) = conn {
                c.close("the client is closed");
            }
            Ok(())
        });
        m.add_method("address", |_, this, ()| {
            Ok(this.0.lock().map(|s| s.peer.clone()).unwrap_or_default())
        });
        m.add_method("retain", |_, _, ()| Ok(()));
        m.add_method("metatablename", |_, _, ()| Ok("ipc.client"));
        m.add_meta_method("__tostring", |_, this, ()| {
            Ok(format!(
                "ipc.client ({})",
                this.0.lock().map(|s| s.peer.clone()).unwrap_or_default()
            ))
        });
    }
}
