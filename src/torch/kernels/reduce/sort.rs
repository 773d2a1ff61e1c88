//! The order statistics along a dimension (sort, topk, kthvalue, median, mode): each lane's
//! elements become integer keys in the order of the values (NaN last), packed with the position
//! into one u64 for types of 32 bits or less, and are sorted (an LSD radix sort for long lanes)
//! or selected.

use std::ops::Range;

use super::accumulate::Reduce;
use super::plan::{Plan, data, result_like};
use crate::error::Result;
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::strided::offsets_or_single;

/// A lane element while sorting: its value's key and its position, ordered by key then
/// position, so that an unstable sort of items is a stable sort of values. Narrow keys pack with
/// the position into one u64, which sorts fastest.
trait LaneItem: Ord + Copy {
    fn new(key: u64, pos: usize) -> Self;
    fn key(self) -> u64;
    fn pos(self) -> usize;
}

impl LaneItem for u64 {
    #[inline(always)]
    fn new(key: u64, pos: usize) -> u64 {
        (key << 32) | pos as u64
    }
    #[inline(always)]
    fn key(self) -> u64 {
        self >> 32
    }
    #[inline(always)]
    fn pos(self) -> usize {
        (self & 0xFFFF_FFFF) as usize
    }
}

impl LaneItem for (u64, usize) {
    #[inline(always)]
    fn new(key: u64, pos: usize) -> Self {
        (key, pos)
    }
    #[inline(always)]
    fn key(self) -> u64 {
        self.0
    }
    #[inline(always)]
    fn pos(self) -> usize {
        self.1
    }
}

/// What to take from each sorted lane.
#[derive(Clone, Copy)]
pub enum Pick {
    /// Every element in order.
    Sort,
    /// The k first in order.
    First(usize),
    /// The k-th (1-based) in order.
    Kth(usize),
    /// The most frequent value.
    Mode,
}

/// Lanes at least this long are sorted by radix rather than by comparisons (measured: shorter
/// ones sort as fast with pattern-defeating quicksort).
const RADIX_MIN: usize = 1 << 16;
const RADIX_BITS: u32 = 11;

/// Sorts items by key, stably (LSD radix: positions, already increasing, stay in order among
/// equal keys), ping-ponging with `scratch`. Digits on which every key agrees are skipped.
fn radix_sort<I: LaneItem>(data: &mut [I], scratch: &mut Vec<I>, key_bits: u32) {
    const BUCKETS: usize = 1 << RADIX_BITS;
    let n = data.len();
    scratch.clear();
    scratch.resize(n, I::new(0, 0));
    let mut in_scratch = false;
    let mut shift = 0;
    while shift < key_bits {
        let (src, dst): (&[I], &mut [I]) = if in_scratch {
            (&scratch[..], &mut *data)
        } else {
            (&*data, &mut scratch[..])
        };
        let sh = shift;
        let digit = move |it: I| ((it.key() >> sh) as usize) & (BUCKETS - 1);
        let mut count = [0usize; BUCKETS];
        for &it in src {
            count[digit(it)] += 1;
        }
        shift += RADIX_BITS;
        if count.contains(&n) {
            continue;
        }
        let mut next = 0;
        for c in count.iter_mut() {
            let here = *c;
            *c = next;
            next += here;
        }
        for &it in src {
            let d = digit(it);
            dst[count[d]] = it;
            count[d] += 1;
        }
        in_scratch = !in_scratch;
    }
    if in_scratch {
        data.copy_from_slice(&scratch[..n]);
    }
}

/// Sorts items by (key, position).
fn sort_items<I: LaneItem>(data: &mut [I], scratch: &mut Vec<I>, key_bits: u32) {
    if data.len() >= RADIX_MIN {
        radix_sort(data, scratch, key_bits);
    } else {
        data.sort_unstable();
    }
}

impl Pick {
    /// Reorders a lane's items (using `scratch` as room) and returns the range to output.
    fn apply<I: LaneItem>(self, buf: &mut [I], scratch: &mut Vec<I>, key_bits: u32) -> Range<usize> {
        match self {
            Pick::Sort => {
                sort_items(buf, scratch, key_bits);
                0..buf.len()
            }
            Pick::First(k) => {
                if k < buf.len() {
                    buf.select_nth_unstable(k - 1);
                }
                sort_items(&mut buf[..k], scratch, key_bits);
                0..k
            }
            Pick::Kth(k) => {
                buf.select_nth_unstable(k - 1);
                k - 1..k
            }
            Pick::Mode => {
                sort_items(buf, scratch, key_bits);
                // The longest run of equal values, the smallest value on ties; its last element
                // (the value's last position: the order is stable) is the answer, as Torch
                // reports it.
                let (mut best_end, mut best_len, mut start) = (0, 0, 0);
                for i in 0..buf.len() {
                    if i + 1 == buf.len() || buf[i].key() != buf[i + 1].key() {
                        if i + 1 - start > best_len {
                            best_len = i + 1 - start;
                            best_end = i;
                        }
                        start = i + 1;
                    }
                }
                best_end..best_end + 1
            }
        }
    }
}

/// For each lane along `dim`: sorts or selects the lane's elements as `pick` says (in decreasing
/// order when `desc`) and writes the chosen ones along `dim` of the results (values, and 1-based
/// positions in a LongTensor), which have `out_len` elements along `dim`.
pub fn per_lane<T: Reduce>(x: &Tensor, dim: usize, out_len: usize, desc: bool, pick: Pick) -> Result<(Tensor, Tensor)> {
    if T::WIDE_KEY || x.size[dim] > u32::MAX as usize {
        per_lane_items::<T, (u64, usize)>(x, dim, out_len, desc, pick)
    } else {
        per_lane_items::<T, u64>(x, dim, out_len, desc, pick)
    }
}

fn per_lane_items<T: Reduce, I: LaneItem>(
    x: &Tensor,
    dim: usize,
    out_len: usize,
    desc: bool,
    pick: Pick,
) -> Result<(Tensor, Tensor)> {
    let vals = result_like(T::DTYPE, x, dim, out_len)?;
    let idx = result_like(DType::Long, x, dim, out_len)?;
    if vals.numel() == 0 || x.numel() == 0 {
        return Ok((vals, idx));
    }
    let plan = Plan::new(x, dim, false);
    let (n, st) = (plan.n, plan.st);
    let (vrest, vst) = plan.arrange(&vals);
    let (irest, ist) = plan.arrange(&idx);
    let p = data::<T>(x)?;
    let vp = data::<T>(&vals)?;
    let ip = data::<i64>(&idx)?;
    // Decreasing order is increasing order of complemented keys (positions stay increasing).
    let flip = match (desc, T::WIDE_KEY) {
        (false, _) => 0,
        (true, false) => u32::MAX as u64,
        (true, true) => u64::MAX,
    };
    let key_bits = if T::WIDE_KEY { 64 } else { 32 };
    let mut buf: Vec<I> = Vec::with_capacity(n);
    let mut scratch: Vec<I> = Vec::new();
    for ((xs, vs), is) in offsets_or_single(&plan.rest)
        .zip(offsets_or_single(&vrest))
        .zip(offsets_or_single(&irest))
    {
        buf.clear();
        // SAFETY: offsets of valid views; the results are fresh.
        unsafe {
            buf.extend((0..n).map(|i| I::new((*p.add(xs + i * st)).key() ^ flip, i)));
            let range = pick.apply(&mut buf, &mut scratch, key_bits);
            for (o, item) in buf[range].iter().enumerate() {
                let i = item.pos();
                *vp.add(vs + o * vst) = *p.add(xs + i * st);
                *ip.add(is + o * ist) = i as i64 + 1;
            }
        }
    }
    Ok((vals, idx))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_value_order() {
        let f = [
            f32::NEG_INFINITY,
            -2.5,
            -1e-30,
            -0.0,
            0.0,
            1e-30,
            3.0,
            f32::INFINITY,
            f32::NAN,
        ];
        let k: Vec<u64> = f.iter().map(|v| v.key()).collect();
        assert!(k.windows(2).all(|w| w[0] <= w[1]), "{k:?}");
        assert_eq!(k[3], k[4]);
        assert!(k.iter().all(|&k| k <= u32::MAX as u64));
        assert_eq!(f64::NAN.key(), (-f64::NAN).key());
        let d = [f64::MIN, -1.0, 0.0, 2.0, f64::MAX, f64::NAN];
        assert!(d.windows(2).all(|w| w[0].key() < w[1].key()));
        let i = [i32::MIN, -1, 0, 7, i32::MAX];
        assert!(i.windows(2).all(|w| w[0].key() < w[1].key()));
        assert!(i32::MAX.key() <= u32::MAX as u64 && 255u8.key() < 0i8.key() + 256);
        let l = [i64::MIN, -1, 0, i64::MAX];
        assert!(l.windows(2).all(|w| w[0].key() < w[1].key()));
    }

    #[test]
    fn radix_sort_is_stable_and_matches_comparison_sort() {
        let mut seed = 12345u64;
        let mut keys: Vec<u64> = (0..5000)
            .map(|_| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (seed >> 40) % 300
            })
            .collect();
        keys[17] = u32::MAX as u64;
        let items: Vec<u64> = keys.iter().enumerate().map(|(i, &k)| u64::new(k, i)).collect();
        let mut a = items.clone();
        radix_sort(&mut a, &mut Vec::new(), 32);
        let mut b = items.clone();
        b.sort_unstable();
        assert_eq!(a, b);
        let wide: Vec<(u64, usize)> = keys.iter().enumerate().map(|(i, &k)| (k << 40, i)).collect();
        let mut a = wide.clone();
        radix_sort(&mut a, &mut Vec::new(), 64);
        let mut b = wide;
        b.sort_unstable();
        assert_eq!(a, b);
    }

    #[test]
    fn picks_are_stable() {
        let items = |v: &[u64]| -> Vec<u64> { v.iter().enumerate().map(|(i, &k)| u64::new(k, i)).collect() };
        let mut b = items(&[5, 1, 5, 0, 1]);
        assert_eq!(Pick::Sort.apply(&mut b, &mut Vec::new(), 32), 0..5);
        assert_eq!(b.iter().map(|i| i.pos()).collect::<Vec<_>>(), vec![3, 1, 4, 0, 2]);
        let mut b = items(&[5, 1, 5, 0, 1]);
        let r = Pick::Mode.apply(&mut b, &mut Vec::new(), 32);
        // 1 and 5 both occur twice: the smaller wins, at its last position.
        assert_eq!((b[r.start].key(), b[r.start].pos()), (1, 4));
        let mut b = items(&[5, 1, 5, 0, 1]);
        let r = Pick::Kth(3).apply(&mut b, &mut Vec::new(), 32);
        assert_eq!(b[r.start].pos(), 4);
        let mut b = items(&[5, 1, 5, 0, 1]);
        assert_eq!(Pick::First(2).apply(&mut b, &mut Vec::new(), 32), 0..2);
        assert_eq!((b[0].pos(), b[1].pos()), (3, 1));
    }
}
