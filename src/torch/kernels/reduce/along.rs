//! Reductions along one dimension (sum, prod, mean, norm, var, std), cumulative sums and
//! products, and renorm, walked as `Plan` says.

use super::accumulate::{Norm, Reduce, acc_lane, map_sum};
use super::plan::{Plan, data, result_like, scatter};
use super::whole::norm_all;
use crate::error::Result;
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::strided::{Runs, for_each_mut, offsets_or_single};

/// What `sum_dim` accumulates.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SumKind {
    Sum,
    Prod,
    Mean,
}

/// Sum, product or mean along `dim`, size 1 along it, in the input's type.
pub fn sum_dim<T: Reduce>(x: &Tensor, dim: usize, kind: SumKind) -> Result<Tensor> {
    let out = result_like(T::DTYPE, x, dim, 1)?;
    let plan = Plan::new(x, dim, true);
    if plan.m == 0 {
        return Ok(out);
    }
    let prod = kind == SumKind::Prod;
    let (n, st) = (plan.n, plan.st);
    let values: Vec<T::Acc> = if n == 0 {
        vec![if prod { T::ACC_ONE } else { T::ACC_ZERO }; plan.m]
    } else {
        let p = data::<T>(x)?;
        // SAFETY: p is x's data, checked above.
        unsafe {
            plan.fold(
                p,
                |_, q| acc_lane::<T>(q, n, st, prod),
                if prod { T::ACC_ONE } else { T::ACC_ZERO },
                |a, v, _, _| {
                    *a = if prod {
                        T::acc_mul(*a, v.widen())
                    } else {
                        T::acc_add(*a, v.widen())
                    }
                },
            )
        }
    };
    let mean = kind == SumKind::Mean;
    // SAFETY: out is fresh.
    unsafe {
        scatter(
            &plan,
            &out,
            values.into_iter().map(|a| {
                if mean {
                    T::from_f64(T::acc_to_f64(a) / n as f64)
                } else {
                    T::narrow(a)
                }
            }),
        )
    };
    Ok(out)
}

/// The p-norm along `dim`.
pub fn norm_dim<T: Reduce>(x: &Tensor, p: f64, dim: usize) -> Result<Tensor> {
    let out = result_like(T::DTYPE, x, dim, 1)?;
    let plan = Plan::new(x, dim, true);
    if plan.m == 0 {
        return Ok(out);
    }
    let norm = Norm::of(p);
    let (n, st) = (plan.n, plan.st);
    let values = if n == 0 {
        vec![0.0; plan.m]
    } else {
        let d = data::<T>(x)?;
        // SAFETY: d is x's data, checked above.
        unsafe {
            plan.fold(
                d,
                |_, q| norm.lane(q, n, st),
                0.0,
                |a, v, _, _| *a = norm.step(*a, v.to_f64()),
            )
        }
    };
    // SAFETY: out is fresh.
    unsafe { scatter(&plan, &out, values.into_iter().map(|a| T::from_f64(norm.finish(a)))) };
    Ok(out)
}

/// Variance (standard deviation) along `dim`.
pub fn var_dim<T: Reduce>(x: &Tensor, dim: usize, biased: bool, std: bool) -> Result<Tensor> {
    let out = result_like(T::DTYPE, x, dim, 1)?;
    let plan = Plan::new(x, dim, true);
    if plan.m == 0 {
        return Ok(out);
    }
    let (n, st) = (plan.n, plan.st);
    let values = if n == 0 {
        vec![f64::NAN; plan.m]
    } else {
        let p = data::<T>(x)?;
        // SAFETY: p is x's data, checked above.
        unsafe {
            let means: Vec<f64> = plan
                .fold(
                    p,
                    |_, q| acc_lane::<T>(q, n, st, false),
                    T::ACC_ZERO,
                    |a, v, _, _| *a = T::acc_add(*a, v.widen()),
                )
                .into_iter()
                .map(|s| T::acc_to_f64(s) / n as f64)
                .collect();
            plan.fold(
                p,
                |j, q| {
                    let mean = means[j];
                    map_sum(q, n, st, |v: T| {
                        let d = v.to_f64() - mean;
                        d * d
                    })
                },
                0.0,
                |a, v, _, j| {
                    let d = v.to_f64() - means[j];
                    *a += d * d;
                },
            )
        }
    };
    let div = if biased { n as f64 } else { n as f64 - 1.0 };
    // SAFETY: out is fresh.
    unsafe {
        scatter(
            &plan,
            &out,
            values.into_iter().map(|s| {
                let v = s / div;
                T::from_f64(if std { v.sqrt() } else { v })
            }),
        )
    };
    Ok(out)
}

/// Cumulative sum (product) along `dim`.
pub fn cumulate<T: Reduce>(x: &Tensor, dim: usize, prod: bool) -> Result<Tensor> {
    let out = (Tensor::zeros(T::DTYPE, &x.size))?;
    if x.numel() == 0 {
        return Ok(out);
    }
    let plan = Plan::new(x, dim, true);
    let (orest, ost) = plan.arrange(&out);
    let (n, st) = (plan.n, plan.st);
    let p = data::<T>(x)?;
    let op = data::<T>(&out)?;
    let init = if prod { T::ACC_ONE } else { T::ACC_ZERO };
    let comb = |a: T::Acc, v: T| {
        if prod {
            T::acc_mul(a, v.widen())
        } else {
            T::acc_add(a, v.widen())
        }
    };
    // SAFETY: p is x's data and op out's (fresh), both checked above; offsets stay in the views.
    unsafe {
        match &plan.slabs {
            None => {
                for (xs, os) in offsets_or_single(&plan.rest).zip(offsets_or_single(&orest)) {
                    let mut a = init;
                    for i in 0..n {
                        a = comb(a, *p.add(xs + i * st));
                        *op.add(os + i * ost) = T::narrow(a);
                    }
                }
            }
            Some(r) => {
                let or = Runs::of(&orest);
                let mut acc = vec![init; plan.m];
                for k in 0..n {
                    for (ri, &s) in r.starts.iter().enumerate() {
                        let q = p.add(s + k * st);
                        for (i, a) in acc[ri * r.len..(ri + 1) * r.len].iter_mut().enumerate() {
                            *a = comb(*a, *q.add(i * r.stride));
                        }
                    }
                    for (ri, &s) in or.starts.iter().enumerate() {
                        let q = op.add(s + k * ost);
                        for (i, &a) in acc[ri * or.len..(ri + 1) * or.len].iter().enumerate() {
                            *q.add(i * or.stride) = T::narrow(a);
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Scales each slice along `dim` of `x` whose p-norm exceeds `maxnorm` down to norm `maxnorm`,
/// in place.
pub fn renorm<T: Reduce>(x: &Tensor, p: f64, dim: usize, maxnorm: f64) -> Result<()> {
    for i in 0..x.size[dim] {
        let sub = x.select(dim, i)?;
        let norm = norm_all::<T>(&sub, p)?;
        if norm > maxnorm {
            // Torch's guard against dividing by a zero norm.
            let scale = maxnorm / (norm + 1e-7);
            let d = data::<T>(&sub)?;
            // SAFETY: sub is a valid view of x, which nothing else accesses during the call.
            unsafe { for_each_mut(d, &sub, |v| *v = T::from_f64(v.to_f64() * scale)) };
        }
    }
    Ok(())
}
