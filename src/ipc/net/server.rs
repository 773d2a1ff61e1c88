//! `ipc.server`: a listening socket and the connections it accepted, with torch-ipc's tags and
//! ids. The server lives in one Lua state (it is not shared with other threads).
//!
//! A connection's handle given to a `server:clients` callback works only during that call; one
//! returned by `recvAny` works until the connection is closed. A connection whose peer went away
//! or sent a malformed frame leaves the server (its stats are kept in the server's totals); the
//! others go on.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::time::Instant;

use mlua::{Lua, Result, Table, UserData, UserDataMethods, Value, Variadic};

use super::args::{DEFAULT_ACCEPT_TIMEOUT, port_arg, timeout_setting};
use super::conn::Conn;
use super::error::NetError;
use super::listener::Listener;
use super::stats::NetStats;
use super::transfer::{Received, net_error, outgoing, recv_async_on, recv_on, send_on, stats_table};
use super::wait;
use crate::args::{error, type_name};

const INVALID: &str = "server client is invalid, either closed or used outside of server function scope";

/// One accepted connection.
struct Entry {
    /// Accept order: breaks ties between equal ids.
    uid: u64,
    peer: String,
    tag: RefCell<Option<String>>,
    id: Cell<i64>,
    conn: RefCell<Option<Conn>>,
}

impl Entry {
    /// `client 127.0.0.1:4242 (id 3, tag 'x')`, for errors.
    fn describe(&self) -> String {
        let mut s = format!("client {} (id {}", self.peer, self.id.get());
        if let Some(t) = self.tag.borrow().as_ref() {
            s.push_str(&format!(", tag '{t}'"));
        }
        s.push(')');
        s
    }

    fn stats(&self) -> NetStats {
        self.conn.borrow().as_ref().map(|c| c.stats).unwrap_or_default()
    }
}

struct Shared {
    listener: RefCell<Option<Listener>>,
    port: u16,
    entries: RefCell<Vec<Rc<Entry>>>,
    next_uid: Cell<u64>,
    /// Where `recvAny` starts looking next (the connection after the last one served).
    next_turn: Cell<u64>,
    /// Totals of the connections that left.
    gone_stats: RefCell<NetStats>,
    settings: Table,
}

impl Shared {
    fn is_closed(&self) -> bool {
        self.listener.borrow().is_none()
    }

    /// Takes `e` off the list; its connection is closed when dropped with the entry.
    fn remove(&self, e: &Entry) {
        let mut entries = self.entries.borrow_mut();
        if let Some(i) = entries.iter().position(|x| x.uid == e.uid) {
            let gone = entries.remove(i);
            self.gone_stats.borrow_mut().add(&gone.stats());
        }
    }

    /// The connections with `tag` (all when None), by ascending id then accept order.
    fn matching(&self, tag: Option<&str>) -> Vec<Rc<Entry>> {
        let mut v: Vec<Rc<Entry>> = self
            .entries
            .borrow()
            .iter()
            .filter(|e| tag.is_none() || e.tag.borrow().as_deref() == tag)
            .cloned()
            .collect();
        v.sort_by_key(|e| (e.id.get(), e.uid));
        v
    }

    fn close(&self) {
        self.listener.borrow_mut().take();
        let entries = std::mem::take(&mut *self.entries.borrow_mut());
        for e in entries {
            if let Some(mut c) = e.conn.borrow_mut().take() {
                c.close("the server is closed");
                self.gone_stats.borrow_mut().add(&c.stats);
            }
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.close();
    }
}

pub struct Server(Rc<Shared>);

/// `ipc.server([host [, port]])`, or `ipc.server(port)`.
pub fn create(lua: &Lua, settings: &Table, args: Variadic<Value>) -> Result<(Value, u16)> {
    const M: &str = "ipc.server";
    let a = |i: usize| args.get(i).cloned().unwrap_or(Value::Nil);
    let (host, port) = match (a(0), a(1)) {
        (Value::Nil, p) => ("127.0.0.1".to_string(), p),
        (Value::String(h), p) => (h.to_str().map(|s| s.to_string()).unwrap_or_default(), p),
        (p @ (Value::Integer(_) | Value::Number(_)), Value::Nil) => ("127.0.0.1".to_string(), p),
        (other, _) => {
            return Err(error(
                M,
                format!("expected ([host [, port]]), got {} as host", type_name(&other)),
            ));
        }
    };
    let port = if port.is_nil() { 0 } else { port_arg(&port, M)? };
    let listener = Listener::bind(&host, port).map_err(|e| error(M, e))?;
    let port = listener.port;
    let shared = Shared {
        listener: RefCell::new(Some(listener)),
        port,
        entries: RefCell::new(Vec::new()),
        next_uid: Cell::new(1),
        next_turn: Cell::new(0),
        gone_stats: RefCell::new(NetStats::default()),
        settings: settings.clone(),
    };
    let ud = lua.create_userdata(Server(Rc::new(shared)))?;
    Ok((Value::UserData(ud), port))
}

fn tag_arg(v: &Value, method: &str) -> Result<Option<String>> {
    match v {
        Value::Nil => Ok(None),
        Value::String(s) => Ok(Some(s.to_string_lossy())),
        Value::Integer(i) => Ok(Some(i.to_string())),
        Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => Ok(Some(format!("{}", *n as i64))),
        Value::Number(n) => Ok(Some(n.to_string())),
        v => Err(error(method, format!("expected a tag (string), got {}", type_name(v)))),
    }
}

impl Server {
    fn open(&self, method: &str) -> Result<&Shared> {
        if self.0.is_closed() {
            return Err(error(method, "the server is closed"));
        }
        Ok(&self.0)
    }

    /// Accepts until `n` connections are up, or fails after `timeout`.
    fn accept_until(&self, n: usize, timeout: std::time::Duration, method: &str) -> Result<()> {
        let s = self.open(method)?;
        let deadline = Instant::now() + timeout;
        while s.entries.borrow().len() < n {
            let got = {
                let listener = s.listener.borrow();
                let l = listener.as_ref().ok_or_else(|| error(method, "the server is closed"))?;
                l.accept(deadline).map_err(|e| error(method, e.message()))?
            };
            match got {
                Some(c) => {
                    let uid = s.next_uid.get();
                    s.next_uid.set(uid + 1);
                    s.entries.borrow_mut().push(Rc::new(Entry {
                        uid,
                        peer: c.peer.to_string(),
                        tag: RefCell::new(None),
                        id: Cell::new(0),
                        conn: RefCell::new(Some(c)),
                    }));
                }
                None => {
                    return Err(error(
                        method,
                        format!(
                            "server timed out waiting for clients to connect ({} of {n} connected after {} s on port {})",
                            s.entries.borrow().len(),
                            wait::fmt_seconds(timeout),
                            s.port
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// `clients(n, fn [, timeout])` or `clients(fn [, tag [, invert]])`.
    fn clients(&self, lua: &Lua, args: Variadic<Value>) -> Result<usize> {
        const M: &str = "ipc.server:clients";
        let a = |i: usize| args.get(i).cloned().unwrap_or(Value::Nil);
        let (f, tag, invert) = match a(0) {
            Value::Function(f) => {
                let invert = match a(2) {
                    Value::Nil => false,
                    Value::Boolean(b) => b,
                    Value::Integer(i) => i != 0,
                    Value::Number(n) => n != 0.0,
                    v => return Err(error(M, format!("expected invert as a number, got {}", type_name(&v)))),
                };
                (f, tag_arg(&a(1), M)?, invert)
            }
            n @ (Value::Integer(_) | Value::Number(_)) => {
                let n = match n {
                    Value::Integer(i) => i as f64,
                    Value::Number(x) => x,
                    _ => 0.0,
                };
                if n.is_nan() || n < 0.0 || n.fract() != 0.0 || n >= 1e9 {
                    return Err(error(M, format!("expected a number of clients, got {n}")));
                }
                let Value::Function(f) = a(1) else {
                    return Err(error(M, "expected a callback function as argument #3"));
                };
                let timeout = timeout_setting(
                    &self.0.settings,
                    args.get(2),
                    "accepttimeout",
                    DEFAULT_ACCEPT_TIMEOUT,
                    M,
                )?;
                self.accept_until(n as usize, timeout, M)?;
                (f, None, false)
            }
            v => {
                return Err(error(
                    M,
                    format!(
                        "expected (n, fn [, timeout]) or (fn [, tag [, invert]]), got {}",
                        type_name(&v)
                    ),
                ));
            }
        };
        let s = self.open(M)?;
        let mut list = s.matching(tag.as_deref());
        if invert {
            list.reverse();
        }
        let count = list.len();
        for e in list {
            if !s.entries.borrow().iter().any(|x| x.uid == e.uid) {
                continue; // closed by an earlier callback
            }
            let scope = Rc::new(Cell::new(true));
            let handle = ClientHandle {
                entry: e,
                server: Rc::downgrade(&self.0),
                scope: Some(scope.clone()),
            };
            let ud = lua.create_userdata(handle)?;
            let r = f.call::<()>(ud);
            scope.set(false);
            r?;
        }
        Ok(count)
    }

    fn broadcast(&self, lua: &Lua, v: Value, tag: Value) -> Result<()> {
        const M: &str = "ipc.server:broadcast";
        let s = self.open(M)?;
        let tag = tag_arg(&tag, M)?;
        let out = outgoing(lua, &v, M)?;
        let mut failed = Vec::new();
        for e in s.matching(tag.as_deref()) {
            let r = match e.conn.try_borrow_mut() {
                Ok(mut c) => match c.as_mut() {
                    Some(c) => send_on(c, &out),
                    None => continue,
                },
                Err(_) => Err(NetError::Mismatch("the connection is in use".into())),
            };
            if let Err(err) = r {
                if !err.is_fatal() && failed.is_empty() {
                    // The same for every client (a tensor without storage, say): say it once.
                    return Err(error(M, err.message()));
                }
                failed.push(format!("{}: {}", e.describe(), err.message()));
                if err.is_fatal() {
                    s.remove(&e);
                }
            }
        }
        if !failed.is_empty() {
            return Err(error(
                M,
                format!("could not send to {} client(s): {}", failed.len(), failed.join("; ")),
            ));
        }
        Ok(())
    }

    /// One value message from whichever matching connection has one first.
    fn recv_any(&self, lua: &Lua, tag: Value) -> Result<(Value, Value)> {
        const M: &str = "ipc.server:recvAny";
        let s = self.open(M)?;
        let tag = tag_arg(&tag, M)?;
        loop {
            let mut list = s.matching(tag.as_deref());
            if list.is_empty() {
                return Err(error(
                    M,
                    match &tag {
                        Some(t) => format!("no connected client with tag '{t}' to receive from"),
                        None => "no connected client to receive from".to_string(),
                    },
                ));
            }
            // Fair turns: in accept order, starting after the connection served last.
            list.sort_by_key(|e| e.uid);
            let start = list.iter().position(|e| e.uid >= s.next_turn.get()).unwrap_or(0);
            list.rotate_left(start);
            let mut fds = Vec::with_capacity(list.len());
            for e in &list {
                let r = {
                    let Ok(mut c) = e.conn.try_borrow_mut() else { continue };
                    let Some(c) = c.as_mut() else { continue };
                    fds.push(libc::pollfd {
                        fd: c.fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    });
                    recv_async_on(c, M)
                };
                match r {
                    Ok(Some(got)) => {
                        s.next_turn.set(e.uid + 1);
                        let v = got.into_value(lua, M)?;
                        let handle = ClientHandle {
                            entry: e.clone(),
                            server: Rc::downgrade(&self.0),
                            scope: None,
                        };
                        return Ok((v, Value::UserData(lua.create_userdata(handle)?)));
                    }
                    Ok(None) => {}
                    Err(err) => {
                        let fatal = e.conn.borrow().as_ref().is_some_and(|c| c.ended().is_some());
                        if fatal {
                            s.remove(e);
                        }
                        return Err(error(M, format!("{}: {}", e.describe(), strip_method(&err, M))));
                    }
                }
            }
            wait::wait_fds(&mut fds, None).map_err(|e| error(M, e.message()))?;
        }
    }

    fn net_stats(&self) -> NetStats {
        let mut total = *self.0.gone_stats.borrow();
        for e in self.0.entries.borrow().iter() {
            total.add(&e.stats());
        }
        total
    }
}

/// The text of an error raised by `method`, without the `method: ` prefix (it is added again
/// with more context).
fn strip_method(e: &mlua::Error, method: &str) -> String {
    let text = match e {
        mlua::Error::RuntimeError(m) => m.clone(),
        e => e.to_string(),
    };
    text.strip_prefix(&format!("{method}: "))
        .map(str::to_string)
        .unwrap_or(text)
}

impl UserData for Server {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("clients", |lua, this, args: Variadic<Value>| this.clients(lua, args));
        m.add_method("broadcast", |lua, this, (v, tag): (Value, Value)| {
            this.broadcast(lua, v, tag)
        });
        m.add_method("recvAny", |lua, this, tag: Value| this.recv_any(lua, tag));
        m.add_method("netStats", |lua, this, ()| stats_table(lua, &this.net_stats()));
        m.add_method("port", |_, this, ()| Ok(this.0.port));
        m.add_method("close", |_, this, ()| {
            this.0.close();
            Ok(())
        });
        m.add_meta_method("__tostring", |_, this, ()| {
            Ok(format!(
                "ipc.server (port {}, {} clients{})",
                this.0.port,
                this.0.entries.borrow().len(),
                if this.0.is_closed() { ", closed" } else { "" }
            ))
        });
    }
}

/// A server's handle on one connection (torch-ipc's `ipc.server.client`).
struct ClientHandle {
    entry: Rc<Entry>,
    server: Weak<Shared>,
    /// Set for a `clients` callback's handle: false once the callback returned.
    scope: Option<Rc<Cell<bool>>>,
}

impl ClientHandle {
    /// The entry, if the handle may still be used.
    fn valid(&self, method: &str) -> Result<&Entry> {
        let in_scope = self.scope.as_ref().is_none_or(|s| s.get());
        if !in_scope || self.entry.conn.borrow().is_none() {
            return Err(error(method, INVALID));
        }
        Ok(&self.entry)
    }

    fn with<R>(&self, method: &str, f: impl FnOnce(&mut Conn) -> Result<R>) -> Result<R> {
        let e = self.valid(method)?;
        let r = {
            let mut c = e
                .conn
                .try_borrow_mut()
                .map_err(|_| error(method, "the connection is in use by another call"))?;
            let c = c.as_mut().ok_or_else(|| error(method, INVALID))?;
            f(c)
        };
        // A connection that ended leaves the server; this handle still reports why.
        if e.conn.borrow().as_ref().is_some_and(|c| c.ended().is_some())
            && let Some(s) = self.server.upgrade()
        {
            s.remove(e);
        }
        r
    }
}

impl UserData for ClientHandle {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("send", |lua, this, args: Variadic<Value>| {
            const M: &str = "ipc.server.client:send";
            this.valid(M)?;
            let v = args
                .first()
                .ok_or_else(|| error(M, "expected a value, tensor or storage to send"))?;
            let out = outgoing(lua, v, M)?;
            this.with(M, |c| {
                let peer = c.peer.to_string();
                send_on(c, &out).map_err(|e| net_error(M, &peer, &e))
            })
        });
        m.add_method("recv", |lua, this, into: Option<Value>| {
            const M: &str = "ipc.server.client:recv";
            let got: Received = this.with(M, |c| recv_on(c, into.as_ref(), M))?;
            got.into_value(lua, M)
        });
        m.add_method("recvAsync", |lua, this, ()| {
            const M: &str = "ipc.server.client:recvAsync";
            match this.with(M, |c| recv_async_on(c, M))? {
                Some(r) => Ok(Variadic::from_iter([r.into_value(lua, M)?])),
                None => Ok(Variadic::new()),
            }
        });
        m.add_method("tag", |lua, this, args: Variadic<Value>| {
            const M: &str = "ipc.server.client:tag";
            let e = this.valid(M)?;
            match args.first() {
                Some(v) if !v.is_nil() => {
                    *e.tag.borrow_mut() = tag_arg(v, M)?;
                    Ok(Variadic::new())
                }
                _ => match e.tag.borrow().as_ref() {
                    Some(t) => Ok(Variadic::from_iter([Value::String(lua.create_string(t)?)])),
                    None => Ok(Variadic::new()),
                },
            }
        });
        m.add_method("id", |_, this, args: Variadic<Value>| {
            const M: &str = "ipc.server.client:id";
            let e = this.valid(M)?;
            match args.first() {
                Some(Value::Integer(i)) => {
                    e.id.set(*i);
                    Ok(Variadic::new())
                }
                Some(Value::Number(n)) if n.fract() == 0.0 && n.abs() < 9e15 => {
                    e.id.set(*n as i64);
                    Ok(Variadic::new())
                }
                Some(Value::Nil) | None => Ok(Variadic::from_iter([Value::Number(e.id.get() as f64)])),
                Some(v) => Err(error(M, format!("expected an integer id, got {}", type_name(v)))),
            }
        });
        m.add_method("address", |_, this, ()| {
            let e = this.valid("ipc.server.client:address")?;
            Ok(e.peer
                .rsplit_once(':')
                .map(|(ip, _)| ip.trim_matches(['[', ']']).to_string())
                .unwrap_or_default())
        });
        m.add_method("netStats", |lua, this, ()| {
            let e = this.valid("ipc.server.client:netStats")?;
            stats_table(lua, &e.stats())
        });
        m.add_method("close", |_, this, ()| {
            let e = this.valid("ipc.server.client:close")?;
            if let Some(s) = this.server.upgrade() {
                s.remove(e);
            }
            if let Some(mut c) = e.conn.borrow_mut().take() {
                c.close("closed by the server");
            }
            Ok(())
        });
        m.add_meta_method("__tostring", |_, this, ()| {
            Ok(format!("ipc.server.client ({})", this.entry.describe()))
        });
    }
}
