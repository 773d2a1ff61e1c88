//! Histograms with Torch's semantics (histc, bhistc): `nbins` equal bins over `[lo, hi]`, the
//! values outside left out, the top edge counted in the last bin. With `lo == hi` the data's own
//! minimum and maximum are the range (and a range of one value is widened to `[v - 1, v + 1]`).
//! The arithmetic is the element type's, as in Torch, so a FloatTensor bins in single precision.

use super::super::arith::Float;
use super::super::fill::{fill_indexed, values};
use crate::error::{Error, Result};
use crate::torch::base::tensor::Tensor;

/// The range of a histogram: `[lo, hi]` as given, or the data's when they are equal.
fn range<T: Float>(xs: &[T], lo: f64, hi: f64) -> Result<(T, T)> {
    let (mut lo, mut hi) = (T::from_f64(lo), T::from_f64(hi));
    if lo == hi {
        let Some(&first) = xs.first() else {
            return Err(Error::argument("empty tensor: no range to take"));
        };
        (lo, hi) = xs.iter().fold((first, first), |(a, b), &x| (a.min_of(x), b.max_of(x)));
    }
    if lo == hi {
        (lo, hi) = (lo.sub(T::one()), hi.add(T::one()));
    }
    Ok((lo, hi))
}

/// Adds the values `xs` to the counts `h` over `[lo, hi]`.
fn count<T: Float>(xs: impl Iterator<Item = T>, h: &mut [T], lo: T, hi: T) {
    let n = h.len();
    let bins = T::from_f64(n as f64);
    for x in xs {
        if x >= lo && x <= hi {
            // C's (int) cast: truncation toward zero, the quotient being non-negative.
            let bin = x.sub(lo).div(hi.sub(lo)).mul(bins).to_f64() as usize;
            let slot = &mut h[bin.min(n - 1)];
            *slot = slot.add(T::one());
        }
    }
}

fn check_bins(nbins: f64) -> Result<usize> {
    if nbins.is_nan() || nbins < 1.0 || nbins.fract() != 0.0 || nbins > (1u64 << 40) as f64 {
        return Err(Error::argument(format!(
            "the number of bins must be a positive integer, got {nbins}"
        )));
    }
    Ok(nbins as usize)
}

/// The elements of `x` in logical order, in its element type.
fn typed<T: Float>(x: &Tensor) -> Result<Vec<T>> {
    Ok(values(x)?.into_iter().map(T::from_f64).collect())
}

/// The histogram of every element of `x` (Torch's histc): a new tensor of `x`'s type, of size
/// `nbins`.
pub fn histc<T: Float>(x: &Tensor, nbins: f64, lo: f64, hi: f64) -> Result<Tensor> {
    let n = check_bins(nbins)?;
    let xs = typed::<T>(x)?;
    let (lo, hi) = range(&xs, lo, hi)?;
    let mut h = vec![T::zero(); n];
    count(xs.into_iter(), &mut h, lo, hi);
    let out = Tensor::zeros(T::DTYPE, &[n])?;
    fill_indexed(&out, |i| h[i])?;
    Ok(out)
}

/// One histogram per row of the matrix `x` (Torch's bhistc), all over one range (the whole
/// matrix's when `lo == hi`): a new `rows x nbins` tensor of `x`'s type.
pub fn bhistc<T: Float>(x: &Tensor, nbins: f64, lo: f64, hi: f64) -> Result<Tensor> {
    if x.dim() > 2 {
        return Err(Error::argument(format!(
            "invalid dimension {}, the input must be a 2d tensor",
            x.dim()
        )));
    }
    if x.dim() < 2 {
        return Err(Error::argument(format!(
            "invalid dimension 2: a {}-dimensional tensor has no rows to bin",
            x.dim()
        )));
    }
    let n = check_bins(nbins)?;
    let (rows, cols) = (x.size[0], x.size[1]);
    let xs = typed::<T>(x)?;
    let (lo, hi) = range(&xs, lo, hi)?;
    let mut h = vec![T::zero(); rows * n];
    if cols > 0 {
        for (row, counts) in xs.chunks(cols).zip(h.chunks_mut(n)) {
            count(row.iter().copied(), counts, lo, hi);
        }
    }
    let out = Tensor::zeros(T::DTYPE, &[rows, n])?;
    fill_indexed(&out, |i| h[i])?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_as_torch_counts_them() {
        let mut h = [0.0f64; 5];
        count([2.0, 4.0, 2.0, 2.0, 5.0, 4.0, 0.5, 5.5].into_iter(), &mut h, 1.0, 5.0);
        assert_eq!(h, [0.0, 3.0, 0.0, 2.0, 1.0]);
        assert_eq!(range(&[3.0f32, 3.0], 0.0, 0.0).unwrap(), (2.0, 4.0));
        assert_eq!(range(&[1.0f64, 7.0, -2.0], 0.0, 0.0).unwrap(), (-2.0, 7.0));
        assert!(range::<f64>(&[], 0.0, 0.0).is_err());
        assert!(check_bins(0.0).is_err());
        assert!(check_bins(2.5).is_err());
        assert!(check_bins(f64::NAN).is_err());
    }
}
