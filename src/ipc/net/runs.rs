//! The contiguous runs of a tensor view, in row-major order: a tensor's elements go on the wire
//! run by run, straight from (and into) its storage. To be replaced by the strided iteration
//! module that the kernels share, once it exists.

use crate::torch::layout::Tensor;

/// The contiguous runs of a view in row-major order: `f(element offset, element count)`.
pub fn for_each_run<E>(t: &Tensor, mut f: impl FnMut(usize, usize) -> Result<(), E>) -> Result<(), E> {
    if t.numel() == 0 {
        return Ok(());
    }
    // Trailing dimensions laid out one after the other form one run.
    let mut k = t.dim();
    let mut run = 1usize;
    while k > 0 {
        let d = k - 1;
        if t.size[d] == 1 {
            k -= 1;
        } else if t.stride[d] == run {
            run *= t.size[d];
            k -= 1;
        } else {
            break;
        }
    }
    let mut idx = vec![0usize; k];
    let mut off = t.offset;
    loop {
        f(off, run)?;
        let mut d = k;
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            idx[d] += 1;
            off += t.stride[d];
            if idx[d] < t.size[d] {
                break;
            }
            off -= t.stride[d] * t.size[d];
            idx[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::dtype::DType;

    fn runs(t: &Tensor) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for_each_run::<()>(t, |o, n| {
            v.push((o, n));
            Ok(())
        })
        .unwrap();
        v
    }

    #[test]
    fn runs_of_views() {
        let t = Tensor::zeros(DType::Float, &[5, 6]).unwrap();
        assert_eq!(runs(&t), vec![(0, 30)]);
        // sub(2,4,2,5): rows 1..=3, columns 1..=4
        let v = t.narrow(0, 1, 3).unwrap().narrow(1, 1, 4).unwrap();
        assert_eq!(runs(&v), vec![(7, 4), (13, 4), (19, 4)]);
        let tr = t.transpose(0, 1).unwrap();
        assert_eq!(runs(&tr).len(), 30);
        assert_eq!(runs(&tr)[1], (6, 1));
        let e = Tensor::zeros(DType::Float, &[0]).unwrap();
        assert!(runs(&e).is_empty());
        let t3 = Tensor::zeros(DType::Double, &[5, 6, 7]).unwrap();
        let v3 = t3.narrow(0, 1, 2).unwrap().narrow(1, 1, 3).unwrap();
        assert_eq!(runs(&v3), vec![(49, 21), (91, 21)]);
    }
}
