//! `libcutorch._nn`: the device side of `torch._nn` (Lua glue) for cunn, the same functions with
//! the same arguments on device tensors, so that lua/nn picks the table by the tensor's type
//! (nn.engine.kernels) and runs one code path: unfold, fold, maxPool, maxPoolBackward. The work
//! is `ops::nn`.

use mlua::{Lua, Result, Table};

use super::args::tensor_arg;
use crate::args::Args;
use crate::calls;
use crate::cuda::ops::nn as ops;
use crate::error::Named;
use crate::torch::methods::nn::{batch_arg, windows};

pub fn install(lua: &Lua, m: &Table) -> Result<()> {
    let t = lua.create_table()?;
    calls::add(lua, &t, "unfold", unfold)?;
    calls::add(lua, &t, "fold", fold)?;
    calls::add(lua, &t, "maxPool", max_pool)?;
    calls::add(lua, &t, "maxPoolBackward", max_pool_backward)?;
    m.set("_nn", t)
}

/// `unfold(columns, image, geometry [, batch])`
fn unfold(_: &Lua, a: Args) -> Result<()> {
    const M: &str = "cutorch._nn.unfold";
    let (cols, x) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?);
    ops::unfold(&cols, &x, &windows(&a, 3, M)?, batch_arg(&a, 4, M)?).named(M)
}

/// `fold(image, columns, geometry [, batch])`
fn fold(_: &Lua, a: Args) -> Result<()> {
    const M: &str = "cutorch._nn.fold";
    let (x, cols) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?);
    ops::fold(&x, &cols, &windows(&a, 3, M)?, batch_arg(&a, 4, M)?).named(M)
}

/// `maxPool(values (L x O), positions (L x O, CudaLongTensor), input, geometry)`
fn max_pool(_: &Lua, a: Args) -> Result<()> {
    const M: &str = "cutorch._nn.maxPool";
    let (v, p, x) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?, tensor_arg(&a, 3, M)?);
    ops::max_pool(&v, &p, &x, &windows(&a, 4, M)?).named(M)
}

/// `maxPoolBackward(gradInput (L x S), gradOutput (L x O), positions (L x O))`
fn max_pool_backward(_: &Lua, a: Args) -> Result<()> {
    const M: &str = "cutorch._nn.maxPoolBackward";
    let (gx, gy, p) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?, tensor_arg(&a, 3, M)?);
    ops::max_pool_backward(&gx, &gy, &p).named(M)
}
