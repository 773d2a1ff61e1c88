//! The one way a Lua function is registered.
//!
//! The rule: every Lua function is a named Rust `fn` with a doc comment giving its Lua form,
//! registered by one line `calls::add(lua, &t, "name", name)?` where its module lists its
//! functions (the module's `open` or `register`); one handed to Lua code as a value rather than
//! listed in a table is `calls::function(lua, name)?`. An object's methods are named fns listed
//! in its `impl UserData` (`add_method("name", name)`): that is mlua's registration for objects,
//! and the same rule. No closure is passed to `create_function` for a module's functions.
//!
//! State a function needs comes from the Lua state's app data: the module's `open` puts it there
//! ([`keep`]), the function takes it out ([`state`]); not from a captured variable. mlua is built
//! without its `send` feature here, so the state may be an `Rc`.
//!
//! The exceptions, each with a one-line comment `// calls: <why>` on the line of its
//! `create_function(` or the one above (`// calls: captures the queue`): a closure that must
//! capture a per-call value (a callback made for one object or one call), and functions created
//! at run time per object. tests/architecture.rs checks that every `create_function(` outside
//! this file has one.

use mlua::{FromLuaMulti, Function, IntoLuaMulti, Lua, Result, Table};

/// Registers the named Rust function `f` as `table[name]` (`'static` on `A` and `R`: mlua keeps
/// the function for as long as Lua may call it).
pub fn add<A: FromLuaMulti + 'static, R: IntoLuaMulti + 'static>(
    lua: &Lua,
    table: &Table,
    name: &str,
    f: fn(&Lua, A) -> Result<R>,
) -> Result<()> {
    table.raw_set(name, function(lua, f)?)
}

/// The named Rust function `f` as a Lua function value, for one handed to Lua code rather than
/// listed in a table (a package searcher, a message converter).
pub fn function<A: FromLuaMulti + 'static, R: IntoLuaMulti + 'static>(
    lua: &Lua,
    f: fn(&Lua, A) -> Result<R>,
) -> Result<Function> {
    lua.create_function(f)
}

/// Puts a module's state in the Lua state, made by `make` the first time: a module opened again
/// in the same state keeps the state it had.
pub fn keep<T: 'static>(lua: &Lua, make: impl FnOnce() -> T) {
    if lua.app_data_ref::<T>().is_none() {
        lua.set_app_data(make());
    }
}

/// The state [`keep`] put in the Lua state, cloned (an `Rc` or a small value), so that a function
/// holds no borrow of mlua's app data while it runs: setting app data meanwhile would panic.
pub fn state<T: Clone + 'static>(lua: &Lua) -> Result<T> {
    match lua.app_data_ref::<T>() {
        Some(s) => Ok(s.clone()),
        None => Err(mlua::Error::runtime(format!(
            "{} is not in this Lua state (its module was not opened)",
            std::any::type_name::<T>()
        ))),
    }
}
