//! Tensors and storages without Lua: element types, storages (host, device, mapped files), the
//! tensor geometry and its layouts, the random generator and Torch7's print format. Everything
//! above (methods, forms, kernels, the userdata) is built on these; nothing here knows mlua, which
//! `tests/architecture.rs` checks.

pub mod dtype;
pub mod layout;
pub mod mapped;
pub mod print;
pub mod random;
mod recycled;
pub mod storage;
pub mod tensor;
