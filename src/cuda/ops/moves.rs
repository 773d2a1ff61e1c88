//! Moving elements by position on the device (tensor operations layer), for the index, gather,
//! scatter and mask operations: one kernel (`gs_*`, see `kernels::source`) does every move. The
//! positions are a device Long tensor walked over the shape of the work, and each operand is a view
//! of its memory over that shape; the index operations are gather and scatter with a vector of
//! positions seen as expanded over the shape (stride 0 but along the dimension), so any layout of
//! any operand works without a copy first. The caller checks the positions first.

use std::ffi::c_void;

use super::operands::{addr, common_device, suffix};
use crate::cuda::kernels::{self, Geo, param};
use crate::dispatch;
use crate::error::Result;
use crate::torch::base::dtype::Element;
use crate::torch::base::tensor::Tensor;

/// What `gs_*` does with each position (the kernel's `mode`).
#[derive(Clone, Copy)]
pub enum Mode {
    Gather = 0,
    Scatter = 1,
    ScatterAdd = 2,
    ScatterFill = 3,
    Take = 4,
    Put = 5,
}

/// One launch of `gs_*`: `r` and `a` are the written and read tensors (their first elements are
/// the bases), each geometry a view over the work's shape.
pub struct Move<'a> {
    mode: Mode,
    r: &'a Tensor,
    gr: Geo,
    sr: usize,
    a: Option<&'a Tensor>,
    ga: Geo,
    sa: usize,
    idx: &'a Tensor,
    gi: Geo,
    gx: Geo,
    v: f64,
}

impl<'a> Move<'a> {
    /// Gathers into `r` (over its whole shape) the elements of `src` along `dim` at the
    /// positions `idx` seen through `gi`.
    pub fn gather(r: &'a Tensor, src: &'a Tensor, dim: usize, idx: &'a Tensor, gi: Geo) -> Result<Self> {
        Ok(Move {
            mode: Mode::Gather,
            r,
            gr: Geo::of(r)?,
            sr: 0,
            a: Some(src),
            ga: over(&r.size, src, Some(dim))?,
            sa: src.stride[dim],
            idx,
            gi,
            gx: Geo::NONE,
            v: 0.0,
        })
    }

    /// Scatters into `t` along `dim`, over `shape`, the elements of `src` (seen through its
    /// geometry) or `v`, at the positions `idx` seen through `gi`.
    #[allow(clippy::too_many_arguments)]
    pub fn scatter(
        mode: Mode,
        t: &'a Tensor,
        dim: usize,
        shape: &[usize],
        src: Option<(&'a Tensor, Geo)>,
        v: f64,
        idx: &'a Tensor,
        gi: Geo,
    ) -> Result<Self> {
        Ok(Move {
            mode,
            r: t,
            gr: over(shape, t, Some(dim))?,
            sr: t.stride[dim],
            a: src.map(|(s, _)| s),
            ga: src.map(|(_, g)| g).unwrap_or(Geo::NONE),
            sa: 0,
            idx,
            gi,
            gx: Geo::NONE,
            v,
        })
    }

    /// Takes into the vector `r` the elements of `src` at the flat positions `idx` (1-based, in
    /// `src`'s logical order).
    pub fn take(r: &'a Tensor, src: &'a Tensor, idx: &'a Tensor) -> Result<Self> {
        Ok(Move {
            mode: Mode::Take,
            r,
            gr: Geo::of(r)?,
            sr: 0,
            a: Some(src),
            ga: Geo::NONE,
            sa: 0,
            idx,
            gi: Geo::of(idx)?,
            gx: Geo::of(src)?,
            v: 0.0,
        })
    }

    /// Puts the first elements of the contiguous `src`, in order, at the flat positions `idx` of
    /// `t` (1-based, in `t`'s logical order).
    pub fn put(t: &'a Tensor, src: &'a Tensor, idx: &'a Tensor) -> Result<Self> {
        Ok(Move {
            mode: Mode::Put,
            r: t,
            gr: Geo::NONE,
            sr: 0,
            a: Some(src),
            ga: Geo::new(&[idx.numel()], &[1])?,
            sa: 0,
            idx,
            gi: Geo::of(idx)?,
            gx: Geo::of(t)?,
            v: 0.0,
        })
    }

    /// Launches the move over `n` positions.
    pub fn run(self, n: usize) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        let mut tensors = vec![self.r, self.idx];
        tensors.extend(self.a);
        let dev = common_device(&tensors)?;
        let mut pa = match self.a {
            Some(a) => addr(a)?,
            None => 0,
        };
        let (mut pr, mut pi) = (addr(self.r)?, addr(self.idx)?);
        let (mut mode, mut count) = (self.mode as i32, n as i64);
        let (mut sr, mut sa) = (self.sr as i64, self.sa as i64);
        let (mut gr, mut ga, mut gi, mut gx) = (self.gr, self.ga, self.gi, self.gx);
        let name = format!("gs_{}", suffix(self.r.dtype)?);
        dispatch!(self.r.dtype, T => {
            let mut v = T::from_f64(self.v);
            let mut params: [*mut c_void; 12] = [
                param(&mut mode), param(&mut count), param(&mut pr), param(&mut gr), param(&mut sr),
                param(&mut pa), param(&mut ga), param(&mut sa), param(&mut pi), param(&mut gi),
                param(&mut gx), param(&mut v),
            ];
            // SAFETY: the parameters match gs_*; every view was checked against its storage and
            // every position against the dimension (or element count) it moves along, so the
            // kernel touches only the tensors' elements.
            unsafe { kernels::launch(&dev, &name, kernels::grid_for(n, 8192), &mut params) }
        })
        // The positions may be a temporary freed when this returns, safely while the kernel
        // runs (see memory::Release), so nothing here waits.
    }
}

/// The view of `t`'s memory over `shape` (as many dimensions), with stride 0 along `dim`.
pub fn over(shape: &[usize], t: &Tensor, dim: Option<usize>) -> Result<Geo> {
    let mut stride = t.stride.clone();
    if let Some(d) = dim {
        stride[d] = 0;
    }
    Geo::new(shape, &stride)
}

/// A vector of positions seen over `shape`: its elements along `dim`, repeated elsewhere.
pub fn expanded(shape: &[usize], idx: &Tensor, dim: usize) -> Result<Geo> {
    let mut stride = vec![0; shape.len()];
    stride[dim] = idx.stride.first().copied().unwrap_or(0);
    Geo::new(shape, &stride)
}
