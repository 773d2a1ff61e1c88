//! `torch._nn`: the Lua side of nn's kernels (`kernels::nn`), called by lua/nn's shared passes
//! (lua/nn/engine/: windows, convolution, pooling; and Threshold.lua) with tensors they have made
//! contiguous. A window geometry comes as nn.engine.windows' table (`size`, `k`, `d`, `pad`, `dil`, `out`: one entry per
//! pooled dimension).

use mlua::{Lua, Result, Table, Value};

use super::convention::{add, none};
use crate::args::{Args, arg, error, int_arg, number_arg};
use crate::error::Named;
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::nn::{self as kernels, Windows};
use crate::torch::tensor_args::tensor_arg;

/// The geometry table at argument `pos`.
pub(crate) fn windows(a: &Args, pos: usize, method: &str) -> Result<Windows> {
    let Value::Table(g) = arg(a, pos) else {
        return Err(error(
            method,
            format!("bad argument #{pos} (window geometry table expected)"),
        ));
    };
    let list = |name: &str| -> Result<Vec<usize>> {
        let t: Table = g
            .get(name)
            .map_err(|_| error(method, format!("the geometry has no list '{name}'")))?;
        t.sequence_values::<i64>()
            .map(|v| {
                let v = v.map_err(|_| error(method, format!("the geometry's '{name}' must hold integers")))?;
                usize::try_from(v).map_err(|_| error(method, format!("the geometry's '{name}' must not be negative")))
            })
            .collect()
    };
    Windows::new(
        &list("size")?,
        &list("k")?,
        &list("d")?,
        &list("pad")?,
        &list("dil")?,
        &list("out")?,
    )
    .named(method)
}

/// The optional number of images whose columns lie side by side (`kernels::nn::unfold`): 1 when
/// absent.
pub(crate) fn batch_arg(a: &Args, pos: usize, method: &str) -> Result<usize> {
    match arg(a, pos) {
        Value::Nil => Ok(1),
        _ => {
            let n = int_arg(a, pos, method)?;
            usize::try_from(n)
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| error(method, format!("the batch must be positive, got {n}")))
        }
    }
}

pub fn install(lua: &Lua, functions: &Table) -> Result<()> {
    let t = lua.create_table()?;
    // unfold (im2col) and fold (col2im) take the same arguments: (columns or image, the other,
    // geometry [, batch]).
    type Pass = fn(&Tensor, &Tensor, &Windows, usize) -> crate::error::Result<()>;
    for (name, method, pass) in [
        ("unfold", "torch._nn.unfold", kernels::unfold as Pass),
        ("fold", "torch._nn.fold", kernels::fold as Pass),
    ] {
        // calls: captures the pass and the name it is registered under.
        let f = lua.create_function(move |_, a: Args| {
            let batch = batch_arg(&a, 4, method)?;
            pass(
                &tensor_arg(&a, 1, method)?,
                &tensor_arg(&a, 2, method)?,
                &windows(&a, 3, method)?,
                batch,
            )
            .named(method)?;
            none()
        })?;
        t.raw_set(name, f)?;
    }
    // The direct convolutions with unit steps (kernels::nn::conv), on contiguous operands:
    // convForward(output, input, weight, bias or nil, geometry),
    // convBackward(gradInput, gradOutput, weight, geometry),
    // convAccGrad(gradWeight, input, gradOutput, geometry, scale).
    add(lua, &t, "convForward", |_, a: Args| {
        const M: &str = "torch._nn.convForward";
        let (y, x, w) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?, tensor_arg(&a, 3, M)?);
        let bias = match arg(&a, 4) {
            Value::Nil => None,
            _ => Some(tensor_arg(&a, 4, M)?),
        };
        kernels::conv::conv_forward(&y, &x, &w, bias.as_ref(), &windows(&a, 5, M)?).named(M)?;
        none()
    })?;
    add(lua, &t, "convBackward", |_, a: Args| {
        const M: &str = "torch._nn.convBackward";
        let (gx, gy, w) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?, tensor_arg(&a, 3, M)?);
        kernels::conv::conv_backward(&gx, &gy, &w, &windows(&a, 4, M)?).named(M)?;
        none()
    })?;
    add(lua, &t, "convAccGrad", |_, a: Args| {
        const M: &str = "torch._nn.convAccGrad";
        let (gw, x, gy) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?, tensor_arg(&a, 3, M)?);
        kernels::conv::conv_acc_grad(&gw, &x, &gy, &windows(&a, 4, M)?, number_arg(&a, 5, M)?).named(M)?;
        none()
    })?;
    add(lua, &t, "maxPool", |_, a: Args| {
        const M: &str = "torch._nn.maxPool";
        let (values, positions, x) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?, tensor_arg(&a, 3, M)?);
        kernels::pool::max_pool(&values, &positions, &x, &windows(&a, 4, M)?).named(M)?;
        none()
    })?;
    // maxPoolBackward(gradInput (L x S), gradOutput (L x O), positions (L x O)).
    add(lua, &t, "maxPoolBackward", |_, a: Args| {
        const M: &str = "torch._nn.maxPoolBackward";
        let (gx, gy, pos) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?, tensor_arg(&a, 3, M)?);
        kernels::pool::max_pool_backward(&gx, &gy, &pos).named(M)?;
        none()
    })?;
    add(lua, &t, "threshold", |_, a: Args| {
        const M: &str = "torch._nn.threshold";
        let (y, x) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?);
        kernels::threshold(&y, &x, number_arg(&a, 3, M)?, number_arg(&a, 4, M)?).named(M)?;
        none()
    })?;
    add(lua, &t, "thresholdBackward", |_, a: Args| {
        const M: &str = "torch._nn.thresholdBackward";
        let (gi, x, go) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?, tensor_arg(&a, 3, M)?);
        kernels::threshold_backward(&gi, &x, &go, number_arg(&a, 4, M)?).named(M)?;
        none()
    })?;
    super::nn_fused::install(lua, &t)?;
    functions.raw_set("_nn", t)
}
