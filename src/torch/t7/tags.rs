//! The type tags that open every object in the `.t7` encoding.

pub const TYPE_NIL: i32 = 0;
pub const TYPE_NUMBER: i32 = 1;
pub const TYPE_STRING: i32 = 2;
pub const TYPE_TABLE: i32 = 3;
pub const TYPE_TORCH: i32 = 4;
pub const TYPE_BOOLEAN: i32 = 5;
/// Legacy: bytecode and upvalue values, no index (read only).
pub const TYPE_FUNCTION: i32 = 6;
/// Legacy: index, bytecode and upvalue values (read only).
pub const LEGACY_TYPE_RECUR_FUNCTION: i32 = 7;
/// What Torch writes for Lua functions: index, bytecode, `{name, id, value}` upvalue entries.
pub const TYPE_RECUR_FUNCTION: i32 = 8;
/// Ours, within one process only: a handle passed beside the bytes (see `codec::Handles`).
pub const TYPE_HANDLE: i32 = 100;
