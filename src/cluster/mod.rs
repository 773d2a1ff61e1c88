//! A cluster of persistent `th` engines, in the manner of IPython parallel: `thcluster` runs the
//! controller (`controller.rs`) and starts the engines (`launcher.rs`); `require 'cluster'`
//! (lua/cluster) drives them through `libcluster`, which this module opens: the client's
//! connection (`client.rs`) and the engine's loop (`engine.rs`). Peers meet through a connection
//! file (`connfile.rs`) and speak `protocol.rs`; task values travel as `value.rs` frames them.

pub mod cli;
pub mod client;
pub mod connfile;
pub mod controller;
pub mod engine;
pub mod frames;
pub mod launcher;
pub mod peer;
pub mod protocol;
pub mod shm;
pub mod value;
pub mod watch;

use std::time::Duration;

use mlua::{Function, Lua, Result, Table};

use crate::calls;
use crate::error::{Error, Named};

const DEFAULT_PROFILE: &str = "default";

pub fn open(lua: &Lua) -> Result<Table> {
    let t = lua.create_table()?;
    calls::add(lua, &t, "connect", connect)?;
    calls::add(lua, &t, "serve", serve)?;
    calls::add(lua, &t, "serve_file", serve_file)?;
    calls::add(lua, &t, "flush", flush)?;
    calls::add(lua, &t, "connection_file", connection_file)?;
    Ok(t)
}

/// `connect([profile], [timeout]) -> client`: the client of the profile's controller (10 s to
/// answer without a timeout).
fn connect(_: &Lua, (profile, timeout): (Option<String>, Option<f64>)) -> Result<client::Client> {
    const M: &str = "cluster.client";
    let profile = profile.unwrap_or_else(|| DEFAULT_PROFILE.into());
    let timeout = match timeout {
        Some(s) if s.is_finite() && s > 0.0 => Duration::from_secs_f64(s),
        Some(s) => return Err(Error::argument(format!("bad timeout {s}")).named(M)),
        None => Duration::from_secs(10),
    };
    client::Client::connect(&profile, timeout).named(M)
}

/// `serve(handler)`: an engine's loop, started by the cluster's launcher (its bootstrap on
/// stdin).
fn serve(lua: &Lua, handler: Function) -> Result<()> {
    let boot = engine::bootstrap_from_stdin().named("cluster._engine")?;
    engine::serve(lua, &boot, handler)
}

/// `serve_file(path, profile, handler)`: an engine's loop, from a connection file.
fn serve_file(lua: &Lua, (path, profile, handler): (String, String, Function)) -> Result<()> {
    const M: &str = "cluster._engine_file";
    let conn = connfile::read_path(std::path::Path::new(&path), &profile).named(M)?;
    let boot = protocol::Bootstrap {
        endpoint: conn.endpoint.clone(),
        slot: 0,
        secret: conn.secret_bytes().named(M)?,
    };
    engine::serve(lua, &boot, handler)
}

/// `flush()`: what the engine's output holds goes out.
fn flush(_: &Lua, (): ()) -> Result<()> {
    engine::flush();
    Ok(())
}

/// `connection_file([profile]) -> path`
fn connection_file(_: &Lua, profile: Option<String>) -> Result<String> {
    let p = connfile::path(profile.as_deref().unwrap_or(DEFAULT_PROFILE)).named("cluster.connection_file")?;
    Ok(p.to_string_lossy().into_owned())
}
