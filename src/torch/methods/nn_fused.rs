//! The fused nn passes of `torch._nn` (kernels::nn::norm, batchnorm, loss): softmax and
//! log-softmax, batch normalisation and the criterions, one native function each, called by the
//! Lua modules (lua/nn/SoftMax.lua, BatchNormalization.lua, the criterions) with contiguous float
//! or double operands. Dimensions and class numbers are 1-based, as Lua counts; an optional
//! operand is nil when absent.

use mlua::{Lua, MultiValue, Result, Table, Value};

use super::convention::{add, none};
use crate::args::{Args, arg, error, int_arg, number_arg, type_name};
use crate::error::Named;
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::nn::batchnorm::{self as bn, BatchNorm, Gradients};
use crate::torch::kernels::nn::loss::{self as loss, Pointwise};
use crate::torch::kernels::nn::norm::{self as norm, Soft};
use crate::torch::tensor_args::tensor_arg;

/// The tensor at `pos`, or None for nil.
fn opt_tensor(a: &Args, pos: usize, method: &str) -> Result<Option<Tensor>> {
    match arg(a, pos) {
        Value::Nil => Ok(None),
        _ => tensor_arg(a, pos, method).map(Some),
    }
}

fn bool_arg(a: &Args, pos: usize, method: &str) -> Result<bool> {
    match arg(a, pos) {
        Value::Boolean(b) => Ok(*b),
        v => Err(error(
            method,
            format!("bad argument #{pos} (boolean expected, got {})", type_name(v)),
        )),
    }
}

/// A 1-based dimension at `pos`, as 0-based.
fn dim_arg(a: &Args, pos: usize, method: &str) -> Result<usize> {
    let d = int_arg(a, pos, method)?;
    usize::try_from(d - 1).map_err(|_| error(method, format!("bad argument #{pos} (dimension {d} out of range)")))
}

fn numbers(v: &[f64]) -> Result<MultiValue> {
    Ok(v.iter().map(|&x| Value::Number(x)).collect())
}

/// A pointwise loss's name at `pos` and its margin at `margin_pos` (margin's only).
fn pointwise(a: &Args, pos: usize, margin_pos: usize, method: &str) -> Result<Pointwise> {
    let name = match arg(a, pos) {
        Value::String(s) => s.to_string_lossy(),
        v => {
            return Err(error(
                method,
                format!("bad argument #{pos} (loss name expected, got {})", type_name(v)),
            ));
        }
    };
    let margin = match arg(a, margin_pos) {
        Value::Nil => 1.0,
        _ => number_arg(a, margin_pos, method)?,
    };
    Pointwise::named(&name, margin).ok_or_else(|| {
        error(
            method,
            format!("unknown loss '{name}' (mse, abs, smoothl1, bce, kldiv or margin)"),
        )
    })
}

/// The batch normalisation operands at positions `from` ..: weight, bias, running mean, running
/// variance, saved mean, saved deviation (each nil or a tensor as `BatchNorm` says), then train
/// and eps.
struct BnArgs {
    t: [Option<Tensor>; 6],
    train: bool,
    eps: f64,
}

impl BnArgs {
    fn get(a: &Args, from: usize, method: &str) -> Result<BnArgs> {
        let mut t: [Option<Tensor>; 6] = Default::default();
        for (i, slot) in t.iter_mut().enumerate() {
            *slot = opt_tensor(a, from + i, method)?;
        }
        for (i, what) in [(2, "running mean"), (3, "running variance")] {
            if t[i].is_none() {
                return Err(error(
                    method,
                    format!("bad argument #{} (the {what} is needed)", from + i),
                ));
            }
        }
        Ok(BnArgs {
            t,
            train: bool_arg(a, from + 6, method)?,
            eps: number_arg(a, from + 7, method)?,
        })
    }

    fn of<'a>(&'a self, input: &'a Tensor) -> BatchNorm<'a> {
        let [w, b, rm, rv, sm, ss] = &self.t;
        BatchNorm {
            input,
            weight: w.as_ref(),
            bias: b.as_ref(),
            running_mean: rm.as_ref().expect("checked"),
            running_var: rv.as_ref().expect("checked"),
            save_mean: sm.as_ref(),
            save_std: ss.as_ref(),
            train: self.train,
            eps: self.eps,
        }
    }
}

pub fn install(lua: &Lua, t: &Table) -> Result<()> {
    // softMax / logSoftMax(output, input, dim); *Backward(gradInput, gradOutput, output, dim).
    for (name, kind) in [("softMax", Soft::Max), ("logSoftMax", Soft::LogMax)] {
        let method = format!("torch._nn.{name}");
        let m = method.clone();
        t.raw_set(
            name,
            // calls: captures the softmax kind and the name it reports.
            lua.create_function(move |_, a: Args| {
                let (y, x) = (tensor_arg(&a, 1, &m)?, tensor_arg(&a, 2, &m)?);
                norm::softmax(kind, &y, &x, dim_arg(&a, 3, &m)?).named(&m)?;
                none()
            })?,
        )?;
        let m = format!("{method}Backward");
        t.raw_set(
            format!("{name}Backward"),
            // calls: captures the softmax kind and the name it reports.
            lua.create_function(move |_, a: Args| {
                let (gi, go, y) = (tensor_arg(&a, 1, &m)?, tensor_arg(&a, 2, &m)?, tensor_arg(&a, 3, &m)?);
                norm::softmax_backward(kind, &gi, &go, &y, dim_arg(&a, 4, &m)?).named(&m)?;
                none()
            })?,
        )?;
    }
    // batchNorm(output, input (N x C x S), weight, bias, running_mean, running_var, save_mean,
    // save_std, train, eps, momentum)
    add(lua, t, "batchNorm", |_, a: Args| {
        const M: &str = "torch._nn.batchNorm";
        let (y, x) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?);
        let b = BnArgs::get(&a, 3, M)?;
        bn::batch_norm_forward(&b.of(&x), &y, number_arg(&a, 11, M)?).named(M)?;
        none()
    })?;
    // batchNormBackward(input, gradOutput, weight, bias, running_mean, running_var, save_mean,
    // save_std, train, eps, gradInput, gradWeight, gradBias, scale): the gradients asked for
    // (non-nil) in one pass.
    add(lua, t, "batchNormBackward", |_, a: Args| {
        const M: &str = "torch._nn.batchNormBackward";
        let (x, go) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?);
        let b = BnArgs::get(&a, 3, M)?;
        let (gi, gw, gb) = (opt_tensor(&a, 11, M)?, opt_tensor(&a, 12, M)?, opt_tensor(&a, 13, M)?);
        let scale = match arg(&a, 14) {
            Value::Nil => 1.0,
            _ => number_arg(&a, 14, M)?,
        };
        let grads = Gradients {
            input: gi.as_ref(),
            weight: gw.as_ref(),
            bias: gb.as_ref(),
            scale,
        };
        bn::batch_norm_backward(&b.of(&x), &go, &grads).named(M)?;
        none()
    })?;
    // pointwiseLoss(name, input, target, weights, margin) -> the sum of the loss.
    add(lua, t, "pointwiseLoss", |_, a: Args| {
        const M: &str = "torch._nn.pointwiseLoss";
        let kind = pointwise(&a, 1, 5, M)?;
        let (x, y, w) = (tensor_arg(&a, 2, M)?, tensor_arg(&a, 3, M)?, opt_tensor(&a, 4, M)?);
        numbers(&[loss::pointwise_loss(kind, &x, &y, w.as_ref()).named(M)?])
    })?;
    // pointwiseGrad(name, gradInput, input, target, weights, norm, margin).
    add(lua, t, "pointwiseGrad", |_, a: Args| {
        const M: &str = "torch._nn.pointwiseGrad";
        let kind = pointwise(&a, 1, 7, M)?;
        let (g, x, y) = (tensor_arg(&a, 2, M)?, tensor_arg(&a, 3, M)?, tensor_arg(&a, 4, M)?);
        let w = opt_tensor(&a, 5, M)?;
        loss::pointwise_grad(kind, &g, &x, &y, w.as_ref(), number_arg(&a, 6, M)?).named(M)?;
        none()
    })?;
    // classNLL(input (N x C), target (N longs), weights, ignoreIndex) -> loss sum, total weight.
    add(lua, t, "classNLL", |_, a: Args| {
        const M: &str = "torch._nn.classNLL";
        let (x, y, w) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?, opt_tensor(&a, 3, M)?);
        let ignore = Some(int_arg(&a, 4, M)?);
        let (l, total) = loss::class_nll(&x, &y, w.as_ref(), ignore).named(M)?;
        numbers(&[l, total])
    })?;
    // classNLLBackward(gradInput, input, target, weights, ignoreIndex, norm).
    add(lua, t, "classNLLBackward", |_, a: Args| {
        const M: &str = "torch._nn.classNLLBackward";
        let (g, x, y) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?, tensor_arg(&a, 3, M)?);
        let w = opt_tensor(&a, 4, M)?;
        let ignore = Some(int_arg(&a, 5, M)?);
        loss::class_nll_backward(&g, &x, &y, w.as_ref(), ignore, number_arg(&a, 6, M)?).named(M)?;
        none()
    })?;
    // multiMargin(input, target, weights, p, margin) -> the sum (not divided by C).
    add(lua, t, "multiMargin", |_, a: Args| {
        const M: &str = "torch._nn.multiMargin";
        let (x, y, w) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?, opt_tensor(&a, 3, M)?);
        let p = power(&a, 4, M)?;
        numbers(&[loss::multi_margin(&x, &y, w.as_ref(), p, number_arg(&a, 5, M)?).named(M)?])
    })?;
    // multiMarginBackward(gradInput, input, target, weights, p, margin, g).
    add(lua, t, "multiMarginBackward", |_, a: Args| {
        const M: &str = "torch._nn.multiMarginBackward";
        let (g, x, y) = (tensor_arg(&a, 1, M)?, tensor_arg(&a, 2, M)?, tensor_arg(&a, 3, M)?);
        let w = opt_tensor(&a, 4, M)?;
        let p = power(&a, 5, M)?;
        loss::multi_margin_backward(&g, &x, &y, w.as_ref(), p, number_arg(&a, 6, M)?, number_arg(&a, 7, M)?)
            .named(M)?;
        none()
    })?;
    Ok(())
}

/// MultiMargin's p (1 or 2).
fn power(a: &Args, pos: usize, method: &str) -> Result<u32> {
    match int_arg(a, pos, method)? {
        p @ (1 | 2) => Ok(p as u32),
        p => Err(error(
            method,
            format!("bad argument #{pos} (p must be 1 or 2, got {p})"),
        )),
    }
}
