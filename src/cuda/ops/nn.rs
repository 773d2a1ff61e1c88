//! nn's window passes on device tensors (tensor operations layer): unfold (im2col), fold
//! (col2im), max pooling and its gradient, with the contracts of the host's
//! `torch::kernels::nn::{unfold, fold}` and `nn::pool::{max_pool, max_pool_backward}` (the
//! geometry is the same `Windows`), so that lua/nn runs one code path on either. The kernels
//! are in `kernels::source::nn`.

use super::operands::{addr, common_device, suffix};
use crate::cuda::kernels::{self, param};
use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::nn::Windows;

/// Most blocks of a launch (kernels loop over the rest).
const MAX_GRID: u32 = 8192;

/// The kernels' geometry (`NnWin` of the program).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct NnWin {
    size: [i64; 3],
    k: [i64; 3],
    d: [i64; 3],
    pad: [i64; 3],
    dil: [i64; 3],
    out: [i64; 3],
}

impl NnWin {
    fn of(w: &Windows) -> NnWin {
        let c = |a: [usize; 3]| a.map(|v| v as i64);
        NnWin {
            size: c(w.size),
            k: c(w.k),
            d: c(w.d),
            pad: c(w.pad),
            dil: c(w.dil),
            out: c(w.out),
        }
    }
}

/// The kernels' suffix for a floating tensor that is contiguous (`what` in errors).
fn floating(t: &Tensor, dtype: DType, what: &str) -> Result<&'static str> {
    if t.dtype != dtype {
        return Err(Error::dtype(format!("{what} must be of the input's type")));
    }
    if !matches!(t.dtype, DType::Float | DType::Double) {
        return Err(Error::dtype(format!(
            "{what} must be a torch.CudaTensor or torch.CudaDoubleTensor"
        )));
    }
    if !t.is_contiguous() {
        return Err(Error::shape(format!("{what} must be contiguous")));
    }
    suffix(t.dtype)
}

/// The number of planes of `x` (elements / plane size), checked to be whole.
fn planes(x: &Tensor, w: &Windows, what: &str) -> Result<usize> {
    let p = w.plane();
    if p == 0 || !x.numel().is_multiple_of(p) {
        return Err(Error::shape(format!(
            "{what} ({} elements) is not a whole number of planes of {p}",
            x.numel()
        )));
    }
    Ok(x.numel() / p)
}

fn check_len(t: &Tensor, n: usize, what: &str) -> Result<()> {
    if t.numel() != n {
        return Err(Error::shape(format!("{what} has {} elements, expected {n}", t.numel())));
    }
    Ok(())
}

fn long_contiguous(t: &Tensor, what: &str) -> Result<()> {
    if t.dtype != DType::Long || !t.is_contiguous() {
        return Err(Error::dtype(format!(
            "{what} must be a contiguous torch.CudaLongTensor"
        )));
    }
    Ok(())
}

/// The planes of `image` and a check that they make `batch` images and fill `cols`.
fn columns(image: &Tensor, cols: &Tensor, w: &Windows, batch: usize, what: &str) -> Result<(usize, &'static str)> {
    let sfx = floating(image, image.dtype, what)?;
    floating(cols, image.dtype, "the columns")?;
    let l = planes(image, w, what)?;
    if batch == 0 || !l.is_multiple_of(batch) {
        return Err(Error::shape(format!(
            "{l} planes are not {batch} images of as many channels"
        )));
    }
    check_len(cols, l * w.window() * w.positions(), "the columns")?;
    Ok((l, sfx))
}

/// im2col: `cols` = the windows of `x` (planes of geometry `w`, `batch` images), padding zero.
pub fn unfold(cols: &Tensor, x: &Tensor, w: &Windows, batch: usize) -> Result<()> {
    let (l, sfx) = columns(x, cols, w, batch, "the input")?;
    let total = cols.numel();
    if total == 0 {
        return Ok(());
    }
    let dev = common_device(&[cols, x])?;
    let (mut n, mut px, mut pc, mut g, mut ll_, mut b) = (
        total as i64,
        addr(x)?,
        addr(cols)?,
        NnWin::of(w),
        l as i64,
        batch as i64,
    );
    let mut params = [
        param(&mut n),
        param(&mut px),
        param(&mut pc),
        param(&mut g),
        param(&mut ll_),
        param(&mut b),
    ];
    // SAFETY: parameters as nn_unfold_*; both operands are contiguous and of the checked lengths.
    unsafe {
        kernels::launch(
            &dev,
            &format!("nn_unfold_{sfx}"),
            kernels::grid_for(total, MAX_GRID),
            &mut params,
        )
    }
}

/// col2im: adds `cols` onto `x` (not cleared here) where `unfold` read them; padding dropped.
pub fn fold(x: &Tensor, cols: &Tensor, w: &Windows, batch: usize) -> Result<()> {
    let (l, sfx) = columns(x, cols, w, batch, "the input gradient")?;
    let total = x.numel();
    if total == 0 || cols.numel() == 0 {
        return Ok(());
    }
    let dev = common_device(&[cols, x])?;
    let (mut n, mut px, mut pc, mut g, mut ll_, mut b) = (
        total as i64,
        addr(x)?,
        addr(cols)?,
        NnWin::of(w),
        l as i64,
        batch as i64,
    );
    let mut params = [
        param(&mut n),
        param(&mut px),
        param(&mut pc),
        param(&mut g),
        param(&mut ll_),
        param(&mut b),
    ];
    // SAFETY: parameters as nn_fold_*; both operands are contiguous and of the checked lengths.
    unsafe {
        kernels::launch(
            &dev,
            &format!("nn_fold_{sfx}"),
            kernels::grid_for(total, MAX_GRID),
            &mut params,
        )
    }
}

/// The largest element of each window of each plane of `x` into `values`, its 1-based position
/// in the plane into `positions` (L x O each, contiguous).
pub fn max_pool(values: &Tensor, positions: &Tensor, x: &Tensor, w: &Windows) -> Result<()> {
    let sfx = floating(x, x.dtype, "the input")?;
    floating(values, x.dtype, "the maxima")?;
    long_contiguous(positions, "the positions")?;
    let l = planes(x, w, "the input")?;
    let total = l * w.positions();
    check_len(values, total, "the maxima")?;
    check_len(positions, total, "the positions")?;
    if values.shares_storage(x) || positions.shares_storage(x) {
        return Err(Error::argument("the maxima must not share memory with the input"));
    }
    if total == 0 {
        return Ok(());
    }
    let dev = common_device(&[values, positions, x])?;
    let (mut n, mut px, mut pv, mut pp, mut g) =
        (total as i64, addr(x)?, addr(values)?, addr(positions)?, NnWin::of(w));
    let mut params = [
        param(&mut n),
        param(&mut px),
        param(&mut pv),
        param(&mut pp),
        param(&mut g),
    ];
    // SAFETY: parameters as nn_maxpool_*; operands contiguous and of the checked lengths.
    unsafe {
        kernels::launch(
            &dev,
            &format!("nn_maxpool_{sfx}"),
            kernels::grid_for(total, MAX_GRID),
            &mut params,
        )
    }
}

/// gradX (L x S) = gradOut (L x O) added at the positions (L x O, 1-based in each plane);
/// positions outside a plane are skipped (the host raises an error for them, which a kernel
/// cannot; max_pool never makes one).
pub fn max_pool_backward(grad_x: &Tensor, grad_out: &Tensor, positions: &Tensor) -> Result<()> {
    if grad_x.dim() != 2 || grad_out.dim() != 2 || positions.size != grad_out.size || grad_out.size[0] != grad_x.size[0]
    {
        return Err(Error::shape(
            "expected gradInput (L x S), gradOutput and positions (L x O) with as many planes",
        ));
    }
    let sfx = floating(grad_x, grad_x.dtype, "the input gradient")?;
    floating(grad_out, grad_x.dtype, "the output gradient")?;
    long_contiguous(positions, "the positions")?;
    let dev = common_device(&[grad_x, grad_out, positions])?;
    let (s, o) = (grad_x.size[1], grad_out.size[1]);
    if grad_x.numel() > 0 {
        let (mut n, mut p) = (grad_x.numel() as i64, addr(grad_x)?);
        let mut params = [param(&mut n), param(&mut p)];
        // SAFETY: parameters as nn_zero_*; grad_x is contiguous with n elements.
        unsafe {
            kernels::launch(
                &dev,
                &format!("nn_zero_{sfx}"),
                kernels::grid_for(grad_x.numel(), MAX_GRID),
                &mut params,
            )?
        };
    }
    let total = grad_out.numel();
    if total == 0 {
        return Ok(());
    }
    let (mut n, mut pgx, mut pgy, mut pp, mut ss, mut oo) = (
        total as i64,
        addr(grad_x)?,
        addr(grad_out)?,
        addr(positions)?,
        s as i64,
        o as i64,
    );
    let mut params = [
        param(&mut n),
        param(&mut pgx),
        param(&mut pgy),
        param(&mut pp),
        param(&mut ss),
        param(&mut oo),
    ];
    // SAFETY: parameters as nn_maxpool_back_*; operands contiguous, shapes checked above, and the
    // kernel skips positions outside [1, S].
    unsafe {
        kernels::launch(
            &dev,
            &format!("nn_maxpool_back_{sfx}"),
            kernels::grid_for(total, MAX_GRID),
            &mut params,
        )
    }
}
