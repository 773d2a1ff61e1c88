//! `libparallel`: the native half of `require 'parallel'` (lua/parallel/init.lua holds the API
//! shapes). A process is a parent through its [`hub::Hub`] once it forks, and a child through its
//! [`link::Link`] when `parallel.fork` started it; it can be both.

pub mod data;
pub mod envelope;
pub mod hub;
pub mod kid;
pub mod link;
pub mod owed;
pub mod pieces;
pub mod pipe;
pub mod router;
pub mod shm;

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use mlua::{Lua, LuaString, Result, Table, Value, Variadic};

use crate::args::error;
use crate::calls;
use crate::error::{Error, Named};
use crate::process::{launch, sweep};
use crate::wire::handshake::{hex, random_bytes};
use hub::Hub;
use link::Link;

#[derive(Default)]
struct Parallel {
    hub: Option<Hub>,
    link: Option<Link>,
}

/// This process's hub and link, in the Lua state's app data (`open` puts it there).
type Shared = Rc<RefCell<Parallel>>;

fn busy(method: &str) -> mlua::Error {
    error(method, "called while another parallel call is in progress")
}

/// Runs `f` on this process's hub, made on first use.
fn with_hub<R>(lua: &Lua, method: &str, f: impl FnOnce(&mut Hub) -> crate::error::Result<R>) -> Result<R> {
    let state = calls::state::<Shared>(lua)?;
    let mut p = state.try_borrow_mut().map_err(|_| busy(method))?;
    if p.hub.is_none() {
        // A child's children on this machine share its run, so one sweep at the top removes
        // every segment. A remote child is the top of a run of its own on its machine.
        let run = match &p.link {
            Some(l) if l.reach == data::Reach::Local => l.run.clone(),
            _ => {
                let run = sweep::new_run(&hex(&random_bytes(6).map_err(|e| error(method, e))?));
                sweep::sweep_on_exit(&run);
                run
            }
        };
        p.hub = Some(Hub::new(&run).named(method)?);
    }
    f(p.hub.as_mut().expect("made above")).named(method)
}

fn with_link<R>(lua: &Lua, method: &str, f: impl FnOnce(&mut Link) -> crate::error::Result<R>) -> Result<R> {
    let state = calls::state::<Shared>(lua)?;
    let mut p = state.try_borrow_mut().map_err(|_| busy(method))?;
    let link = p.link.as_mut().ok_or_else(|| {
        Error::argument("this process has no parent (it was not started by parallel.fork)").named(method)
    })?;
    f(link).named(method)
}

fn id_of(method: &str, v: Value) -> Result<u32> {
    match v {
        Value::Integer(i) if (0..=u32::MAX as i64).contains(&i) => Ok(i as u32),
        Value::Number(n) if n >= 0.0 && n <= u32::MAX as f64 && n.fract() == 0.0 => Ok(n as u32),
        other => Err(error(method, format!("bad child id ({})", other.type_name()))),
    }
}

/// Child ids from one id or a Lua list of them.
fn ids(method: &str, v: Value) -> Result<Vec<u32>> {
    match v {
        Value::Table(t) => t.sequence_values::<Value>().map(|v| id_of(method, v?)).collect(),
        v => Ok(vec![id_of(method, v)?]),
    }
}

fn string_arg(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.to_string_lossy()),
        _ => None,
    }
}

pub fn open(lua: &Lua) -> Result<Table> {
    calls::keep(lua, Shared::default);
    let t = lua.create_table()?;
    calls::add(lua, &t, "fork", fork)?;
    calls::add(lua, &t, "await", await_connected)?;
    calls::add(lua, &t, "exec", exec)?;
    calls::add(lua, &t, "join", join)?;
    calls::add(lua, &t, "send", send)?;
    calls::add(lua, &t, "receive", receive)?;
    calls::add(lua, &t, "receive_any", receive_any)?;
    calls::add(lua, &t, "sync", sync)?;
    calls::add(lua, &t, "kill", kill)?;
    calls::add(lua, &t, "kill_all", kill_all)?;
    // Child side.
    calls::add(lua, &t, "child_start", child_start)?;
    calls::add(lua, &t, "parent_send", parent_send)?;
    calls::add(lua, &t, "parent_receive", parent_receive)?;
    calls::add(lua, &t, "yield", yield_now)?;
    calls::add(lua, &t, "next_exec", next_exec)?;
    calls::add(lua, &t, "done", done)?;
    calls::add(lua, &t, "failed", failed)?;
    calls::add(lua, &t, "shutdown", shutdown)?;
    calls::add(lua, &t, "localip", localip)?;
    Ok(t)
}

/// `fork(id, spec{host, protocol, program, connect_ip, timeout, path, cpath}, welcome) -> pid`
fn fork(lua: &Lua, (id, spec, welcome): (u32, Table, Value)) -> Result<u32> {
    const M: &str = "parallel.fork";
    let get = |k: &str| spec.get::<Value>(k).map(|v| string_arg(&v));
    let launch_spec = launch::Spec {
        host: get("host")?,
        protocol: get("protocol")?,
        program: get("program")?,
        connect_timeout: spec.get::<Option<u32>>("timeout")?.unwrap_or(30).max(1),
        search_paths: match (
            spec.get::<Option<LuaString>>("path")?,
            spec.get::<Option<LuaString>>("cpath")?,
        ) {
            (Some(p), Some(c)) => Some((p.as_bytes().to_vec(), c.as_bytes().to_vec())),
            _ => None,
        },
        chunk: launch::CHILD_CHUNK,
    };
    let connect_ip = get("connect_ip")?;
    let body = crate::torch::t7::serialize(lua, &welcome, crate::torch::t7::Mode::Binary)?;
    with_hub(lua, M, |hub| hub.fork(id, &launch_spec, connect_ip.as_deref(), body))
}

/// `await(ids | id, timeout)`: waits for the forked children to connect.
fn await_connected(lua: &Lua, (list, timeout): (Value, f64)) -> Result<()> {
    const M: &str = "parallel.fork";
    let ids = ids(M, list)?;
    let timeout = Duration::from_secs_f64(timeout.clamp(0.1, 1e6));
    with_hub(lua, M, |hub| hub.await_connected(&ids, timeout))
}

/// `exec(id, code, bytecode)`: sends a child the code to run.
fn exec(lua: &Lua, (id, code, bytecode): (u32, LuaString, bool)) -> Result<()> {
    let code = code.as_bytes().to_vec();
    with_hub(lua, "parallel.exec", |hub| hub.exec(id, code, bytecode))
}

/// `join(ids | id, msg)`
fn join(lua: &Lua, (list, msg): (Value, LuaString)) -> Result<()> {
    const M: &str = "parallel.join";
    let ids = ids(M, list)?;
    let msg = msg.as_bytes().to_vec();
    with_hub(lua, M, |hub| hub.join(&ids, &msg))
}

/// `send(ids | id, value)`
fn send(lua: &Lua, (list, value): (Value, Value)) -> Result<()> {
    const M: &str = "parallel.send";
    let ids = ids(M, list)?;
    let ser = data::serialize(lua, &value).map_err(|e| error(M, e))?;
    with_hub(lua, M, |hub| hub.send(&ids, &ser))
}

/// `receive(id, noblock) -> true, value | false`
fn receive(lua: &Lua, (id, noblock): (u32, bool)) -> Result<Variadic<Value>> {
    const M: &str = "parallel.receive";
    let frames = with_hub(lua, M, |hub| hub.receive(id, noblock))?;
    match frames {
        Some(f) => Ok(Variadic::from_iter([
            Value::Boolean(true),
            data::deserialize(lua, f, owed::Peer::Child(id), M)?,
        ])),
        None => Ok(Variadic::from_iter([Value::Boolean(false)])),
    }
}

/// `receive_any(ids) -> id, true, value | id, false, why`
fn receive_any(lua: &Lua, ids: Vec<u32>) -> Result<Variadic<Value>> {
    const M: &str = "parallel.receive_any";
    let (id, got) = with_hub(lua, M, |hub| hub.receive_any(&ids))?;
    Ok(match got {
        Ok(f) => Variadic::from_iter([
            Value::Integer(id.into()),
            Value::Boolean(true),
            data::deserialize(lua, f, owed::Peer::Child(id), M)?,
        ]),
        Err(why) => Variadic::from_iter([
            Value::Integer(id.into()),
            Value::Boolean(false),
            Value::String(lua.create_string(why.to_string())?),
        ]),
    })
}

/// `sync(id)`
fn sync(lua: &Lua, id: u32) -> Result<()> {
    with_hub(lua, "parallel.sync", |hub| hub.sync(id))
}

/// `kill(id, why)`
fn kill(lua: &Lua, (id, why): (u32, String)) -> Result<()> {
    let s = calls::state::<Shared>(lua)?;
    let mut p = s.try_borrow_mut().map_err(|_| busy("parallel.close"))?;
    if let Some(hub) = p.hub.as_mut() {
        hub.kill(id, &why);
    }
    Ok(())
}

/// `kill_all(why)`
fn kill_all(lua: &Lua, why: String) -> Result<()> {
    let s = calls::state::<Shared>(lua)?;
    let mut p = s.try_borrow_mut().map_err(|_| busy("parallel.close"))?;
    let top = p.link.is_none();
    if let Some(hub) = p.hub.as_mut() {
        hub.kill_all(&why);
        // Segments in flight anywhere in the run: only the top process may sweep them,
        // once every process of the run is gone.
        if top {
            sweep::sweep_run(hub.run());
        }
    }
    Ok(())
}

/// `child_start() -> welcome`: a child connects to its parent.
fn child_start(lua: &Lua, (): ()) -> Result<Value> {
    const M: &str = "parallel._child";
    let s = calls::state::<Shared>(lua)?;
    let mut p = s.try_borrow_mut().map_err(|_| busy(M))?;
    if p.link.is_some() {
        return Err(error(M, "this child is already connected"));
    }
    let (link, body) = Link::connect().named(M)?;
    p.link = Some(link);
    drop(p);
    crate::torch::t7::deserialize(lua, &body, crate::torch::t7::Mode::Binary)
}

/// `parent_send(value)`
fn parent_send(lua: &Lua, value: Value) -> Result<()> {
    const M: &str = "parallel.parent:send";
    let ser = data::serialize(lua, &value).map_err(|e| error(M, e))?;
    with_link(lua, M, |link| {
        link.send_releases()?;
        let reach = link.reach;
        let frames = ser.frames(reach, &mut link.pool)?;
        link.send_frames(frames)
    })
}

/// `parent_receive(noblock) -> true, value | false`
fn parent_receive(lua: &Lua, noblock: bool) -> Result<Variadic<Value>> {
    const M: &str = "parallel.parent:receive";
    match with_link(lua, M, |link| link.receive(noblock))? {
        Some(f) => Ok(Variadic::from_iter([
            Value::Boolean(true),
            data::deserialize(lua, f, owed::Peer::Parent, M)?,
        ])),
        None => Ok(Variadic::from_iter([Value::Boolean(false)])),
    }
}

/// `yield() -> msg`
fn yield_now(lua: &Lua, (): ()) -> Result<LuaString> {
    let msg = with_link(lua, "parallel.yield", |link| link.yield_now())?;
    lua.create_string(msg)
}

/// `next_exec() -> code, bytecode | nothing`
fn next_exec(lua: &Lua, (): ()) -> Result<Variadic<Value>> {
    match with_link(lua, "parallel._child", |link| link.next_exec())? {
        Some((bytecode, code)) => Ok(Variadic::from_iter([
            Value::String(lua.create_string(code)?),
            Value::Boolean(bytecode),
        ])),
        None => Ok(Variadic::new()),
    }
}

/// `done()`: the child's code finished.
fn done(lua: &Lua, (): ()) -> Result<()> {
    with_link(lua, "parallel._child", |link| link.done())
}

/// `failed(msg)`: the child's code failed.
fn failed(lua: &Lua, msg: LuaString) -> Result<()> {
    let msg = msg.to_string_lossy();
    with_link(lua, "parallel._child", |link| link.failed(&msg))
}

/// `shutdown()`: a child about to exit: its segments go, and its last messages leave first.
fn shutdown(lua: &Lua, (): ()) -> Result<()> {
    let s = calls::state::<Shared>(lua)?;
    let mut p = s.try_borrow_mut().map_err(|_| busy("parallel._child"))?;
    p.hub = None;
    if let Some(mut link) = p.link.take() {
        link.flush();
    }
    Ok(())
}

/// `localip([names]) -> ip | nil`
fn localip(_: &Lua, names: Option<Table>) -> Result<Option<String>> {
    local_ip(names)
}

/// The first IPv4 address of the named interfaces (or of any non-loopback interface that is up).
fn local_ip(names: Option<Table>) -> Result<Option<String>> {
    let wanted: Option<Vec<String>> = match names {
        Some(t) => Some(t.sequence_values::<String>().collect::<Result<_>>()?),
        None => None,
    };
    let Ok(addrs) = nix::ifaddrs::getifaddrs() else {
        return Ok(None);
    };
    let mut found: Vec<(usize, String)> = Vec::new();
    for ifa in addrs {
        let Some(v4) = ifa.address.as_ref().and_then(|a| a.as_sockaddr_in()) else {
            continue;
        };
        let ip = v4.ip();
        let rank = match &wanted {
            Some(w) => match w.iter().position(|n| *n == ifa.interface_name) {
                Some(r) => r,
                None => continue,
            },
            None if ip.is_loopback() => continue,
            None => 0,
        };
        found.push((rank, ip.to_string()));
    }
    found.sort_by_key(|(r, _)| *r);
    Ok(found.into_iter().next().map(|(_, ip)| ip))
}
