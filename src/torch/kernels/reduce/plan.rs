//! How a reduction along a dimension walks its input: lane by lane or slab by slab, whichever
//! reads memory in order, so that neither allocates per element; and writing per-lane results.

use super::accumulate::has_avx2;
use crate::error::Result;
use crate::torch::base::dtype::{DType, Element};
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::strided::{Geometry, Runs, memory_order, offsets_or_single, permuted};

/// The data of a tensor with elements, checked to cover its view.
pub fn data<T: Element>(x: &Tensor) -> Result<*mut T> {
    Ok(x.storage_checked()?.ptr::<T>())
}

/// Shortest innermost run for which walking slab by slab beats walking lane by lane.
const MIN_SLAB_RUN: usize = 8;

/// How a reduction along `dim` walks its input: the kept dimensions ("rest") in memory order,
/// and either lane by lane (a lane is the elements along `dim` at one position of the kept
/// dimensions) or slab by slab (slab k is every element at position k along `dim`), whichever
/// reads memory in order. Lanes are numbered `j` in the logical order of `rest`.
pub struct Plan {
    pub dim: usize,
    /// Size and stride of the reduced dimension.
    pub n: usize,
    pub st: usize,
    pub perm: Vec<usize>,
    pub rest: Tensor,
    /// Number of lanes.
    pub m: usize,
    /// The runs of slab 0, when walking slab by slab.
    pub slabs: Option<Runs>,
}

impl Plan {
    pub fn new(x: &Tensor, dim: usize, allow_slabs: bool) -> Plan {
        let perm = memory_order(x, Some(dim));
        let rest = permuted(x, &perm);
        let m = rest.size.iter().product();
        let (n, st) = (x.size[dim], x.stride[dim]);
        let mut slabs = None;
        if allow_slabs && n > 1 && m > 1 {
            let innermost = rest.size.iter().zip(&rest.stride).all(|(&s, &rs)| s <= 1 || st <= rs);
            let g = Geometry::of(&rest);
            if !innermost && g.inner().0 >= MIN_SLAB_RUN {
                slabs = Some(Runs::of_geometry(&g, m));
            }
        }
        Plan {
            dim,
            n,
            st,
            perm,
            rest,
            m,
            slabs,
        }
    }

    /// An output of the same rank arranged like `rest` (its kept dimensions in the same order),
    /// and its stride along the reduced dimension.
    pub fn arrange(&self, out: &Tensor) -> (Tensor, usize) {
        (permuted(out, &self.perm), out.stride[self.dim])
    }

    /// Folds every lane to one value, in lane order. `lane(j, start)` folds a whole lane; `init`
    /// and `step(acc, value, k, j)` fold slab by slab, k being the position along the dimension.
    ///
    /// # Safety
    /// `p` must be the data of the planned tensor, a valid view.
    pub unsafe fn fold<T: Element, A: Copy>(
        &self,
        p: *const T,
        lane: impl Fn(usize, *const T) -> A,
        init: A,
        step: impl Fn(&mut A, T, usize, usize),
    ) -> Vec<A> {
        let Some(r) = &self.slabs else {
            return offsets_or_single(&self.rest)
                .enumerate()
                .map(|(j, start)| lane(j, unsafe { p.add(start) }))
                .collect();
        };
        let mut acc = vec![init; self.m];
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU has AVX2; the caller's guarantees carry over.
            unsafe { avx2::slab_fold(self, r, p, &mut acc, step) };
            return acc;
        }
        unsafe { self.slab_fold(r, p, &mut acc, step) };
        acc
    }

    /// The slab-by-slab walk of `fold`: `acc` holds one accumulator per lane.
    ///
    /// # Safety
    /// As for `fold`; `r` are the runs of slab 0 and `acc` has one element per lane.
    #[inline(always)]
    pub unsafe fn slab_fold<T: Element, A: Copy>(
        &self,
        r: &Runs,
        p: *const T,
        acc: &mut [A],
        step: impl Fn(&mut A, T, usize, usize),
    ) {
        for k in 0..self.n {
            for (ri, &s) in r.starts.iter().enumerate() {
                let j0 = ri * r.len;
                let chunk = &mut acc[j0..j0 + r.len];
                unsafe {
                    let q = p.add(s + k * self.st);
                    if r.stride == 1 {
                        let src = std::slice::from_raw_parts(q, r.len);
                        for (i, (a, &v)) in chunk.iter_mut().zip(src).enumerate() {
                            step(a, v, k, j0 + i);
                        }
                    } else {
                        for (i, a) in chunk.iter_mut().enumerate() {
                            step(a, *q.add(i * r.stride), k, j0 + i);
                        }
                    }
                }
            }
        }
    }
}

/// A new contiguous tensor of `x`'s sizes with `size` along `dim`.
pub fn result_like(dtype: DType, x: &Tensor, dim: usize, size: usize) -> Result<Tensor> {
    let mut sz = x.size.clone();
    sz[dim] = size;
    Tensor::zeros(dtype, &sz)
}

/// Writes values given in lane order into `out` (size 1 along the plan's dimension).
///
/// # Safety
/// `out` must be a valid view of elements of type `U`, not otherwise accessed.
pub unsafe fn scatter<U: Element>(plan: &Plan, out: &Tensor, values: impl Iterator<Item = U>) {
    let (rest, _) = plan.arrange(out);
    let Some(s) = &out.storage else { return };
    let p = s.ptr::<U>();
    for (o, v) in offsets_or_single(&rest).zip(values) {
        unsafe { *p.add(o) = v };
    }
}

/// The AVX2 build of the slab walk (see `accumulate`).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::*;

    /// # Safety
    /// As for `Plan::slab_fold`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn slab_fold<T: Element, A: Copy>(
        plan: &Plan,
        r: &Runs,
        p: *const T,
        acc: &mut [A],
        step: impl Fn(&mut A, T, usize, usize),
    ) {
        unsafe { plan.slab_fold(r, p, acc, step) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_walks_slabs_when_the_dimension_is_outer() {
        let t = Tensor::zeros(DType::Float, &[50, 40]).unwrap();
        assert!(Plan::new(&t, 0, true).slabs.is_some());
        assert!(Plan::new(&t, 1, true).slabs.is_none());
        // A transposed view: the reduced dimension 1 is outer in memory.
        let tt = t.transpose(0, 1).unwrap();
        assert!(Plan::new(&tt, 1, true).slabs.is_some());
        assert!(Plan::new(&tt, 0, true).slabs.is_none());
    }
}
