//! Building a Lua state the way `th` wants it: the full LuaJIT standard library, our module
//! searchers, the native modules compiled into the binary, and (for `th`) trepl's globals. Built
//! with the `module` feature, the same library is one Lua C module for a stock LuaJIT (`module.rs`).

pub mod embedded;
pub mod errors;
pub mod malloc;
#[cfg(feature = "module")]
mod module;
pub mod paths;
pub mod search_path;
pub mod settings_module;
pub mod sys;

use std::sync::Arc;

use mlua::{Function, Lua, Result, Table};

use crate::calls;

/// A native module compiled into the binary: `require(name)` returns what `open` builds.
pub type NativeOpen = fn(&Lua) -> Result<Table>;

/// Native modules reachable through `package.preload`, first in `require`'s search order.
pub const NATIVE_MODULES: &[(&str, NativeOpen)] = &[
    ("libpaths", paths::open),
    ("libsys", sys::open),
    ("libsettings", settings_module::open),
    ("libtorch", crate::torch::open),
    ("libparallel", crate::parallel::open),
    ("libcluster", crate::cluster::open),
    ("libipc", |lua| crate::ipc::open(lua, thread_state_maker)),
    ("libthreads", |lua| crate::threads::open(lua, thread_state_maker)),
    ("libcutorch", crate::cuda::lua::open),
    ("libnccl", crate::cuda::nccl::open),
    ("libimage", crate::image::open),
    ("libtds", crate::tds::open),
];

/// The Lua C module that holds every native module: one shared library, so that all of them share
/// one copy of the Rust side (its userdata types, its per-state data). luarocks installs it as
/// `lib/lua/5.1/luatorch/core.so`, next to one small Lua file per native module that opens it
/// (`libtorch.lua`: `return require('luatorch.core').open('libtorch')`).
pub const CORE_MODULE: &str = "luatorch.core";

/// A fresh Lua state with the standard library (ffi, jit, bit and debug included), and `require`
/// set up to find, in order: native modules, the embedded `lua/` files, `LUA_PATH`/`LUA_CPATH`,
/// the current directory, then the luarocks trees.
pub fn new_state() -> Result<Lua> {
    // SAFETY: `unsafe_new` only lifts mlua's sandbox (ffi, debug, loading C modules), which a Torch
    // runtime needs; memory safety of the Rust side is unaffected.
    let lua = unsafe { Lua::unsafe_new() };
    crate::reserve::guard_lua(&lua)?;
    // Start-up allocates little that is garbage; collecting during it only costs time.
    lua.gc_stop();
    install_modules(&lua)?;
    Ok(lua)
}

/// A fresh state as `new_state` makes it, searching what another state searches, its collector
/// running: `ipc.map`'s and `threads`' workers find the modules their caller finds (a stock
/// LuaJIT's luarocks tree among them), and their garbage is collected as they run.
pub fn new_state_with(paths: &SearchPaths) -> Result<Lua> {
    let lua = new_state()?;
    paths.apply(&lua)?;
    // new_state stops the collector for start-up; a worker's state is used as it comes.
    lua.gc_restart();
    Ok(lua)
}

/// How `ipc.map` and `threads` make their threads' states: fresh ones that search what `lua` searches.
fn thread_state_maker(lua: &Lua) -> Result<crate::ipc::map::NewState> {
    let paths = SearchPaths::of(lua)?;
    Ok(Arc::new(move || new_state_with(&paths)))
}

/// A state's `package.path` and `package.cpath`, to hand to another state.
#[derive(Clone, Debug)]
pub struct SearchPaths {
    path: Vec<u8>,
    cpath: Vec<u8>,
}

impl SearchPaths {
    pub fn of(lua: &Lua) -> Result<SearchPaths> {
        let package: Table = lua.globals().get("package")?;
        let get = |key: &str| -> Result<Vec<u8>> { Ok(package.get::<mlua::LuaString>(key)?.as_bytes().to_vec()) };
        Ok(SearchPaths {
            path: get("path")?,
            cpath: get("cpath")?,
        })
    }

    pub fn apply(&self, lua: &Lua) -> Result<()> {
        let package: Table = lua.globals().get("package")?;
        package.set("path", lua.create_string(&self.path)?)?;
        package.set("cpath", lua.create_string(&self.cpath)?)
    }
}

/// Registers the native modules and searchers in an existing state. Used by `new_state` and by
/// anything that hosts our modules in a state it did not create. As a Lua C module (feature
/// `module`) the host's own search paths stay as they are, and `require` finds our Lua files where
/// luarocks installed them.
pub fn install_modules(lua: &Lua) -> Result<()> {
    errors::install_string_errors(lua)?;
    crate::ipc::share_handles();
    let package: Table = lua.globals().get("package")?;
    let preload: Table = package.get("preload")?;
    for (name, open) in NATIVE_MODULES {
        let open = *open;
        // calls: one loader per native module, made here for each, capturing its open
        preload.set(*name, lua.create_function(move |lua, ()| open(lua))?)?;
    }
    // Never the shared library from a luarocks tree: a second copy of the Rust side in one state
    // would not know this copy's userdata.
    preload.set(CORE_MODULE, calls::function(lua, load_core)?)?;
    if cfg!(not(feature = "module")) {
        search_path::configure(lua, &package)?;
        embedded::install_searcher(lua, &package)?;
    }
    Ok(())
}

/// What `require 'luatorch.core'` returns: `names`, the native modules in it, and `open(name)`,
/// which builds one of them.
pub fn core_table(lua: &Lua) -> Result<Table> {
    crate::ipc::share_handles();
    let t = lua.create_table()?;
    t.set(
        "names",
        lua.create_sequence_from(NATIVE_MODULES.iter().map(|(name, _)| *name))?,
    )?;
    calls::add(lua, &t, "open", core_open)?;
    Ok(t)
}

/// `require 'luatorch.core'`'s loader.
fn load_core(lua: &Lua, (): ()) -> Result<Table> {
    core_table(lua)
}

/// `core.open(name) -> module`: builds the native module `name`.
fn core_open(lua: &Lua, name: mlua::LuaString) -> Result<Table> {
    let name = name.to_string_lossy();
    match NATIVE_MODULES.iter().find(|(n, _)| *n == name) {
        Some((_, open)) => open(lua),
        None => {
            let known: Vec<&str> = NATIVE_MODULES.iter().map(|(n, _)| *n).collect();
            Err(mlua::Error::runtime(format!(
                "{CORE_MODULE}.open: no native module '{name}' (there are {})",
                known.join(", ")
            )))
        }
    }
}

/// Loads trepl's environment, as `th` does before running anything: `torch`, `paths`, `sys` and
/// `xlua` as globals, the table-printing `print`, and the small helpers Torch-era scripts assume.
pub fn load_th_environment(lua: &Lua) -> Result<()> {
    let require: Function = lua.globals().get("require")?;
    let loaded = require.call::<()>("trepl");
    lua.gc_restart();
    loaded
}
