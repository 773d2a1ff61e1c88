//! `ipc.server` / `ipc.client`: torch-ipc's TCP client/server,
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

pub mod args;
pub mod auth;
pub mod client;
pub mod conn;
mod cuda;
pub mod error;
pub mod frame;
pub mod listener;
mod server;
pub mod stats;
pub mod transfer;
pub mod wait;

use mlua::{Lua, Result, Table, Value, Variadic};

use crate::calls;
use args::{DEFAULT_ACCEPT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT};

/// The table whose `connecttimeout` and `accepttimeout` the connections read (the ipc module's):
/// the Lua state's app data, put there by `register`.
#[derive(Clone)]
struct Settings(Table);

pub fn register(lua: &Lua, ipc: &Table) -> Result<()> {
    ipc.set("connecttimeout", DEFAULT_CONNECT_TIMEOUT)?;
    ipc.set("accepttimeout", DEFAULT_ACCEPT_TIMEOUT)?;
    calls::keep(lua, || Settings(ipc.clone()));
    calls::add(lua, ipc, "server", listen)?;
    calls::add(lua, ipc, "client", connect)?;
    Ok(())
}

/// `ipc.server([host [, port]]) -> server, port`
fn listen(lua: &Lua, args: Variadic<Value>) -> Result<(Value, u16)> {
    let Settings(settings) = calls::state(lua)?;
    server::create(lua, &settings, args)
}

/// `ipc.client([host,] port [, timeout]) -> client`
fn connect(lua: &Lua, args: Variadic<Value>) -> Result<client::Client> {
    let Settings(settings) = calls::state(lua)?;
    client::create(&settings, args)
}
