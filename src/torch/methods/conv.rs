//! torch.conv2, xcorr2, conv3 and xcorr3 (`kernels::conv`), as functions and as methods.
//!
//! Torch7's forms (cwrap, for every type with maths): `torch.conv2([res,] x, k [, 'V'|'F'])`,
//! where x and k are an image and a kernel (2-D, 2-D), n planes and n kernels (3-D, 3-D: plane i
//! with kernel i), or n planes and an m x n set of kernels (3-D, 4-D: m planes, each summed over
//! the input planes); conv3 the same one dimension up. The option is read by its first letter,
//! 'V' (valid, the default) or 'F' (full). The method is the same function: `x:conv2(k)` returns
//! a new tensor and `res:conv2(x, k)` writes into res. All tensors must have one type. The table
//! names each op's dimensions and orientation; `methods::ops` installs `convolution` for them.

use mlua::{Lua, MultiValue, Result};

use super::convention::one;
use crate::args::Args;
use crate::error::Named;
use crate::torch::base::tensor::Tensor;
use crate::torch::construct;
use crate::torch::forms::bind::{Mode, bind};
use crate::torch::forms::computes::Computes;
use crate::torch::forms::table::Entry;
use crate::torch::kernels::conv::{self as kernel, Extent};
use crate::torch::userdata::{Host, push_tensor, set_view};

/// conv2, xcorr2, conv3, xcorr3: the dimensions and orientation the bound form names.
pub(super) fn convolution(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let name = e.name;
    let b = bind::<Host>(&a, mode, e)?;
    let Computes::Convolution { dims, orientation } = b.computes() else {
        unreachable!("{name}: not a convolution")
    };
    let x = b.source().expect("the input").clone();
    let k = b.tensor(0).expect("the kernel").clone();
    // The forms admit only 'V' and 'F' (a left-out option is 'V').
    let extent = Extent::from_letter(b.letter(0)).unwrap_or(Extent::Valid);
    let plan = kernel::plan(&x, &k, dims, extent).named(name)?;
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
