//! `libnccl`: NCCL for Lua, under lua/nccl/init.lua (`require 'nccl'`).
//!
//! - `loader`: finds libnccl at run time and holds its functions.

pub mod loader;
