//! What a File keeps across readObject/writeObject calls to share objects (the reference tables),
//! and what travels beside the bytes instead of in them (large storages, handles).

use crate::torch::base::dtype::DType;
use crate::torch::base::storage::Storage;

/// What the writer keys references on: Lua objects by address, storages by their buffer, so
/// that two tensors over one storage write it once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Identity {
    Lua(usize),
    Storage(usize),
}

/// Reference bookkeeping for readObject/writeObject, one per File and kept across calls. Lua
/// objects are held in Lua tables, not as Rust values: mlua on LuaJIT can hold only some tens of
/// thousands of references at a time, and a file can hold millions of objects.
pub struct Refs {
    /// referenced(false) sets this off: indices are still written, nothing is shared.
    pub enabled: bool,
    /// Last index given to a table, torch object or function (pre-incremented: the first is 1).
    pub counter: i32,
    /// Write side: identity -> index.
    pub written: std::collections::HashMap<Identity, i32>,
    /// Write side: index -> object, keeping written objects alive so that no identity is reused.
    pub keep: Option<mlua::Table>,
    pub keep_storages: Vec<Storage>,
    /// Write side: `debug.upvalueid` -> small id.
    pub upvalue_ids: std::collections::HashMap<usize, i32>,
    /// Read side: index -> object.
    pub read: Option<mlua::Table>,
    /// Read side: upvalue id -> the function holding that cell, and the upvalue's index there.
    pub upvalue_funcs: Option<mlua::Table>,
    pub upvalue_index: std::collections::HashMap<i64, i64>,
}

impl Default for Refs {
    fn default() -> Refs {
        Refs {
            enabled: true,
            counter: 0,
            written: Default::default(),
            keep: None,
            keep_storages: Vec::new(),
            upvalue_ids: Default::default(),
            read: None,
            upvalue_funcs: None,
            upvalue_index: Default::default(),
        }
    }
}

/// The table in `slot`, made on first use.
pub fn lua_table(lua: &mlua::Lua, slot: &mut Option<mlua::Table>) -> mlua::Result<mlua::Table> {
    match slot {
        Some(t) => Ok(t.clone()),
        None => {
            let t = lua.create_table()?;
            *slot = Some(t.clone());
            Ok(t)
        }
    }
}

/// Storages that travel beside the byte stream: the writer writes the element count of every
/// storage of at least `min_bytes` bytes but not its data, and lists the storage in `written`;
/// the reader takes such storages, in the same order, from `to_read`. Only parallel's own wire
/// uses this; files on disk never do.
#[derive(Default)]
pub struct OutOfBand {
    pub min_bytes: usize,
    pub written: Vec<Storage>,
    pub to_read: std::collections::VecDeque<Storage>,
    /// Within one process (ipc threads): userdata handles that travel by reference.
    pub handles: Option<Handles>,
    /// Refuse functions with upvalues (ipc's rule, unless the caller asked for them by value).
    pub refuse_upvalues: bool,
    /// Every device storage goes beside the stream as itself, whatever its size (no host copy):
    /// the transport shares it (ipc threads), passes it by CUDA IPC handle (parallel, on one
    /// machine) or copies it (between machines).
    pub device_storages: bool,
}

/// A userdata value that another Lua state of this process can push for itself (an ipc queue,
/// channel or mutex: one shared object, a new userdata per state).
pub trait Handle: Send + Sync {
    fn push(&self, lua: &mlua::Lua) -> mlua::Result<mlua::Value>;

    /// A copy of the object for a receiver that gets copies (threads.serialize); None when the
    /// object is shared even then (a queue, a mutex: copying one would make it another object).
    fn duplicate(&self) -> Option<crate::error::Result<std::sync::Arc<dyn Handle>>> {
        None
    }
}

/// Recognises the userdata that travel as handles.
pub type HandleOf = fn(&mlua::AnyUserData) -> Option<std::sync::Arc<dyn Handle>>;

pub struct Handles {
    pub of: HandleOf,
    pub written: Vec<std::sync::Arc<dyn Handle>>,
    pub to_read: std::collections::VecDeque<std::sync::Arc<dyn Handle>>,
}

impl OutOfBand {
    /// Whether a storage of `n` elements of `dtype` goes beside the stream.
    pub fn carries(&self, dtype: DType, n: usize) -> bool {
        n.saturating_mul(dtype.size_of()) >= self.min_bytes
    }
}
