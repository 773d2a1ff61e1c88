//! The Lua-facing tensor and storage methods, one module per family of methods. They resolve the
//! Lua arguments, call the kernels (`crate::torch::kernels`), name the errors after the Lua
//! function, and hand back Lua values. Each module's `install` adds its functions to the method
//! tables that `lua/torch/init.lua` copies into every class.

use mlua::{Lua, Result, Table};

pub mod access;
pub mod alias;
pub mod callback;
pub mod conv;
pub mod convention;
pub mod copy;
pub mod factory;
pub mod index;
pub mod lapack;
pub mod linalg;
pub mod math;
pub mod nn;
mod nn_fused;
mod ops;
pub mod output;
pub mod random;
pub mod reduce;
pub mod shape;

// The calling convention under its old path, which crate::cuda and crate::torch::file use.
pub use convention::{Method, add, none, one, receiver};

/// Fills the method tables: `tensor` for all tensor classes, `storage` for all storage classes,
/// `internal` for helpers that `lua/torch` uses (fields of `libtorch`), and `functions` for
/// functions that become fields of the `torch` table as they are (`torch.manualSeed`, ...).
pub fn install(lua: &Lua, tensor: &Table, storage: &Table, internal: &Table, functions: &Table) -> Result<()> {
    shape::install::<crate::torch::userdata::Host>(lua, tensor)?;
    copy::install(lua, tensor, storage)?;
    access::install(lua, tensor, storage, internal)?;
    // The ops of the table of forms (maths, reductions, linear algebra, LAPACK, convolutions).
    ops::install(lua, tensor, functions)?;
    linalg::install(lua, functions)?;
    index::install(lua, tensor, functions)?;
    callback::install(lua, tensor)?;
    factory::install(lua, tensor, functions)?;
    random::install(lua, tensor, functions)?;
    alias::install(lua, tensor, functions)?;
    nn::install(lua, functions)?;
    Ok(())
}
