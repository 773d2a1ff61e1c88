//! The sums of an allreduce over shared memory: n sources added in rank order (so that every
//! rank that computes an element gets the same bits), a block at a time through a small
//! accumulator that stays in the L1 cache, then written to one or two destinations. Integers wrap
//! as Torch's `add` does on them.

/// The element types the shared-memory path sums (Torch's, less Half, which has no maths).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    U8,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
}

impl Kind {
    pub fn size(self) -> usize {
        match self {
            Kind::U8 | Kind::I8 => 1,
            Kind::I16 => 2,
            Kind::I32 | Kind::F32 => 4,
            Kind::I64 | Kind::F64 => 8,
        }
    }
}

trait Elem: Copy {
    fn plus(self, o: Self) -> Self;
}

macro_rules! wrapping {
    ($($t:ty),*) => {$(impl Elem for $t { #[inline(always)] fn plus(self, o: Self) -> Self { self.wrapping_add(o) } })*};
}
wrapping!(u8, i8, i16, i32, i64);
impl Elem for f32 {
    #[inline(always)]
    fn plus(self, o: Self) -> Self {
        self + o
    }
}
impl Elem for f64 {
    #[inline(always)]
    fn plus(self, o: Self) -> Self {
        self + o
    }
}

/// Bytes per block: small enough for L1 with the sources' lines.
const BLOCK: usize = 4096;

/// dst (and dst2) = srcs[0] + srcs[1] + ... over `bytes` bytes of T, in that order. A source may
/// be the same memory as dst (each block is read before it is written).
///
/// # Safety
/// Every pointer is aligned for T and valid for `bytes` bytes; dst and dst2 are not read by
/// anyone else meanwhile; bytes is a multiple of T's size; there is at least one source.
unsafe fn sum_as<T: Elem>(srcs: &[*const u8], dst: *mut u8, dst2: Option<*mut u8>, bytes: usize) {
    let es = std::mem::size_of::<T>();
    let per = BLOCK / es;
    // Not zeroed: every element is written before it is read (zeroing 4 KiB cost more than a
    // small allreduce's sum).
    let mut acc = std::mem::MaybeUninit::<[u64; BLOCK / 8]>::uninit();
    let acc = acc.as_mut_ptr().cast::<T>();
    let count = bytes / es;
    let mut at = 0;
    while at < count {
        let m = per.min(count - at);
        // SAFETY: as the caller promises; acc holds BLOCK bytes, aligned for any T here.
        unsafe {
            let s0 = std::slice::from_raw_parts(srcs[0].cast::<T>().add(at), m);
            if srcs.len() > 1 {
                let s1 = std::slice::from_raw_parts(srcs[1].cast::<T>().add(at), m);
                for (j, (&p, &q)) in s0.iter().zip(s1).enumerate() {
                    acc.add(j).write(p.plus(q));
                }
            } else {
                std::ptr::copy_nonoverlapping(s0.as_ptr(), acc, m);
            }
            // Written in full above: a slice of it is now valid.
            let a = std::slice::from_raw_parts_mut(acc, m);
            for src in &srcs[2.min(srcs.len())..] {
                let s = std::slice::from_raw_parts(src.cast::<T>().add(at), m);
                for (x, &q) in a.iter_mut().zip(s) {
                    *x = x.plus(q);
                }
            }
            std::ptr::copy_nonoverlapping(acc, dst.cast::<T>().add(at), m);
            if let Some(d2) = dst2 {
                std::ptr::copy_nonoverlapping(acc, d2.cast::<T>().add(at), m);
            }
        }
        at += m;
    }
}

/// `sum_as` for the element type `kind`.
///
/// # Safety
/// As `sum_as`.
pub unsafe fn sum(kind: Kind, srcs: &[*const u8], dst: *mut u8, dst2: Option<*mut u8>, bytes: usize) {
    // SAFETY: as the caller promises.
    unsafe {
        match kind {
            Kind::U8 => sum_as::<u8>(srcs, dst, dst2, bytes),
            Kind::I8 => sum_as::<i8>(srcs, dst, dst2, bytes),
            Kind::I16 => sum_as::<i16>(srcs, dst, dst2, bytes),
            Kind::I32 => sum_as::<i32>(srcs, dst, dst2, bytes),
            Kind::I64 => sum_as::<i64>(srcs, dst, dst2, bytes),
            Kind::F32 => sum_as::<f32>(srcs, dst, dst2, bytes),
            Kind::F64 => sum_as::<f64>(srcs, dst, dst2, bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_in_rank_order_with_a_source_in_place() {
        let n = 5000;
        let mut a: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..n).map(|i| 0.5 * i as f32).collect();
        let c: Vec<f32> = vec![1e-3; n];
        let mut d2 = vec![0f32; n];
        let want: Vec<f32> = (0..n).map(|i| (a[i] + b[i]) + c[i]).collect();
        let srcs = [a.as_ptr().cast(), b.as_ptr().cast(), c.as_ptr().cast()];
        unsafe {
            sum(
                Kind::F32,
                &srcs,
                a.as_mut_ptr().cast(),
                Some(d2.as_mut_ptr().cast()),
                n * 4,
            )
        };
        assert_eq!(a, want);
        assert_eq!(d2, want);
    }

    #[test]
    fn integers_wrap() {
        let mut a = vec![250u8, 1];
        let b = [10u8, 2];
        let srcs = [a.as_ptr(), b.as_ptr()];
        unsafe { sum(Kind::U8, &srcs, a.as_mut_ptr(), None, 2) };
        assert_eq!(a, vec![4, 3]);
    }
}
