//! An engine's side: connect to the controller, then run each task the controller sends through
//! the Lua handler (lua/cluster/engine.lua) and send back what it returned or raised. A second
//! connection beats every second from its own thread, so that the controller knows a busy engine
//! from a dead one, and the engine knows when the controller has gone.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use mlua::{Function, Lua, Value};

use super::peer::{self, Peer, recv_frames};
use super::protocol::{BEAT, BEAT_TIMEOUT, Bootstrap, Msg, Role, rss_kb};
use super::value;
use crate::error::{Error, Named, Result};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Beats until the controller stops answering, then ends the process: nothing else would.
fn beat(endpoint: String, secret: Vec<u8>, engine: u32) {
    let Ok(p) = peer::connect(&endpoint, &secret, Role::Beat { engine }, CONNECT_TIMEOUT, None) else {
        eprintln!("cluster engine {engine}: cannot open the heartbeat connection; ending");
        // SAFETY: ends the process without running anything else.
        unsafe { libc::_exit(1) };
    };
    let mut last_ack = Instant::now();
    loop {
        let _ = p.socket.send(Msg::Beat { rss_kb: rss_kb(0) }.encode(), zmq::DONTWAIT);
        let until = Instant::now() + BEAT;
        while Instant::now() < until {
            let left = until.saturating_duration_since(Instant::now());
            match recv_frames(&p.socket, Some(left), false) {
                Ok(Some(frames)) => {
                    if let Some((Msg::BeatAck, _)) = frames.first().and_then(|f| Msg::split(f)) {
                        last_ack = Instant::now();
                    }
                }
                Ok(None) => {}
                Err(_) => std::thread::sleep(left),
            }
        }
        if last_ack.elapsed() > BEAT_TIMEOUT {
            eprintln!("cluster engine {engine}: the controller stopped answering; ending");
            // SAFETY: as above.
            unsafe { libc::_exit(1) };
        }
    }
}

/// Serves tasks until the controller says quit. `handler(task)` returns `ok, value`.
pub fn serve(lua: &Lua, boot: &Bootstrap, handler: Function) -> mlua::Result<()> {
    const M: &str = "cluster._engine";
    let p = peer::connect(
        &boot.endpoint,
        &boot.secret,
        Role::Engine { slot: boot.slot },
        CONNECT_TIMEOUT,
        None,
    )
    .named(M)?;
    let (endpoint, secret, id) = (boot.endpoint.clone(), boot.secret.clone(), p.id);
    std::thread::Builder::new()
        .name("cluster-beat".into())
        .spawn(move || beat(endpoint, secret, id))
        .map_err(|e| Error::io(format!("cannot start the heartbeat: {e}")).named(M))?;
    lua.globals().set("__engineid", id)?;
    let shm_run = p.shm_run.clone();
    CONNECTION.with(|c| *c.borrow_mut() = Some(p));
    loop {
        let got = CONNECTION.with(|c| match c.borrow().as_ref() {
            Some(p) => recv_frames(&p.socket, None, false).map(Some),
            None => Ok(None),
        });
        let Some(got) = got.named(M)? else {
            // flush() closed the connection: the process is ending.
            return Ok(());
        };
        let Some(mut frames) = got else { continue };
        let first = frames.remove(0);
        let Some((msg, body)) = Msg::split(&first) else {
            continue;
        };
        match msg {
            Msg::Run { task } => run_one(lua, shm_run.as_deref(), &handler, task, body, frames)?,
            Msg::Quit => return Ok(()),
            _ => {}
        }
    }
}

thread_local! {
    /// The engine's connection, outside the loop so that `flush` can close it from a task.
    static CONNECTION: RefCell<Option<Peer>> = const { RefCell::new(None) };
}

/// Closes the connection, waiting (up to its linger time) until what was sent has left: an
/// engine that ends itself (`os.exit` in a task) does not lose the results it sent just before.
pub fn flush() {
    let p = CONNECTION.with(|c| c.borrow_mut().take());
    drop(p);
}

fn run_one(
    lua: &Lua,
    shm: Option<&str>,
    handler: &Function,
    task: u64,
    body: &[u8],
    raw: Vec<zmq::Message>,
) -> mlua::Result<()> {
    let t0 = Instant::now();
    let (ok, result) = match value::decode(lua, body, raw, "cluster engine", false) {
        Ok(v) => match handler.call::<(bool, Value)>(v) {
            Ok(r) => r,
            Err(e) => (false, Value::String(lua.create_string(e.to_string())?)),
        },
        Err(e) => (
            false,
            Value::String(lua.create_string(format!("the task could not be read: {e}"))?),
        ),
    };
    let encoded = match value::encode(lua, &result, shm) {
        Ok(enc) => (ok, enc),
        Err(e) => {
            let why = Value::String(lua.create_string(format!("the result cannot be sent back: {e}"))?);
            (false, value::encode(lua, &why, None)?)
        }
    };
    let head = Msg::Finished {
        task,
        ok: encoded.0,
        ran_us: t0.elapsed().as_micros() as u64,
    }
    .encode();
    CONNECTION.with(|c| match c.borrow().as_ref() {
        Some(p) => encoded.1.send(&p.socket, &head).named("cluster engine"),
        None => Ok(()),
    })
}

/// The bootstrap a launched engine reads on its stdin (it then also ends when stdin closes).
pub fn bootstrap_from_stdin() -> Result<Bootstrap> {
    let line = crate::process::stdin::read_line_from_stdin()?;
    let boot = Bootstrap::parse(&line).ok_or_else(|| Error::argument("this process was not started by thcluster"))?;
    crate::process::stdin::watch_stdin();
    Ok(boot)
}
