//! The `.t7` format: Torch7's `File:writeObject`/`readObject` over any byte stream.
//!
//! Layers, bottom up: `stream` (memory, disk, pipe bytes), `codec` (THFile's typed binary/ASCII
//! elements and error modes, plus the per-File reference tables), `write`/`read` (walking Lua
//! values through mlua: tags, references, torch classes, tensors, functions). `bytecode` checks
//! function dumps before LuaJIT sees them. `crate::torch::file` puts the torch.File classes on top.
//!
//! Other Rust code sends Lua values in this format with [`serialize`] and [`deserialize`].

pub mod ascii;
pub mod bytecode;
pub mod codec;
pub mod context;
pub mod file_object;
pub mod in_memory;
pub mod plain;
pub mod read;
pub mod refs;
pub mod stream;
pub mod tags;
pub mod write;

// The entry points other modules use, under the paths they have always had.
pub use context::{DeviceClasses, device_classes, set_device_classes};
pub use in_memory::{
    Mode, deserialize, deserialize_beside, deserialize_beside_owned, deserialize_with, serialize, serialize_beside,
    serialize_with,
};
