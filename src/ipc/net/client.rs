//! `ipc.client`: one connection to a server, usable from any Lua state of this process.

use std::sync::{Arc, Mutex};

use mlua::{AnyUserData, Lua, Result, Table, UserData, UserDataMethods, Value, Variadic};

use super::args::{DEFAULT_CONNECT_TIMEOUT, host_arg, port_arg, timeout_setting};
use super::conn::Conn;
use super::transfer::{net_error, outgoing, recv_async_on, recv_on, send_on, stats_table};
use crate::args::error;
use crate::torch::t7;

/// `ipc.client([host,] port [, timeout])`.
pub fn create(settings: &Table, args: Variadic<Value>) -> Result<Client> {
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
