//! Running Lua code so that a failure comes back as one printable message with its traceback.

use mlua::{Function, IntoLuaMulti, Lua, MultiValue, Result};

use crate::calls;
use crate::error::message::message_of;

const HANDLER_KEY: &str = "luatorch.traceback_handler";

/// The embedded `luatorch.errors` module, which holds the Lua side of this plumbing.
fn errors_module(lua: &Lua) -> Result<mlua::Table> {
    let Some(chunk) = super::embedded::load_file(lua, "luatorch/errors.lua")? else {
        return Err(mlua::Error::runtime("luatorch/errors.lua is not embedded"));
    };
    chunk.call(())
}

/// The message handler: turns any error value into text and appends the traceback.
fn handler(lua: &Lua) -> Result<Function> {
    if let Ok(f) = lua.named_registry_value::<Function>(HANDLER_KEY) {
        return Ok(f);
    }
    let make: Function = errors_module(lua)?.get("traceback_handler")?;
    let f: Function = make.call(calls::function(lua, message)?)?;
    lua.set_named_registry_value(HANDLER_KEY, &f)?;
    Ok(f)
}

/// What a Lua call raised: its message followed by the stack traceback, as a script's user reads
/// it. Not a `crate::error::Error`: it is the script's own error, already in its final words.
#[derive(Debug)]
pub struct Raised(pub String);

impl std::fmt::Display for Raised {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Calls `f(args)`; on failure returns what it raised, with a stack traceback.
pub fn call_traced(
    lua: &Lua,
    f: &Function,
    args: impl IntoLuaMulti,
) -> Result<std::result::Result<MultiValue, Raised>> {
    let xpcall: Function = lua.globals().get("xpcall")?;
    let mut args = args.into_lua_multi(lua)?;
    args.push_front(mlua::Value::Function(handler(lua)?));
    args.push_front(mlua::Value::Function(f.clone()));
    let mut results = xpcall.call::<MultiValue>(args)?;
    let ok = matches!(results.pop_front(), Some(mlua::Value::Boolean(true)));
    if ok {
        Ok(Ok(results))
    } else {
        let msg = match results.pop_front() {
            Some(v) => v.to_string().unwrap_or_else(|_| "(unprintable error)".into()),
            None => "nil".into(),
        };
        Ok(Err(Raised(msg)))
    }
}

/// The message an error value carries, for Lua code: mlua raises errors from Rust functions as
/// userdata, while Torch code expects strings it can `:match()`. Other values pass unchanged.
pub fn lua_message(value: mlua::Value) -> mlua::Value {
    match value {
        mlua::Value::Error(err) => {
            let text = message_of(&err);
            // With Lua's heap full, a new string cannot be made: LuaJIT's own memory message
            // is interned from the start (no allocation finds it), and failing that the error
            // value itself goes back, which prints once memory is freed. Never nil.
            value_lua_string(&text)
                .or_else(|| value_lua_string("not enough memory"))
                .unwrap_or(mlua::Value::Error(err))
        }
        other => other,
    }
}

/// `message(v) -> v'`: [`lua_message`] for Lua code (the handler's and pcall's converter).
fn message(_: &Lua, v: mlua::Value) -> Result<mlua::Value> {
    Ok(lua_message(v))
}

thread_local! {
    static STRING_MAKER: std::cell::RefCell<Option<Lua>> = const { std::cell::RefCell::new(None) };
}

fn value_lua_string(text: &str) -> Option<mlua::Value> {
    STRING_MAKER.with(|m| {
        m.borrow()
            .as_ref()
            .and_then(|lua| lua.create_string(text).ok().map(mlua::Value::String))
    })
}

/// Makes `pcall`, `xpcall` and `coroutine.resume` hand Lua code string messages for errors raised
/// by Rust functions.
pub fn install_string_errors(lua: &Lua) -> Result<()> {
    STRING_MAKER.with(|m| {
        let mut m = m.borrow_mut();
        if m.is_none() {
            *m = Some(lua.clone());
        }
    });
    let convert = calls::function(lua, message)?;
    let install: Function = errors_module(lua)?.get("install_string_errors")?;
    install.call::<()>(convert)
}
