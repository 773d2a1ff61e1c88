//! The heavy passes of nn's modules (lua/nn): windows of planes unfolded into columns and folded
//! back (the convolutions, as unfold + one gemm), and the threshold (ReLU) pass; the direct
//! convolutions are in `conv` (on the register tiles of `tiles`), max pooling in `pool`, and the
//! fused passes in `norm` (softmax, log-softmax), `batchnorm` and `loss`. Each works on
//! contiguous float or double tensors; the Lua modules make their operands contiguous and keep
//! the module logic.
//!
//! A window geometry ([`Windows`]) covers 1 to 3 pooled dimensions, in the tensor's order (depth,
//! height, width): for each, the input extent, the window extent, the step, the padding on both
//! sides, the spacing of the window's elements (dilation) and the number of window positions.
//! Missing leading dimensions count as extent 1, so every loop below is three deep.

pub mod batchnorm;
pub mod conv;
pub mod loss;
pub mod norm;
pub mod pool;
mod tiles;

use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;

/// Window geometry over the last `n` dimensions of a tensor of planes (see the module comment).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Windows {
    pub size: [usize; 3],
    pub k: [usize; 3],
    pub d: [usize; 3],
    pub pad: [usize; 3],
    pub dil: [usize; 3],
    pub out: [usize; 3],
}

impl Windows {
    /// The geometry of `n` (1 to 3) dimensions from per-dimension lists, padded in front to three.
    pub fn new(
        size: &[usize],
        k: &[usize],
        d: &[usize],
        pad: &[usize],
        dil: &[usize],
        out: &[usize],
    ) -> Result<Windows> {
        let n = size.len();
        if !(1..=3).contains(&n)
            || [k.len(), d.len(), pad.len(), dil.len(), out.len()]
                .iter()
                .any(|&l| l != n)
        {
            return Err(Error::argument(
                "a window geometry has 1 to 3 dimensions, each with all its fields",
            ));
        }
        let fill = |v: &[usize], one: usize| {
            let mut a = [one; 3];
            a[3 - n..].copy_from_slice(v);
            a
        };
        let w = Windows {
            size: fill(size, 1),
            k: fill(k, 1),
            d: fill(d, 1),
            pad: fill(pad, 0),
            dil: fill(dil, 1),
            out: fill(out, 1),
        };
        if w.k.contains(&0) || w.d.contains(&0) || w.dil.contains(&0) {
            return Err(Error::argument("window, step and dilation must be positive"));
        }
        Ok(w)
    }

    /// Elements of one plane.
    pub fn plane(&self) -> usize {
        self.size.iter().product()
    }

    /// Elements of one window.
    pub fn window(&self) -> usize {
        self.k.iter().product()
    }

    /// Window positions.
    pub fn positions(&self) -> usize {
        self.out.iter().product()
    }

    /// For kernel offset `kk` along dimension `j`, the input coordinate of each window position
    /// along `j`, or None where it falls in the padding.
    fn coords(&self, j: usize, kk: usize) -> Vec<Option<usize>> {
        (0..self.out[j])
            .map(|o| {
                let at = (o * self.d[j] + kk * self.dil[j]) as isize - self.pad[j] as isize;
                (at >= 0 && (at as usize) < self.size[j]).then_some(at as usize)
            })
            .collect()
    }
}

/// The float element types nn works on.
pub(super) trait Real: Copy + PartialOrd + std::ops::AddAssign + Send + Sync {
    const ZERO: Self;
    const NEG_INF: Self;
    fn is_nan(self) -> bool;
    /// The larger of the two, ignoring a NaN.
    fn max(self, other: Self) -> Self;
}

macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            const ZERO: $t = 0.0;
            const NEG_INF: $t = <$t>::NEG_INFINITY;
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline(always)]
            fn max(self, other: $t) -> $t {
                <$t>::max(self, other)
            }
        }
    };
}
real!(f32);
real!(f64);

/// `t`'s elements as a slice, checked to be contiguous, of element type `dtype` and of `len`
/// elements.
///
/// # Safety
/// The caller must not hold another slice over the same memory while this one is written, and
/// must keep `t` (whose storage owns the memory) alive while it uses the slice.
pub(super) unsafe fn slice<'b, T: crate::torch::base::dtype::Element>(
    t: &Tensor,
    dtype: DType,
    len: usize,
    what: &str,
) -> Result<&'b mut [T]> {
    if t.dtype != dtype {
        return Err(Error::dtype(format!("{what} must have the input's type")));
    }
    if !t.is_contiguous() {
        return Err(Error::argument(format!("{what} must be contiguous")));
    }
    if t.numel() != len {
        return Err(Error::shape(format!(
            "{what} has {} elements, {len} expected",
            t.numel()
        )));
    }
    if len == 0 {
        return Ok(&mut []);
    }
    let s = t.storage_checked()?;
    // SAFETY: a checked view of `len` contiguous elements from its offset.
    Ok(unsafe { std::slice::from_raw_parts_mut(s.ptr::<T>().add(t.offset), len) })
}

pub(super) fn float_type(t: &Tensor) -> Result<DType> {
    match t.dtype {
        DType::Float | DType::Double => Ok(t.dtype),
        other => Err(Error::dtype(format!("float or double tensors expected, got {other:?}"))),
    }
}

/// Planes of `x` (contiguous, a whole number of planes of geometry `w`).
pub(super) fn planes(x: &Tensor, w: &Windows) -> Result<usize> {
    let p = w.plane();
    if p == 0 || !x.numel().is_multiple_of(p) {
        return Err(Error::shape(format!(
            "{} elements are not a whole number of {p}-element planes",
            x.numel()
        )));
    }
    Ok(x.numel() / p)
}

/// Runs `f(plane index, kernel offset index, input index per position)` over every plane and
/// kernel offset, the positions' input indices given as an iterator-ready list (None: padding).
fn each_offset(w: &Windows, mut f: impl FnMut(usize, &[Option<usize>])) {
    let (s1, s2) = (w.size[1] * w.size[2], w.size[2]);
    let mut idx = Vec::with_capacity(w.positions());
    let mut kk = 0;
    for k0 in 0..w.k[0] {
        let c0 = w.coords(0, k0);
        for k1 in 0..w.k[1] {
            let c1 = w.coords(1, k1);
            for k2 in 0..w.k[2] {
                let c2 = w.coords(2, k2);
                idx.clear();
                for a in &c0 {
                    for b in &c1 {
                        for c in &c2 {
                            idx.push(match (a, b, c) {
                                (Some(a), Some(b), Some(c)) => Some(a * s1 + b * s2 + c),
                                _ => None,
                            });
                        }
                    }
                }
                f(kk, &idx);
                kk += 1;
            }
        }
    }
}

/// One stretch of a kernel offset's positions: `len` positions from `at` that read consecutive
/// input elements from `from` (None: padding, read as zero).
#[derive(Clone, Copy)]
struct Run {
    at: usize,
    from: Option<usize>,
    len: usize,
}

/// The input indices of a kernel offset's positions as runs, so that unfold and fold move whole
/// rows at once (with a step of 1, a row of the output is one run).
fn runs_of(idx: &[Option<usize>], runs: &mut Vec<Run>) {
    runs.clear();
    for (at, i) in idx.iter().enumerate() {
        match (runs.last_mut(), i) {
            (Some(r), Some(i)) if r.from.is_some_and(|f| f + r.len == *i) => r.len += 1,
            (Some(r), None) if r.from.is_none() => r.len += 1,
            _ => runs.push(Run { at, from: *i, len: 1 }),
        }
    }
}

/// Where the columns of plane `plane`, kernel offset `kk` start in a columns buffer: with
/// `batch` 1, the layout L x K x O (each plane's (K x O) matrix in turn); with `batch` N (the L
/// planes being N images of L/N channels), the layout (C*K) x N x O, every image's columns side by
/// side, so that a convolution over the whole batch is one matrix product.
fn column_row(plane: usize, kk: usize, k: usize, o: usize, l: usize, batch: usize) -> usize {
    let channels = l / batch;
    let (n, c) = (plane / channels, plane % channels);
    ((c * k + kk) * batch + n) * o
}

/// The number of planes of `x` and a check that they make `batch` whole images.
fn batched_planes(x: &Tensor, w: &Windows, batch: usize) -> Result<usize> {
    let l = planes(x, w)?;
    if batch == 0 || !l.is_multiple_of(batch) {
        return Err(Error::shape(format!(
            "{l} planes are not {batch} images of as many channels"
        )));
    }
    Ok(l)
}

/// im2col: `cols` (contiguous, laid out as `column_row` says) = the windows of `x` (L planes of
/// geometry `w`, `batch` images), padding read as zero.
pub fn unfold(cols: &Tensor, x: &Tensor, w: &Windows, batch: usize) -> Result<()> {
    on_columns(x, "the input", cols, w, batch, Pass::Unfold)
}

/// col2im: adds `cols` (laid out as `column_row` says) onto `x` (L planes, `batch` images, not
/// cleared here) at the positions `unfold` read them from; columns in the padding are dropped.
pub fn fold(x: &Tensor, cols: &Tensor, w: &Windows, batch: usize) -> Result<()> {
    on_columns(x, "the input gradient", cols, w, batch, Pass::Fold)
}

#[derive(Clone, Copy)]
enum Pass {
    Unfold,
    Fold,
}

/// Checks the image (`what` in errors) and the columns, then runs `pass` over them typed.
fn on_columns(image: &Tensor, what: &str, cols: &Tensor, w: &Windows, batch: usize, pass: Pass) -> Result<()> {
    fn run<T: Real + crate::torch::base::dtype::Element>(
        image: &mut [T],
        cols: &mut [T],
        w: &Windows,
        l: usize,
        batch: usize,
        pass: Pass,
    ) {
        match pass {
            Pass::Unfold => unfold_typed(cols, image, w, l, batch),
            Pass::Fold => fold_typed(image, cols, w, l, batch),
        }
    }
    let dtype = float_type(image)?;
    let l = batched_planes(image, w, batch)?;
    let (p, k, o) = (w.plane(), w.window(), w.positions());
    // SAFETY: both are contiguous tensors of `dtype` with the lengths checked by `slice`.
    unsafe {
        match dtype {
            DType::Float => run::<f32>(
                slice(image, dtype, l * p, what)?,
                slice(cols, dtype, l * k * o, "the columns")?,
                w,
                l,
                batch,
                pass,
            ),
            _ => run::<f64>(
                slice(image, dtype, l * p, what)?,
                slice(cols, dtype, l * k * o, "the columns")?,
                w,
                l,
                batch,
                pass,
            ),
        }
    }
    Ok(())
}

fn unfold_typed<T: Real + crate::torch::base::dtype::Element>(
    cols: &mut [T],
    x: &[T],
    w: &Windows,
    l: usize,
    batch: usize,
) {
    let (p, k, o) = (w.plane(), w.window(), w.positions());
    let mut runs = Vec::new();
    each_offset(w, |kk, idx| {
        runs_of(idx, &mut runs);
        for plane in 0..l {
            let src = &x[plane * p..(plane + 1) * p];
            let row = &mut cols[column_row(plane, kk, k, o, l, batch)..][..o];
            for r in &runs {
                let dst = &mut row[r.at..r.at + r.len];
                match r.from {
                    Some(f) => dst.copy_from_slice(&src[f..f + r.len]),
                    None => dst.fill(T::ZERO),
                }
            }
        }
    });
}

fn fold_typed<T: Real + crate::torch::base::dtype::Element>(
    x: &mut [T],
    cols: &[T],
    w: &Windows,
    l: usize,
    batch: usize,
) {
    let (p, k, o) = (w.plane(), w.window(), w.positions());
    let mut runs = Vec::new();
    each_offset(w, |kk, idx| {
        runs_of(idx, &mut runs);
        for plane in 0..l {
            let dst = &mut x[plane * p..(plane + 1) * p];
            let row = &cols[column_row(plane, kk, k, o, l, batch)..][..o];
            for r in runs.iter().filter(|r| r.from.is_some()) {
                let f = r.from.expect("an input run");
                for (d, v) in dst[f..f + r.len].iter_mut().zip(&row[r.at..r.at + r.len]) {
                    *d += *v;
                }
            }
        }
    });
}

/// The first element of `t` (contiguous, `len` elements of type `dtype`) as a raw pointer: the
/// threshold passes may be given one tensor twice (in place), so they read and write through
/// pointers, element by element, never through two slices.
fn raw<T: crate::torch::base::dtype::Element>(t: &Tensor, dtype: DType, len: usize, what: &str) -> Result<*mut T> {
    // SAFETY: the slice is only used for its pointer; no reference outlives this call.
    unsafe { slice::<T>(t, dtype, len, what).map(|s| s.as_mut_ptr()) }
}

/// `output = input > threshold ? input : value`, elementwise (`output` may be `input`).
pub fn threshold(output: &Tensor, input: &Tensor, threshold: f64, value: f64) -> Result<()> {
    fn run<T: Real + crate::torch::base::dtype::Element>(y: *mut T, x: *const T, n: usize, th: T, v: T) {
        let keep = |e: T| if e > th { e } else { v };
        // Through slices, in place or apart, so that the loop is vectorized.
        if std::ptr::eq(y, x) {
            // SAFETY: y covers n elements (checked by `raw`), and is the only reference to them.
            let y = unsafe { std::slice::from_raw_parts_mut(y, n) };
            y.iter_mut().for_each(|e| *e = keep(*e));
            return;
        }
        let (ya, xa) = (y as usize, x as usize);
        let bytes = n * std::mem::size_of::<T>();
        if ya + bytes <= xa || xa + bytes <= ya {
            // SAFETY: both cover n elements (checked by `raw`) and do not overlap.
            let (y, x) = unsafe { (std::slice::from_raw_parts_mut(y, n), std::slice::from_raw_parts(x, n)) };
            y.iter_mut().zip(x).for_each(|(y, &e)| *y = keep(e));
            return;
        }
        // Overlapping views of one storage: element by element, through the pointers.
        for i in 0..n {
            // SAFETY: both pointers cover n elements (checked by `raw`).
            unsafe { *y.add(i) = keep(*x.add(i)) };
        }
    }
    let dtype = float_type(input)?;
    let n = input.numel();
    match dtype {
        DType::Float => run::<f32>(
            raw(output, dtype, n, "the output")?,
            raw(input, dtype, n, "the input")?,
            n,
            threshold as f32,
            value as f32,
        ),
        _ => run::<f64>(
            raw(output, dtype, n, "the output")?,
            raw(input, dtype, n, "the input")?,
            n,
            threshold,
            value,
        ),
    }
    Ok(())
}

/// `gradInput = input > threshold ? gradOutput : 0`, elementwise (`gradInput` may be
/// `gradOutput`, or `input`).
/// A value kept or zeroed by a mask of its bits: no branch, so that a loop over data whose signs
/// vary at random (a ReLU's input) neither mispredicts nor stays scalar.
pub trait Masked: Copy {
    /// self where `keep`, else zero.
    fn kept_if(self, keep: bool) -> Self;
}

macro_rules! masked {
    ($t:ty, $bits:ty) => {
        impl Masked for $t {
            fn kept_if(self, keep: bool) -> $t {
                <$t>::from_bits(self.to_bits() & (0 as $bits).wrapping_sub(keep as $bits))
            }
        }
    };
}
masked!(f32, u32);
masked!(f64, u64);

pub fn threshold_backward(grad_input: &Tensor, input: &Tensor, grad_output: &Tensor, threshold: f64) -> Result<()> {
    fn run<T: Real + Masked + crate::torch::base::dtype::Element>(
        r: *mut T,
        x: *const T,
        g: *const T,
        n: usize,
        th: T,
    ) {
        if std::ptr::eq(r, x) || std::ptr::eq(r, g) {
            // In place (an in-place ReLU's gradInput is its gradOutput): through the pointers.
            for i in 0..n {
                // SAFETY: the three pointers cover n elements (checked by `raw`).
                unsafe { *r.add(i) = (*g.add(i)).kept_if(*x.add(i) > th) };
            }
            return;
        }
        // SAFETY: the pointers cover n elements (checked by `raw`), and r is neither x nor g.
        let (r, x, g) = unsafe {
            (
                std::slice::from_raw_parts_mut(r, n),
                std::slice::from_raw_parts(x, n),
                std::slice::from_raw_parts(g, n),
            )
        };
        for ((r, x), g) in r.iter_mut().zip(x).zip(g) {
            *r = g.kept_if(*x > th);
        }
    }
    let dtype = float_type(input)?;
    let n = input.numel();
    match dtype {
        DType::Float => run::<f32>(
            raw(grad_input, dtype, n, "gradInput")?,
            raw(input, dtype, n, "the input")?,
            raw(grad_output, dtype, n, "gradOutput")?,
            n,
            threshold as f32,
        ),
        _ => run::<f64>(
            raw(grad_input, dtype, n, "gradInput")?,
            raw(input, dtype, n, "the input")?,
            raw(grad_output, dtype, n, "gradOutput")?,
            n,
            threshold,
        ),
    }
    Ok(())
}

/// Double tensors from and to plain values, for the nn kernels' unit tests.
#[cfg(test)]
pub(super) mod test_tensors {
    use super::slice;
    use crate::torch::base::dtype::DType;
    use crate::torch::base::tensor::Tensor;

    pub fn tensor(v: &[f64], sizes: &[usize]) -> Tensor {
        let t = Tensor::zeros(DType::Double, sizes).unwrap();
        // SAFETY: t is a fresh contiguous Double tensor of v.len() elements.
        unsafe {
            slice::<f64>(&t, DType::Double, v.len(), "t")
                .unwrap()
                .copy_from_slice(v)
        };
        t
    }

    pub fn values(t: &Tensor) -> Vec<f64> {
        // SAFETY: the tests pass contiguous Double tensors.
        unsafe { slice::<f64>(t, DType::Double, t.numel(), "t").unwrap().to_vec() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::kernels::nn::pool::max_pool;
    use test_tensors::{tensor, values};

    #[test]
    fn unfold_then_fold_counts_each_element_once_per_window() {
        // One 3x3 plane, 2x2 windows, step 1: 4 positions.
        let w = Windows::new(&[3, 3], &[2, 2], &[1, 1], &[0, 0], &[1, 1], &[2, 2]).unwrap();
        let x = tensor(&[1., 2., 3., 4., 5., 6., 7., 8., 9.], &[1, 3, 3]);
        let cols = Tensor::zeros(DType::Double, &[1, 4, 4]).unwrap();
        unfold(&cols, &x, &w, 1).unwrap();
        // Offset (0,0) of each window: 1 2 4 5; offset (1,1): 5 6 8 9.
        let c = values(&cols);
        assert_eq!(&c[0..4], &[1., 2., 4., 5.]);
        assert_eq!(&c[12..16], &[5., 6., 8., 9.]);
        let ones = tensor(&[1.0; 16], &[1, 4, 4]);
        let g = Tensor::zeros(DType::Double, &[1, 3, 3]).unwrap();
        fold(&g, &ones, &w, 1).unwrap();
        assert_eq!(values(&g), vec![1., 2., 1., 2., 4., 2., 1., 2., 1.]);
    }

    #[test]
    fn batched_columns_put_the_images_side_by_side() {
        // Two images of one 1-D channel of 3, windows of 2, step 1: 2 positions each.
        let w = Windows::new(&[3], &[2], &[1], &[0], &[1], &[2]).unwrap();
        let x = tensor(&[1., 2., 3., 4., 5., 6.], &[2, 1, 3]);
        let cols = Tensor::zeros(DType::Double, &[2, 4]).unwrap();
        unfold(&cols, &x, &w, 2).unwrap();
        // Row (channel 0, offset 0): image 1's 1 2 then image 2's 4 5; offset 1: 2 3, 5 6.
        assert_eq!(values(&cols), vec![1., 2., 4., 5., 2., 3., 5., 6.]);
        let g = Tensor::zeros(DType::Double, &[2, 1, 3]).unwrap();
        fold(&g, &cols, &w, 2).unwrap();
        assert_eq!(values(&g), vec![1., 4., 3., 4., 10., 6.]);
        assert!(unfold(&cols, &x, &w, 4).is_err());
    }

    #[test]
    fn padding_reads_zero_and_pooling_ignores_it() {
        // A 1-D plane of 3 with padding 1, windows of 2 moved by 2: positions at -1 and 1.
        let w = Windows::new(&[3], &[2], &[2], &[1], &[1], &[2]).unwrap();
        let x = tensor(&[-5., -6., -7.], &[1, 3]);
        let cols = Tensor::zeros(DType::Double, &[1, 2, 2]).unwrap();
        unfold(&cols, &x, &w, 1).unwrap();
        assert_eq!(values(&cols), vec![0., -6., -5., -7.]);
        let v = Tensor::zeros(DType::Double, &[1, 2]).unwrap();
        let p = Tensor::zeros(DType::Long, &[1, 2]).unwrap();
        max_pool(&v, &p, &x, &w).unwrap();
        assert_eq!(values(&v), vec![-5., -6.]);
        let pos = unsafe { slice::<i64>(&p, DType::Long, 2, "p").unwrap().to_vec() };
        assert_eq!(pos, vec![1, 2]);
    }

    #[test]
    fn threshold_both_ways() {
        let x = tensor(&[-1., 0.5, 2.], &[3]);
        let y = Tensor::zeros(DType::Double, &[3]).unwrap();
        threshold(&y, &x, 0.0, 0.0).unwrap();
        assert_eq!(values(&y), vec![0., 0.5, 2.]);
        let g = tensor(&[10., 20., 30.], &[3]);
        threshold_backward(&g, &x, &g, 0.0).unwrap();
        assert_eq!(values(&g), vec![0., 20., 30.]);
        // Apart from gradOutput, and a NaN or infinite gradient below the threshold still gives 0.
        let go = tensor(&[f64::NAN, f64::INFINITY, -3.], &[3]);
        let gi = Tensor::zeros(DType::Double, &[3]).unwrap();
        threshold_backward(&gi, &tensor(&[-1., -2., 5.], &[3]), &go, 0.0).unwrap();
        assert_eq!(values(&gi), vec![0., 0., -3.]);
    }

    #[test]
    fn bad_operands_are_errors() {
        let w = Windows::new(&[3], &[2], &[1], &[0], &[1], &[2]).unwrap();
        let x = Tensor::zeros(DType::Long, &[3]).unwrap();
        let cols = Tensor::zeros(DType::Double, &[4]).unwrap();
        assert!(unfold(&cols, &x, &w, 1).is_err());
        let x = Tensor::zeros(DType::Double, &[4]).unwrap();
        assert!(unfold(&cols, &x, &w, 1).is_err());
        assert!(Windows::new(&[3], &[0], &[1], &[0], &[1], &[2]).is_err());
    }
}
