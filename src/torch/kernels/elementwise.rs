//! The innermost elementwise loops: one run of one to four tensors (a start and a stride each, as
//! `strided::runs` hands them out). For unit strides they pick a loop the compiler can vectorise,
//! according to how the output aliases the inputs (in place, disjoint, or partially overlapping,
//! where they keep C's element-by-element order). Outputs too large for the cache are written with
//! streaming stores.

use std::any::TypeId;

#[inline(always)]
fn same<A: 'static, B: 'static>(a: *const A, b: *const B) -> bool {
    TypeId::of::<A>() == TypeId::of::<B>() && std::ptr::addr_eq(a, b)
}

#[inline(always)]
fn disjoint<A, B>(a: *const A, b: *const B, n: usize) -> bool {
    let (a0, b0) = (a as usize, b as usize);
    let (a1, b1) = (a0 + n * size_of::<A>(), b0 + n * size_of::<B>());
    a1 <= b0 || b1 <= a0
}

/// Outputs this large, counting their inputs, do not fit in cache: they are written with streaming
/// (non-temporal) stores, which saves reading each output line from memory before overwriting it.
const STREAM_BYTES: usize = 32 << 20;

/// Writes the `n` elements at `r`, `fill(start, out)` computing elements `start..start + out.len()`
/// into `out`: in place for small outputs; for large ones (`traffic` bytes moved in all), through
/// a small buffer that is then streamed out.
///
/// # Safety
/// `r..r + n` must be writable and must not overlap anything `fill` reads.
#[inline(always)]
unsafe fn fill_out<R: Copy>(n: usize, r: *mut R, traffic: usize, fill: impl Fn(usize, &mut [R])) {
    unsafe {
        #[cfg(target_arch = "x86_64")]
        if traffic >= STREAM_BYTES && 64 % size_of::<R>() == 0 {
            return fill_streamed(n, r, fill);
        }
        let _ = traffic;
        fill(0, std::slice::from_raw_parts_mut(r, n));
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn fill_streamed<R: Copy>(n: usize, r: *mut R, fill: impl Fn(usize, &mut [R])) {
    use std::arch::x86_64::{__m128i, _mm_load_si128, _mm_sfence, _mm_stream_si128};
    // One cache line, computed on the stack (in registers once inlined) and streamed out whole.
    #[repr(C, align(64))]
    struct Line([u8; 64]);
    unsafe {
        let size = size_of::<R>();
        // Elements up to the first line boundary (r is element-aligned and size divides 64).
        let head = ((64 - (r as usize) % 64) % 64 / size).min(n);
        fill(0, std::slice::from_raw_parts_mut(r, head));
        let per_line = 64 / size;
        let mut line = Line([0; 64]);
        let mut i = head;
        while n - i >= per_line {
            fill(
                i,
                std::slice::from_raw_parts_mut(line.0.as_mut_ptr() as *mut R, per_line),
            );
            let src = line.0.as_ptr() as *const __m128i;
            let dst = r.add(i) as *mut __m128i;
            for k in 0..4 {
                _mm_stream_si128(dst.add(k), _mm_load_si128(src.add(k)));
            }
            i += per_line;
        }
        fill(i, std::slice::from_raw_parts_mut(r.add(i), n - i));
        // Streaming stores are weakly ordered: fence them before anything else reads the memory.
        _mm_sfence();
    }
}

/// `r[i] = f(a[i])` over one run.
///
/// # Safety
/// Every strided position must be inside a live allocation of the right type.
#[inline(always)]
pub unsafe fn run1<R: Copy + 'static, A: Copy + 'static>(
    n: usize,
    r: *mut R,
    rs: usize,
    a: *const A,
    as_: usize,
    f: &impl Fn(A) -> R,
) {
    unsafe {
        if rs == 1 && as_ == 1 {
            if same(r, a) {
                // In place: the load and the store share one address per element.
                let a = r as *const A;
                for i in 0..n {
                    *r.add(i) = f(*a.add(i));
                }
                return;
            }
            if disjoint(r, a, n) {
                let traffic = n * (size_of::<R>() + size_of::<A>());
                fill_out(n, r, traffic, |start, out| {
                    let av = std::slice::from_raw_parts(a.add(start), out.len());
                    for (x, &y) in out.iter_mut().zip(av) {
                        *x = f(y);
                    }
                });
                return;
            }
        }
        for i in 0..n {
            *r.add(i * rs) = f(*a.add(i * as_));
        }
    }
}

/// `r[i] = f(a[i], b[i])` over one run.
///
/// # Safety
/// As for `run1`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn run2<R: Copy + 'static, A: Copy + 'static, B: Copy + 'static>(
    n: usize,
    r: *mut R,
    rs: usize,
    a: *const A,
    as_: usize,
    b: *const B,
    bs: usize,
    f: &impl Fn(A, B) -> R,
) {
    unsafe {
        if rs == 1 && as_ == 1 && bs == 1 {
            let (ra, rb) = (same(r, a), same(r, b));
            if ra && rb {
                let a = r as *const A;
                let b = r as *const B;
                for i in 0..n {
                    *r.add(i) = f(*a.add(i), *b.add(i));
                }
                return;
            }
            if ra && disjoint(r, b, n) {
                let rv = std::slice::from_raw_parts_mut(r, n);
                let bv = std::slice::from_raw_parts(b, n);
                for (x, &y) in rv.iter_mut().zip(bv) {
                    // `same` checked that A is R.
                    let old: A = std::mem::transmute_copy(x);
                    *x = f(old, y);
                }
                return;
            }
            if rb && disjoint(r, a, n) {
                let rv = std::slice::from_raw_parts_mut(r, n);
                let av = std::slice::from_raw_parts(a, n);
                for (x, &y) in rv.iter_mut().zip(av) {
                    let old: B = std::mem::transmute_copy(x);
                    *x = f(y, old);
                }
                return;
            }
            if disjoint(r, a, n) && disjoint(r, b, n) {
                let traffic = n * (size_of::<R>() + size_of::<A>() + size_of::<B>());
                fill_out(n, r, traffic, |start, out| {
                    let av = std::slice::from_raw_parts(a.add(start), out.len());
                    let bv = std::slice::from_raw_parts(b.add(start), out.len());
                    for ((x, &y), &z) in out.iter_mut().zip(av).zip(bv) {
                        *x = f(y, z);
                    }
                });
                return;
            }
        }
        for i in 0..n {
            *r.add(i * rs) = f(*a.add(i * as_), *b.add(i * bs));
        }
    }
}

/// `r[i] = f(a[i], b[i], c[i])` over one run.
///
/// # Safety
/// As for `run1`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn run3<R: Copy + 'static>(
    n: usize,
    r: *mut R,
    rs: usize,
    a: *const R,
    as_: usize,
    b: *const R,
    bs: usize,
    c: *const R,
    cs: usize,
    f: &impl Fn(R, R, R) -> R,
) {
    unsafe {
        if rs == 1 && as_ == 1 && bs == 1 && cs == 1 && disjoint(r, b, n) && disjoint(r, c, n) {
            if same(r, a) {
                let rv = std::slice::from_raw_parts_mut(r, n);
                let bv = std::slice::from_raw_parts(b, n);
                let cv = std::slice::from_raw_parts(c, n);
                for ((x, &y), &z) in rv.iter_mut().zip(bv).zip(cv) {
                    *x = f(*x, y, z);
                }
                return;
            }
            if disjoint(r, a, n) {
                fill_out(n, r, n * 4 * size_of::<R>(), |start, out| {
                    let av = std::slice::from_raw_parts(a.add(start), out.len());
                    let bv = std::slice::from_raw_parts(b.add(start), out.len());
                    let cv = std::slice::from_raw_parts(c.add(start), out.len());
                    for (((x, &w), &y), &z) in out.iter_mut().zip(av).zip(bv).zip(cv) {
                        *x = f(w, y, z);
                    }
                });
                return;
            }
        }
        for i in 0..n {
            *r.add(i * rs) = f(*a.add(i * as_), *b.add(i * bs), *c.add(i * cs));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_outputs_match_direct_ones() {
        // Odd lengths and a misaligned start exercise the head, the chunks and the tail.
        for (n, skip) in [(12_000_001usize, 1usize), (3, 0), (20_000, 3)] {
            let a: Vec<f32> = (0..n + skip).map(|i| (i % 977) as f32).collect();
            let mut r = vec![0f32; n + skip];
            let f = |x: f32| x * 0.5 + 1.0;
            unsafe { run1(n, r.as_mut_ptr().add(skip), 1, a.as_ptr().add(skip), 1, &f) };
            assert!((0..n).all(|i| r[skip + i] == f(a[skip + i])), "n = {n}");
            let bytes: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
            let mut out = vec![0u8; n];
            unsafe {
                run2(
                    n,
                    out.as_mut_ptr(),
                    1,
                    bytes.as_ptr(),
                    1,
                    bytes.as_ptr(),
                    1,
                    &|x: u8, y: u8| x ^ y ^ 7,
                )
            };
            assert!(out.iter().all(|&v| v == 7));
            let mut acc = vec![0f32; n + skip];
            let g = |x: f32, y: f32, z: f32| x + 2.0 * y * z;
            let (p, q) = (a[skip..].as_ptr(), r[skip..].as_ptr());
            unsafe { run3(n, acc.as_mut_ptr().add(skip), 1, p, 1, q, 1, p, 1, &g) };
            assert!((0..n).all(|i| acc[skip + i] == g(a[skip + i], r[skip + i], a[skip + i])));
        }
    }

    #[test]
    fn overlapping_runs_keep_c_order() {
        let mut v = [1.0f64, 2.0, 3.0, 4.0, 5.0];
        let p = v.as_mut_ptr();
        // r = v[1..], a = v[..4]: each element takes its left neighbour's already-updated value.
        unsafe { run1(4, p.add(1), 1, p as *const f64, 1, &|x: f64| x * 2.0) };
        assert_eq!(v, [1.0, 2.0, 4.0, 8.0, 16.0]);
        let mut w = [1.0f64, 2.0, 3.0];
        let q = w.as_mut_ptr();
        unsafe { run2(3, q, 1, q as *const f64, 1, q as *const f64, 1, &|x: f64, y: f64| x + y) };
        assert_eq!(w, [2.0, 4.0, 6.0]);
    }
}
