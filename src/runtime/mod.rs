//! Building a Lua state the way `th` wants it: the full LuaJIT standard library, our module
//! searchers, the native modules compiled into the binary, and (for `th`) trepl's globals.

pub mod embedded;
pub mod errors;
pub mod paths;
mod search_path;
pub mod sys;

use mlua::{Function, Lua, Result, Table};

/// A native module compiled into the binary: `require(name)` returns what `open` builds.
pub type NativeOpen = fn(&Lua) -> Result<Table>;

/// Native modules reachable through `package.preload`, first in `require`'s search order.
pub const NATIVE_MODULES: &[(&str, NativeOpen)] = &[
    ("libpaths", paths::open),
    ("libsys", sys::open),
    ("libtorch", crate::torch::open),
    ("libparallel", crate::parallel::open),
    ("libipc", crate::ipc::open),
    ("libcutorch", crate::cuda::lua::open),
];

/// A fresh Lua state with the standard library (ffi, jit, bit and debug included), and `require`
/// set up to find, in order: native modules, the embedded `lua/` files, `LUA_PATH`/`LUA_CPATH`,
/// the current directory, then the luarocks trees.
pub fn new_state() -> Result<Lua> {
    // SAFETY: `unsafe_new` only lifts mlua's sandbox (ffi, debug, loading C modules), which a Torch
    // runtime needs; memory safety of the Rust side is unaffected.
    let lua = unsafe { Lua::unsafe_new() };
    // Start-up allocates little that is garbage; collecting during it only costs time.
    lua.gc_stop();
    install_modules(&lua)?;
    Ok(lua)
}

/// Registers the native modules and searchers in an existing state. Used by `new_state` and by
/// anything that hosts our modules in a state it did not create.
pub fn install_modules(lua: &Lua) -> Result<()> {
    errors::install_string_errors(lua)?;
    let package: Table = lua.globals().get("package")?;
    let preload: Table = package.get("preload")?;
    for (name, open) in NATIVE_MODULES {
        let open = *open;
        preload.set(*name, lua.create_function(move |lua, ()| open(lua))?)?;
    }
    search_path::configure(lua, &package)?;
    embedded::install_searcher(lua, &package)?;
    Ok(())
}

/// Loads trepl's environment, as `th` does before running anything: `torch`, `paths`, `sys` and
/// `xlua` as globals, the table-printing `print`, and the small helpers Torch-era scripts assume.
pub fn load_th_environment(lua: &Lua) -> Result<()> {
    let require: Function = lua.globals().get("require")?;
    let loaded = require.call::<()>("trepl");
    lua.gc_restart();
    loaded
}
