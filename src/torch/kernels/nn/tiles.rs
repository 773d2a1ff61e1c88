//! The products the direct convolutions (`conv`) are made of, tiled in registers:
//! y[m][p] = sum_t a[m][t] * x[offs[t] + p] (the forward pass and the input's gradient) and
//! g[m][t] += sum_p gy[m][p] * x[offs[t] + p] (the weight's gradient), where every row of the
//! right operand is a stretch of one buffer starting at its own offset. Each has a build for
//! AVX2 + FMA, chosen at run time, and a portable one.

use crate::torch::base::dtype::Element;

/// The float types, with a fused multiply-add for the builds that have one.
pub trait Float: Element + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> {
    fn fused(self, b: Self, c: Self) -> Self;
}

impl Float for f32 {
    #[inline(always)]
    fn fused(self, b: f32, c: f32) -> f32 {
        self.mul_add(b, c)
    }
}

impl Float for f64 {
    #[inline(always)]
    fn fused(self, b: f64, c: f64) -> f64 {
        self.mul_add(b, c)
    }
}

/// a * b + c, fused only where the code is compiled for FMA (elsewhere `mul_add` is a libm call).
#[inline(always)]
pub(super) fn madd<T: Float, const FMA: bool>(a: T, b: T, c: T) -> T {
    if FMA { a.fused(b, c) } else { a * b + c }
}

/// Rows of a tile of the products: enough to fill the registers with two vectors per row.
const MR: usize = 6;

/// A row-major matrix (rows x taps, given by its element function) in blocks of up to MR rows,
/// each stored tap by tap, so that a tile reads its weights in order.
pub(super) struct Packed<T> {
    blocks: Vec<(usize, usize, Vec<T>)>,
}

impl<T: Copy> Packed<T> {
    pub(super) fn new(rows: usize, taps: usize, a: impl Fn(usize, usize) -> T) -> Packed<T> {
        let mut blocks = Vec::new();
        let mut m0 = 0;
        while m0 < rows {
            let mr = (rows - m0).min(MR);
            let data = (0..taps)
                .flat_map(|t| (m0..m0 + mr).map(move |m| (t, m)))
                .map(|(t, m)| a(m, t))
                .collect();
            blocks.push((m0, mr, data));
            m0 += mr;
        }
        Packed { blocks }
    }
}

/// One tile: y[m0 + m][p + l] = sum_t a[m][t] * x[offs[t] + p + l] for m < M, l < N.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn tile<T: Float, const M: usize, const N: usize, const FMA: bool>(
    a: &[T],
    offs: &[usize],
    x: &[T],
    p: usize,
    y: &mut [T],
    ldy: usize,
    m0: usize,
) {
    let mut acc = [[T::zero(); N]; M];
    let (a, _) = a.as_chunks::<M>();
    for (a, &off) in a.iter().zip(offs) {
        let xs = x[off + p..].first_chunk::<N>().expect("taps stay inside the planes");
        for m in 0..M {
            for l in 0..N {
                acc[m][l] = madd::<T, FMA>(a[m], xs[l], acc[m][l]);
            }
        }
    }
    for (m, row) in acc.iter().enumerate() {
        y[(m0 + m) * ldy + p..][..N].copy_from_slice(row);
    }
}

/// The tiles of one block of M rows over `len` positions: NR at a time, then NH, then one.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn block<T: Float, const M: usize, const NR: usize, const NH: usize, const FMA: bool>(
    a: &[T],
    offs: &[usize],
    x: &[T],
    len: usize,
    y: &mut [T],
    ldy: usize,
    m0: usize,
) {
    let mut p = 0;
    while p + NR <= len {
        tile::<T, M, NR, FMA>(a, offs, x, p, y, ldy, m0);
        p += NR;
    }
    if p + NH <= len {
        tile::<T, M, NH, FMA>(a, offs, x, p, y, ldy, m0);
        p += NH;
    }
    while p < len {
        tile::<T, M, 1, FMA>(a, offs, x, p, y, ldy, m0);
        p += 1;
    }
}

/// y[m][p] = sum_t a[m][t] * x[offs[t] + p] for every row m of `a` and p < len (row m of y starts
/// at m * ldy).
#[inline(always)]
fn products<T: Float, const NR: usize, const NH: usize, const FMA: bool>(
    a: &Packed<T>,
    offs: &[usize],
    x: &[T],
    len: usize,
    y: &mut [T],
    ldy: usize,
) {
    for (m0, count, data) in &a.blocks {
        let (m0, d) = (*m0, &data[..]);
        match count {
            1 => block::<T, 1, NR, NH, FMA>(d, offs, x, len, y, ldy, m0),
            2 => block::<T, 2, NR, NH, FMA>(d, offs, x, len, y, ldy, m0),
            3 => block::<T, 3, NR, NH, FMA>(d, offs, x, len, y, ldy, m0),
            4 => block::<T, 4, NR, NH, FMA>(d, offs, x, len, y, ldy, m0),
            5 => block::<T, 5, NR, NH, FMA>(d, offs, x, len, y, ldy, m0),
            _ => block::<T, MR, NR, NH, FMA>(d, offs, x, len, y, ldy, m0),
        }
    }
}

/// Sums of one tile of the weight's gradient: g[m0 + m][t0 + j] += sum_{p < len}
/// gy[(m0 + m) * ldg + p] * x[offs[j] + p] for m < M, j < J, over V positions at a time.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn grad_tile<T: Float, const M: usize, const J: usize, const V: usize, const FMA: bool>(
    gy: &[T],
    ldg: usize,
    m0: usize,
    offs: &[usize],
    x: &[T],
    len: usize,
    g: &mut [T],
    taps: usize,
    t0: usize,
) {
    let mut acc = [[[T::zero(); V]; J]; M];
    let offs: &[usize; J] = offs.first_chunk::<J>().expect("a tile's taps");
    // Every read below is checked here once: with a check per read, the sums no longer fit in
    // the registers and the loop runs at a quarter of the speed.
    assert!(offs.iter().all(|&o| o + len <= x.len()) && (m0 + M - 1) * ldg + len <= gy.len());
    let (xp, gp) = (x.as_ptr(), gy.as_ptr());
    let mut p = 0;
    while p + V <= len {
        for (m, acc) in acc.iter_mut().enumerate() {
            for (j, acc) in acc.iter_mut().enumerate() {
                for (l, acc) in acc.iter_mut().enumerate() {
                    // SAFETY: p + l < len, within the bounds asserted above.
                    let (gv, xv) = unsafe { (*gp.add((m0 + m) * ldg + p + l), *xp.add(offs[j] + p + l)) };
                    *acc = madd::<T, FMA>(gv, xv, *acc);
                }
            }
        }
        p += V;
    }
    for (m, acc) in acc.iter().enumerate() {
        let row = &gy[(m0 + m) * ldg..];
        for (j, lanes) in acc.iter().enumerate() {
            let mut s = lanes.iter().fold(T::zero(), |s, &v| s + v);
            for q in p..len {
                s = madd::<T, FMA>(row[q], x[offs[j] + q], s);
            }
            let at = (m0 + m) * taps + t0 + j;
            g[at] = g[at] + s;
        }
    }
}

/// The tiles of a block of M rows of the weight's gradient, three taps at a time.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn grad_block<T: Float, const M: usize, const V: usize, const FMA: bool>(
    gy: &[T],
    ldg: usize,
    m0: usize,
    offs: &[usize],
    x: &[T],
    len: usize,
    g: &mut [T],
) {
    let taps = offs.len();
    let mut t0 = 0;
    while t0 < taps {
        let o = &offs[t0..];
        match taps - t0 {
            1 => grad_tile::<T, M, 1, V, FMA>(gy, ldg, m0, o, x, len, g, taps, t0),
            2 => grad_tile::<T, M, 2, V, FMA>(gy, ldg, m0, o, x, len, g, taps, t0),
            _ => grad_tile::<T, M, 3, V, FMA>(gy, ldg, m0, o, x, len, g, taps, t0),
        }
        t0 += 3;
    }
}

/// g[m][t] += sum_{p < len} gy[m * ldg + p] * x[offs[t] + p] for m < rows and every tap t (g is
/// rows x taps, row-major).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn grad_products<T: Float, const V: usize, const FMA: bool>(
    gy: &[T],
    ldg: usize,
    rows: usize,
    offs: &[usize],
    x: &[T],
    len: usize,
    g: &mut [T],
) {
    let mut m0 = 0;
    while m0 < rows {
        match rows - m0 {
            1 => grad_block::<T, 1, V, FMA>(gy, ldg, m0, offs, x, len, g),
            2 => grad_block::<T, 2, V, FMA>(gy, ldg, m0, offs, x, len, g),
            3 => grad_block::<T, 3, V, FMA>(gy, ldg, m0, offs, x, len, g),
            _ => grad_block::<T, 4, V, FMA>(gy, ldg, m0, offs, x, len, g),
        }
        m0 += 4;
    }
}

/// Whether this machine runs the AVX2 + FMA builds of the products.
fn fast() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The products for one element type: its tile widths (two AVX registers of positions, one for
/// the gradient's sums) and the AVX2 + FMA builds.
pub(super) trait Lanes: Float {
    fn products(a: &Packed<Self>, offs: &[usize], x: &[Self], len: usize, y: &mut [Self], ldy: usize);
    #[allow(clippy::too_many_arguments)]
    fn grad_products(gy: &[Self], ldg: usize, rows: usize, offs: &[usize], x: &[Self], len: usize, g: &mut [Self]);
}

macro_rules! lanes {
    ($t:ty, $nr:literal, $nh:literal, $v:literal, $prod:ident, $grad:ident) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        fn $prod(a: &Packed<$t>, offs: &[usize], x: &[$t], len: usize, y: &mut [$t], ldy: usize) {
            products::<$t, $nr, $nh, true>(a, offs, x, len, y, ldy)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        fn $grad(gy: &[$t], ldg: usize, rows: usize, offs: &[usize], x: &[$t], len: usize, g: &mut [$t]) {
            grad_products::<$t, $v, true>(gy, ldg, rows, offs, x, len, g)
        }

        impl Lanes for $t {
            fn products(a: &Packed<$t>, offs: &[usize], x: &[$t], len: usize, y: &mut [$t], ldy: usize) {
                #[cfg(target_arch = "x86_64")]
                if fast() {
                    // SAFETY: the CPU has AVX2 and FMA (checked just above).
                    return unsafe { $prod(a, offs, x, len, y, ldy) };
                }
                products::<$t, $nr, $nh, false>(a, offs, x, len, y, ldy)
            }

            fn grad_products(gy: &[$t], ldg: usize, rows: usize, offs: &[usize], x: &[$t], len: usize, g: &mut [$t]) {
                #[cfg(target_arch = "x86_64")]
                if fast() {
                    // SAFETY: the CPU has AVX2 and FMA (checked just above).
                    return unsafe { $grad(gy, ldg, rows, offs, x, len, g) };
                }
                grad_products::<$t, $v, false>(gy, ldg, rows, offs, x, len, g)
            }
        }
    };
}
lanes!(f32, 16, 8, 8, products_f32, grad_products_f32);
lanes!(f64, 8, 4, 4, products_f64, grad_products_f64);
