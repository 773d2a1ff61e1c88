//! Strided iteration, shared by every kernel: element offsets of a tensor in Torch's logical
//! (row-major) order, with dimensions merged where the memory allows, so that the common cases
//! run as flat loops over contiguous runs.

use super::layout::Tensor;

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
        self.for_each_run_with(self, |a, _| f(a));
    }

    /// Walks the runs of `self` and of `other` (same merged sizes) in lockstep.
    pub fn for_each_run_with(&self, other: &Geometry, mut f: impl FnMut(usize, usize)) {
        debug_assert_eq!(self.size, other.size);
        let outer = self.size.len().saturating_sub(1);
        let (mut a, mut b) = (self.offset, other.offset);
        if outer == 0 {
            f(a, b);
            return;
        }
        let mut counter = vec![0usize; outer];
        loop {
            f(a, b);
            let mut d = outer;
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                counter[d] += 1;
                a += self.stride[d];
                b += other.stride[d];
                if counter[d] < self.size[d] {
                    break;
                }
                a -= self.stride[d] * self.size[d];
                b -= other.stride[d] * other.size[d];
                counter[d] = 0;
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::dtype::DType;

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
}
