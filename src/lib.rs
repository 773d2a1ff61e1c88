//! luatorch: a Torch7-style runtime on LuaJIT.
//!
//! The library builds Lua states with the Torch modules in them; the `th` binary (src/main.rs) is a
//! thin command line over it.

pub mod args;
pub mod calls;
pub mod cluster;
pub mod cuda;
pub mod error;
pub mod fastcall;
pub mod image;
pub mod interrupt;
pub mod ipc;
pub mod jupyter;
pub mod parallel;
pub mod process;
pub mod repl;
pub mod reserve;
pub mod rocks;
pub mod runtime;
pub mod settings;
pub mod tds;
pub mod threads;
pub mod torch;
pub mod wire;
