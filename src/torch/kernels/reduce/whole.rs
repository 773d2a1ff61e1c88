//! Reductions of a whole tensor to one number, walking memory in order where the result does not
//! depend on it.

use super::accumulate::{Norm, Reduce, acc_lane, map_sum};
use super::plan::data;
use crate::error::{Error, Result};
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::strided::{Offsets, each_run_in_memory_order};

/// The sum (product) of every element in `accreal`, as a number.
pub fn sum_all<T: Reduce>(x: &Tensor, prod: bool) -> Result<f64> {
    if x.numel() == 0 {
        return Ok(if prod { 1.0 } else { 0.0 });
    }
    let p = data::<T>(x)?;
    let mut acc = if prod { T::ACC_ONE } else { T::ACC_ZERO };
    // SAFETY: p is x's data, checked above.
    unsafe {
        each_run_in_memory_order(p, x, |q, n, st| {
            let part = acc_lane::<T>(q, n, st, prod);
            acc = if prod {
                T::acc_mul(acc, part)
            } else {
                T::acc_add(acc, part)
            };
        })
    };
    Ok(T::acc_to_f64(acc))
}

/// The p-norm of every element.
pub fn norm_all<T: Reduce>(x: &Tensor, p: f64) -> Result<f64> {
    if x.numel() == 0 {
        return Ok(0.0);
    }
    let d = data::<T>(x)?;
    let norm = Norm::of(p);
    let mut acc = 0.0;
    // SAFETY: d is x's data, checked above.
    unsafe {
        each_run_in_memory_order(d, x, |q, n, st| {
            let part = norm.lane(q, n, st);
            acc = if matches!(norm, Norm::Max) {
                f64::max(acc, part)
            } else {
                acc + part
            };
        })
    };
    Ok(norm.finish(acc))
}

/// The variance of every element (two passes: the mean, then squared deviations).
pub fn var_all<T: Reduce>(x: &Tensor, biased: bool) -> Result<f64> {
    let n = x.numel();
    if n == 0 {
        return Err(Error::shape("empty tensor"));
    }
    let mean = sum_all::<T>(x, false)? / n as f64;
    let p = data::<T>(x)?;
    let mut acc = 0.0;
    // SAFETY: p is x's data, checked above.
    unsafe {
        each_run_in_memory_order(p, x, |q, len, st| {
            acc += map_sum(q, len, st, |v: T| {
                let d = v.to_f64() - mean;
                d * d
            })
        })
    };
    Ok(acc / if biased { n as f64 } else { n as f64 - 1.0 })
}

/// `all` (`any`): whether every (some) element of a ByteTensor is non-zero.
pub fn logical_all(x: &Tensor, any: bool) -> Result<bool> {
    if x.numel() == 0 {
        return Err(Error::shape("empty tensor"));
    }
    let p = data::<u8>(x)?;
    let mut found = false;
    // SAFETY: p is x's data, checked above.
    unsafe {
        each_run_in_memory_order(p, x, |q, n, st| {
            if found {
                return;
            }
            // `any` looks for a non-zero element, `all` for a zero one.
            found = (0..n).any(|i| (*q.add(i * st) != 0) == any);
        })
    };
    Ok(found == any)
}

/// `norm(a - b, p)`, a and b having as many elements.
pub fn dist<T: Reduce>(a: &Tensor, b: &Tensor, p: f64) -> Result<f64> {
    if a.numel() != b.numel() {
        return Err(Error::shape(format!(
            "inconsistent tensor size ({} elements vs {})",
            a.numel(),
            b.numel()
        )));
    }
    if a.numel() == 0 {
        return Ok(0.0);
    }
    let (pa, pb) = (data::<T>(a)?, data::<T>(b)?);
    let norm = Norm::of(p);
    let mut acc = 0.0;
    for (oa, ob) in Offsets::new(a).zip(Offsets::new(b)) {
        // SAFETY: offsets of valid views.
        let d = unsafe { (*pa.add(oa)).to_f64() - (*pb.add(ob)).to_f64() };
        acc = norm.step(acc, d);
    }
    Ok(norm.finish(acc))
}
