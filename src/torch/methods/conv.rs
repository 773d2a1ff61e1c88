//! torch.conv2, xcorr2, conv3 and xcorr3 (`kernels::conv`), as functions and as methods.
//!
//! Torch7's forms (cwrap, for every type with maths): `torch.conv2([res,] x, k [, 'V'|'F'])`,
//! where x and k are an image and a kernel (2-D, 2-D), n planes and n kernels (3-D, 3-D: plane i
//! with kernel i), or n planes and an m x n set of kernels (3-D, 4-D: m planes, each summed over
//! the input planes); conv3 the same one dimension up. The option is read by its first letter,
//! 'V' (valid, the default) or 'F' (full). The method is the same function: `x:conv2(k)` returns
//! a new tensor and `res:conv2(x, k)` writes into res. All tensors must have one type.

use mlua::{Lua, MultiValue, Result, Table};

use super::convention::{add, one};
use crate::error::Named;
use crate::torch::args::Args;
use crate::torch::base::tensor::Tensor;
use crate::torch::construct;
use crate::torch::forms::bind::{Mode, bind};
use crate::torch::forms::table::entry;
use crate::torch::kernels::conv::{self as kernel, Extent, Orientation};
use crate::torch::userdata::{Host, push_tensor, set_view};

fn convolution(lua: &Lua, a: Args, name: &str, n: usize, orientation: Orientation) -> Result<MultiValue> {
    let b = bind::<Host>(&a, Mode::Function, entry(name))?;
    let x = b.source().expect("the input").clone();
    let k = b.tensor(0).expect("the kernel").clone();
    // The forms admit only 'V' and 'F' (a left-out option is 'V').
    let extent = Extent::from_letter(b.letter(0)).unwrap_or(Extent::Valid);
    let plan = kernel::plan(&x, &k, n, extent).named(name)?;
    match b.result() {
        Some((v, r)) => {
            let mut r = r.clone();
            construct::resize(&mut r, &plan.size).named(name)?;
            set_view(v, r.clone())?;
            kernel::convolve(&r, &x, &k, &plan, orientation).named(name)?;
            one(v.clone())
        }
        None => {
            let out = Tensor::zeros(x.dtype, &plan.size).named(name)?;
            kernel::convolve(&out, &x, &k, &plan, orientation).named(name)?;
            one(push_tensor(lua, out)?)
        }
    }
}

fn conv2(lua: &Lua, a: Args) -> Result<MultiValue> {
    convolution(lua, a, "conv2", 2, Orientation::Convolution)
}

fn xcorr2(lua: &Lua, a: Args) -> Result<MultiValue> {
    convolution(lua, a, "xcorr2", 2, Orientation::Correlation)
}

fn conv3(lua: &Lua, a: Args) -> Result<MultiValue> {
    convolution(lua, a, "conv3", 3, Orientation::Convolution)
}

fn xcorr3(lua: &Lua, a: Args) -> Result<MultiValue> {
    convolution(lua, a, "xcorr3", 3, Orientation::Correlation)
}

pub fn install(lua: &Lua, tensor: &Table, functions: &Table) -> Result<()> {
    for table in [tensor, functions] {
        add(lua, table, "conv2", conv2)?;
        add(lua, table, "xcorr2", xcorr2)?;
        add(lua, table, "conv3", conv3)?;
        add(lua, table, "xcorr3", xcorr3)?;
    }
    Ok(())
}
