//! Strided iteration, the one place that walks a tensor's elements: every host kernel (and the
//! network code that sends views) reuses it. Offsets come in Torch's logical (row-major) order,
//! with dimensions merged where the memory allows, so that the common cases run as flat loops over
//! contiguous runs; reductions that do not depend on the order walk in memory order instead.

use crate::torch::base::tensor::Tensor;

/// A tensor's geometry with mergeable dimensions merged and size-1 dimensions dropped. Iterating
/// the merged geometry visits the same offsets in the same order.
#[derive(Clone, Debug)]
pub struct Geometry {
    pub offset: usize,
    /// Outer to inner.
    pub size: Vec<usize>,
    pub stride: Vec<usize>,
}

impl Geometry {
    pub fn of(t: &Tensor) -> Geometry {
        let mut size = Vec::with_capacity(t.dim());
        let mut stride: Vec<usize> = Vec::with_capacity(t.dim());
        for d in 0..t.dim() {
            let (s, st) = (t.size[d], t.stride[d]);
            if s == 1 {
                continue;
            }
            if let (Some(&ps), Some(&pst)) = (size.last(), stride.last()) {
                // The previous (outer) dimension continues this one exactly.
                if pst == st * s {
                    let n = size.len();
                    size[n - 1] = ps * s;
                    stride[n - 1] = st;
                    continue;
                }
            }
            size.push(s);
            stride.push(st);
        }
        Geometry {
            offset: t.offset,
            size,
            stride,
        }
    }

    /// Geometries of two tensors of the same logical shape, with dimensions merged only where
    /// both tensors allow it, so the runs of one line up with the runs of the other.
    pub fn joint(a: &Tensor, b: &Tensor) -> Option<(Geometry, Geometry)> {
        if a.size != b.size {
            return None;
        }
        let mut ga = Geometry {
            offset: a.offset,
            size: Vec::new(),
            stride: Vec::new(),
        };
        let mut gb = Geometry {
            offset: b.offset,
            size: Vec::new(),
            stride: Vec::new(),
        };
        for d in 0..a.dim() {
            let (s, sa, sb) = (a.size[d], a.stride[d], b.stride[d]);
            if s == 1 {
                continue;
            }
            if let (Some(&pa), Some(&pb)) = (ga.stride.last(), gb.stride.last())
                && pa == sa * s
                && pb == sb * s
            {
                let n = ga.size.len();
                ga.size[n - 1] *= s;
                gb.size[n - 1] *= s;
                ga.stride[n - 1] = sa;
                gb.stride[n - 1] = sb;
                continue;
            }
            ga.size.push(s);
            ga.stride.push(sa);
            gb.size.push(s);
            gb.stride.push(sb);
        }
        Some((ga, gb))
    }

    pub fn numel(&self) -> usize {
        self.size.iter().product()
    }

    /// Size and stride of the innermost run.
    pub fn inner(&self) -> (usize, usize) {
        match (self.size.last(), self.stride.last()) {
            (Some(&s), Some(&st)) => (s, st),
            _ => (1, 1),
        }
    }

    /// Calls `f(start_offset)` for each innermost run (of `inner().0` elements, stride `inner().1`).
    pub fn for_each_run(&self, mut f: impl FnMut(usize)) {
        let stride: Vec<[usize; 1]> = self.stride.iter().map(|&st| [st]).collect();
        walk(&self.size, &stride, [self.offset], &mut |_, [a], _| f(a));
    }

    /// Walks the runs of `self` and of `other` (same merged sizes) in lockstep.
    pub fn for_each_run_with(&self, other: &Geometry, mut f: impl FnMut(usize, usize)) {
        debug_assert_eq!(self.size, other.size);
        let stride: Vec<[usize; 2]> = self.stride.iter().zip(&other.stride).map(|(&a, &b)| [a, b]).collect();
        walk(&self.size, &stride, [self.offset, other.offset], &mut |_, [a, b], _| {
            f(a, b)
        });
    }
}

/// Element offsets of a tensor in logical order.
pub struct Offsets {
    geometry: Geometry,
    counter: Vec<usize>,
    current: usize,
    remaining: usize,
}

impl Offsets {
    pub fn new(t: &Tensor) -> Offsets {
        let geometry = Geometry::of(t);
        let remaining = if t.dim() == 0 { 0 } else { geometry.numel() };
        Offsets {
            counter: vec![0; geometry.size.len()],
            current: geometry.offset,
            geometry,
            remaining,
        }
    }
}

impl Iterator for Offsets {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let out = self.current;
        let g = &self.geometry;
        let mut d = g.size.len();
        while d > 0 {
            d -= 1;
            self.counter[d] += 1;
            self.current += g.stride[d];
            if self.counter[d] < g.size[d] {
                break;
            }
            self.current -= g.stride[d] * g.size[d];
            self.counter[d] = 0;
        }
        Some(out)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

/// Applies `f` to every element of `t` in logical order. `T` must be `t`'s element type.
///
/// # Safety
/// `t` must be a valid view (see `Tensor::storage_checked`) of elements of type `T`, not accessed
/// elsewhere during the call.
pub unsafe fn for_each_mut<T>(base: *mut T, t: &Tensor, mut f: impl FnMut(&mut T)) {
    if t.numel() == 0 {
        return;
    }
    let g = Geometry::of(t);
    let (n, st) = g.inner();
    g.for_each_run(|start| unsafe {
        let p = base.add(start);
        if st == 1 {
            for x in std::slice::from_raw_parts_mut(p, n) {
                f(x);
            }
        } else {
            for i in 0..n {
                f(&mut *p.add(i * st));
            }
        }
    });
}

/// Visits pairs (element of `a`, element of `b`) in logical order; both have `numel` elements,
/// whatever their shapes (Torch's rule for copy and elementwise maths).
///
/// # Safety
/// As for `for_each_mut`, for both views. The views may alias (Torch allows `x:add(x)`).
pub unsafe fn for_each_pair<A, B>(pa: *mut A, a: &Tensor, pb: *const B, b: &Tensor, mut f: impl FnMut(&mut A, &B)) {
    if a.numel() == 0 {
        return;
    }
    // Same logical shape (the common case, transposed views included), or shapes that merge to
    // the same runs: walk the runs of both together.
    let (ga, gb) = match Geometry::joint(a, b) {
        Some(pair) => pair,
        None => (Geometry::of(a), Geometry::of(b)),
    };
    if ga.size == gb.size {
        let (n, sa) = ga.inner();
        let (_, sb) = gb.inner();
        ga.for_each_run_with(&gb, |ra, rb| unsafe {
            let x = pa.add(ra);
            let y = pb.add(rb);
            if sa == 1 && sb == 1 {
                for i in 0..n {
                    f(&mut *x.add(i), &*y.add(i));
                }
            } else {
                for i in 0..n {
                    f(&mut *x.add(i * sa), &*y.add(i * sb));
                }
            }
        });
        return;
    }
    // Different shapes with the same element count: runs of `a`, elements of `b` one by one.
    let (n, sa) = ga.inner();
    let mut offsets_b = Offsets::new(b);
    ga.for_each_run(|ra| unsafe {
        for i in 0..n {
            let ob = offsets_b.next().expect("same element count");
            f(&mut *pa.add(ra + i * sa), &*pb.add(ob));
        }
    });
}

/// Calls `f(n, starts, strides)` for each run of `n` elements. Every tensor must have the same
/// number of elements; their shapes may differ (then elements pair up in logical order).
pub fn runs<const K: usize>(ts: [&Tensor; K], mut f: impl FnMut(usize, [usize; K], [usize; K])) {
    let n = ts[0].numel();
    debug_assert!(ts.iter().all(|t| t.numel() == n));
    if n == 0 {
        return;
    }
    if ts.iter().all(|t| t.is_contiguous()) {
        f(n, ts.map(|t| t.offset), [1; K]);
        return;
    }
    if ts.iter().all(|t| t.size == ts[0].size) {
        // Merge dimensions that are contiguous with the next one in every tensor, so that views
        // like a narrowed matrix run as long inner loops.
        let mut size: Vec<usize> = Vec::with_capacity(ts[0].dim());
        let mut stride: Vec<[usize; K]> = Vec::with_capacity(ts[0].dim());
        for d in 0..ts[0].dim() {
            let s = ts[0].size[d];
            if s == 1 {
                continue;
            }
            let st: [usize; K] = std::array::from_fn(|k| ts[k].stride[d]);
            if let (Some(ps), Some(pst)) = (size.last_mut(), stride.last_mut())
                && (0..K).all(|k| pst[k] == st[k] * s)
            {
                *ps *= s;
                *pst = st;
                continue;
            }
            size.push(s);
            stride.push(st);
        }
        walk(&size, &stride, ts.map(|t| t.offset), &mut f);
        return;
    }
    // Different shapes: pair the elements one by one in logical order (rare).
    let mut its = ts.map(Offsets::new);
    for _ in 0..n {
        let o = its.each_mut().map(|it| it.next().unwrap_or(0));
        f(1, o, [1; K]);
    }
}

/// The odometer under every walk: calls `f(inner size, starts, inner strides)` for each run along
/// the last of `size`, the other dimensions counted in row-major order; `stride[d][k]` is tensor
/// k's stride along dimension d.
fn walk<const K: usize>(
    size: &[usize],
    stride: &[[usize; K]],
    base: [usize; K],
    f: &mut impl FnMut(usize, [usize; K], [usize; K]),
) {
    let Some((&inner, outer_sizes)) = size.split_last() else {
        f(1, base, [1; K]);
        return;
    };
    let inner_stride = stride[size.len() - 1];
    let outer = outer_sizes.len();
    let mut counter = vec![0usize; outer];
    let mut off = base;
    loop {
        f(inner, off, inner_stride);
        let mut d = outer;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            counter[d] += 1;
            for k in 0..K {
                off[k] += stride[d][k];
            }
            if counter[d] < size[d] {
                break;
            }
            for k in 0..K {
                off[k] -= stride[d][k] * size[d];
            }
            counter[d] = 0;
        }
    }
}

/// Element offsets of a view in logical order; a view with no dimension is one element (the kept
/// part of a 1-D tensor reduced along its only dimension).
pub fn offsets_or_single(t: &Tensor) -> impl Iterator<Item = usize> {
    let single = (t.dim() == 0).then_some(t.offset);
    Offsets::new(t).chain(single)
}

/// The contiguous runs of a view in logical order: `f(element offset, element count)`, stopping at
/// the first error. A view whose innermost merged dimension is strided gives one-element runs.
pub fn try_for_each_contiguous_run<E>(t: &Tensor, mut f: impl FnMut(usize, usize) -> Result<(), E>) -> Result<(), E> {
    if t.numel() == 0 {
        return Ok(());
    }
    let g = Geometry::of(t);
    let (n, st) = g.inner();
    let mut result = Ok(());
    g.for_each_run(|start| {
        if result.is_err() {
            return;
        }
        result = if st == 1 {
            f(start, n)
        } else {
            (0..n).try_for_each(|i| f(start + i * st, 1))
        };
    });
    result
}

/// Calls `f` with the base offsets of every line along `dim` of tensors that have the same sizes
/// except along `dim` (Torch's TH_TENSOR_DIM_APPLY), in logical order, stopping at the first
/// error.
pub fn for_each_line<const N: usize, E>(
    ts: [&Tensor; N],
    dim: usize,
    mut f: impl FnMut([usize; N]) -> Result<(), E>,
) -> Result<(), E> {
    let outer: Vec<Tensor> = ts
        .iter()
        .map(|t| {
            let mut o = (*t).clone();
            o.size[dim] = 1;
            o
        })
        .collect();
    if outer[0].numel() == 0 {
        return Ok(());
    }
    let mut iters: Vec<Offsets> = outer.iter().map(Offsets::new).collect();
    loop {
        let mut bases = [0usize; N];
        for (b, it) in bases.iter_mut().zip(iters.iter_mut()) {
            match it.next() {
                Some(o) => *b = o,
                None => return Ok(()),
            }
        }
        f(bases)?;
    }
}

/// `x` with its dimensions taken in the order `perm` (a subset: the others are dropped, which is
/// only meaningful for views at one position along them).
pub fn permuted(x: &Tensor, perm: &[usize]) -> Tensor {
    Tensor {
        dtype: x.dtype,
        storage: x.storage.clone(),
        offset: x.offset,
        size: perm.iter().map(|&d| x.size[d]).collect(),
        stride: perm.iter().map(|&d| x.stride[d]).collect(),
    }
}

/// Dimensions of `x` (except `skip`) by decreasing stride: walking them in this order reads
/// memory in order.
pub fn memory_order(x: &Tensor, skip: Option<usize>) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..x.dim()).filter(|&d| Some(d) != skip).collect();
    perm.sort_by(|&a, &b| x.stride[b].cmp(&x.stride[a]));
    perm
}

/// Start offsets of a view's innermost runs, in logical order.
pub struct Runs {
    pub starts: Vec<usize>,
    pub len: usize,
    pub stride: usize,
}

impl Runs {
    pub fn of(t: &Tensor) -> Runs {
        Runs::of_geometry(&Geometry::of(t), t.size.iter().product())
    }

    pub fn of_geometry(g: &Geometry, numel: usize) -> Runs {
        let (len, stride) = g.inner();
        let mut starts = Vec::with_capacity(numel / len.max(1));
        if numel > 0 {
            g.for_each_run(|s| starts.push(s));
        }
        Runs { starts, len, stride }
    }
}

/// Calls `f(start, len, stride)` for each run of `x`'s elements in memory order (`x` must have
/// elements). Only for work that does not depend on the order, such as a sum.
///
/// # Safety
/// `p` must be the data of `x`, a valid view.
pub unsafe fn each_run_in_memory_order<T>(p: *const T, x: &Tensor, mut f: impl FnMut(*const T, usize, usize)) {
    if x.is_contiguous() {
        // One run, and no geometry to build: small tensors feel the difference.
        return f(unsafe { p.add(x.offset) }, x.numel(), 1);
    }
    let g = Geometry::of(&permuted(x, &memory_order(x, None)));
    let (n, st) = g.inner();
    g.for_each_run(|s| f(unsafe { p.add(s) }, n, st));
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::base::dtype::DType;

    #[test]
    fn merged_geometry_of_contiguous_and_views() {
        let t = Tensor::zeros(DType::Float, &[2, 3, 4]).unwrap();
        let g = Geometry::of(&t);
        assert_eq!((g.size.clone(), g.stride.clone()), (vec![24], vec![1]));
        let n = t.narrow(2, 1, 2).unwrap();
        let g = Geometry::of(&n);
        assert_eq!((g.size.clone(), g.stride.clone()), (vec![6, 2], vec![4, 1]));
        let tt = t.transpose(0, 2).unwrap();
        let offs: Vec<usize> = Offsets::new(&tt).take(4).collect();
        assert_eq!(offs, vec![0, 12, 4, 16]);
    }

    #[test]
    fn runs_in_memory_order_start_at_the_views_offset() {
        let t = Tensor::zeros(DType::Double, &[4, 3]).unwrap();
        let base = t.storage.as_ref().unwrap().ptr::<f64>() as *const f64;
        let mut seen = Vec::new();
        // A contiguous view that starts inside its storage (the one-run path), then a strided one.
        for v in [t.narrow(0, 1, 2).unwrap(), t.narrow(1, 1, 1).unwrap()] {
            // SAFETY: base is the data of t, which v views.
            unsafe { each_run_in_memory_order(base, &v, |q, n, st| seen.push((q.offset_from(base), n, st))) };
        }
        assert_eq!(seen, vec![(3, 6, 1), (1, 4, 3)]);
    }

    #[test]
    fn joint_geometry_keeps_runs_aligned() {
        let a = Tensor::zeros(DType::Float, &[4, 3]).unwrap();
        let b = Tensor::zeros(DType::Float, &[3, 4]).unwrap().transpose(0, 1).unwrap();
        let (ga, gb) = Geometry::joint(&a, &b).unwrap();
        assert_eq!((ga.size.clone(), ga.stride.clone()), (vec![4, 3], vec![3, 1]));
        assert_eq!(gb.stride, vec![1, 4]);
        let c = Tensor::zeros(DType::Float, &[2, 3, 4]).unwrap();
        let (gc, gd) = Geometry::joint(&c, &c).unwrap();
        assert_eq!((gc.size, gd.size), (vec![24], vec![24]));
    }

    #[test]
    fn pairs_follow_logical_order_across_shapes() {
        let a = Tensor::zeros(DType::Double, &[2, 3]).unwrap();
        let b = Tensor::zeros(DType::Double, &[3, 2]).unwrap().transpose(0, 1).unwrap();
        let mut seen = Vec::new();
        let pa = a.storage.as_ref().unwrap().ptr::<f64>();
        let pb = b.storage.as_ref().unwrap().ptr::<f64>();
        unsafe {
            let mut i = 0.0;
            for_each_mut(pb, &b, |x| {
                *x = i;
                i += 1.0;
            });
            for_each_pair(pa, &a, pb, &b, |x, y| {
                *x = *y;
                seen.push(*y);
            });
        }
        // b is the transpose of a 3x2 filled in b's logical order.
        assert_eq!(seen, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    }

    #[test]
    fn pairs_across_different_shapes() {
        let a = Tensor::zeros(DType::Double, &[6]).unwrap();
        let b = Tensor::zeros(DType::Double, &[3, 2]).unwrap().transpose(0, 1).unwrap();
        let pa = a.storage.as_ref().unwrap().ptr::<f64>();
        let pb = b.storage.as_ref().unwrap().ptr::<f64>();
        unsafe {
            for (i, x) in b.storage.as_ref().unwrap().as_mut_slice::<f64>().iter_mut().enumerate() {
                *x = i as f64;
            }
            for_each_pair(pa, &a, pb, &b, |x, y| *x = *y);
            // b (2x3, the transpose of [[0,1],[2,3],[4,5]]) in logical order.
            assert_eq!(
                a.storage.as_ref().unwrap().as_slice::<f64>(),
                &[0.0, 2.0, 4.0, 1.0, 3.0, 5.0]
            );
        }
    }
    fn collect<const K: usize>(ts: [&Tensor; K]) -> Vec<(usize, [usize; K], [usize; K])> {
        let mut out = Vec::new();
        runs(ts, |n, o, s| out.push((n, o, s)));
        out
    }

    #[test]
    fn contiguous_tensors_make_one_run() {
        let a = Tensor::zeros(DType::Float, &[2, 3]).unwrap();
        let b = Tensor::zeros(DType::Float, &[6]).unwrap();
        assert_eq!(collect([&a, &b]), vec![(6, [0, 0], [1, 1])]);
    }

    #[test]
    fn views_merge_jointly() {
        let a = Tensor::zeros(DType::Float, &[3, 4]).unwrap();
        let n = a.narrow(1, 1, 2).unwrap();
        let c = Tensor::zeros(DType::Float, &[3, 2]).unwrap();
        assert_eq!(
            collect([&c, &n]),
            vec![(2, [0, 1], [1, 1]), (2, [2, 5], [1, 1]), (2, [4, 9], [1, 1])]
        );
        let t = a.transpose(0, 1).unwrap();
        let d = Tensor::zeros(DType::Float, &[4, 3]).unwrap();
        let runs = collect([&d, &t]);
        assert_eq!(runs.len(), 4);
        assert_eq!(runs[1], (3, [3, 1], [1, 4]));
    }

    #[test]
    fn different_shapes_pair_in_logical_order() {
        let a = Tensor::zeros(DType::Float, &[2, 3]).unwrap().transpose(0, 1).unwrap();
        let b = Tensor::zeros(DType::Float, &[6]).unwrap();
        let offs: Vec<[usize; 2]> = collect([&a, &b]).iter().map(|r| r.1).collect();
        assert_eq!(offs, vec![[0, 0], [3, 1], [1, 2], [4, 3], [2, 4], [5, 5]]);
    }

    fn contiguous_runs(t: &Tensor) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        try_for_each_contiguous_run::<()>(t, |o, n| {
            v.push((o, n));
            Ok(())
        })
        .unwrap();
        v
    }

    #[test]
    fn contiguous_runs_of_views() {
        let t = Tensor::zeros(DType::Float, &[5, 6]).unwrap();
        assert_eq!(contiguous_runs(&t), vec![(0, 30)]);
        let v = t.narrow(0, 1, 3).unwrap().narrow(1, 1, 4).unwrap();
        assert_eq!(contiguous_runs(&v), vec![(7, 4), (13, 4), (19, 4)]);
        let tr = t.transpose(0, 1).unwrap();
        assert_eq!(contiguous_runs(&tr).len(), 30);
        assert_eq!(contiguous_runs(&tr)[1], (6, 1));
        let t3 = Tensor::zeros(DType::Double, &[5, 6, 7]).unwrap();
        let v3 = t3.narrow(0, 1, 2).unwrap().narrow(1, 1, 3).unwrap();
        assert_eq!(contiguous_runs(&v3), vec![(49, 21), (91, 21)]);
        let stop: Result<(), usize> = try_for_each_contiguous_run(&tr, |o, _| if o == 12 { Err(o) } else { Ok(()) });
        assert_eq!(stop, Err(12));
    }

    #[test]
    fn lines_follow_logical_order_of_each_tensor() {
        // 2x3 along dim 1 (0-based): one line per row; the transposed 3x2 view's rows are columns.
        let a = Tensor::zeros(DType::Double, &[2, 3]).unwrap();
        let b = Tensor::zeros(DType::Double, &[3, 2]).unwrap().transpose(0, 1).unwrap();
        let mut bases = Vec::new();
        for_each_line::<2, ()>([&a, &b], 1, |[x, y]| {
            bases.push((x, y));
            Ok(())
        })
        .unwrap();
        assert_eq!(bases, vec![(0, 0), (3, 1)]);
        let mut along0 = Vec::new();
        for_each_line::<1, ()>([&a], 0, |[x]| {
            along0.push(x);
            Ok(())
        })
        .unwrap();
        assert_eq!(along0, vec![0, 1, 2]);
    }
}
