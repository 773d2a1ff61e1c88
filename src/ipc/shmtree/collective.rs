//! One allreduce (sum) over the segment. A call's leaves are laid out one after another (each at
//! a 64-byte boundary) in a byte stream; the stream goes through in chunks of at most REGION
//! bytes, alternate chunks in alternate sets of regions, so that a chunk's copies never wait for
//! the readers of the one before (a rank starts chunk i + 2 only after every rank has arrived at
//! a barrier of chunk i + 1, by which time they are all done with chunk i).
//!
//! - A small stream (one chunk of at most SMALL bytes): every rank copies its stream into its
//!   region, one barrier, every rank sums all regions in rank order into its own leaves.
//! - A larger chunk: a reduce-scatter then an all-gather. The chunk is cut into one slice per
//!   rank; a rank copies the slices that are not its own, barrier, sums its own slice over every
//!   region (its own part straight from its leaves) into its leaves and its region, barrier,
//!   copies the other ranks' sums from their regions.
//!
//! The first barrier of a call also checks that every rank posted the same stream (else all
//! raise), and lets any rank send the call over the sockets instead (then all do).

use std::sync::atomic::Ordering::SeqCst;

use super::segment::{FAST, REGION, SOCKETS, Segment};
use super::sum::{Kind, sum};
use crate::error::{Error, Kind as ErrorKind, Result};

/// The largest stream summed whole by every rank (one barrier instead of two).
const SMALL: usize = 32 << 10;

/// One leaf of a call: `bytes` bytes of `kind` at `ptr` (contiguous, aligned for its type).
#[derive(Clone, Copy)]
pub struct Leaf {
    pub ptr: *mut u8,
    pub bytes: usize,
    pub kind: Kind,
}

/// How a call went: summed here, or to be sent over the sockets by every rank.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Summed,
    Sockets,
}

pub struct Group {
    pub seg: Segment,
    /// Barriers passed (all ranks pass the same ones), and chunks done (which set is next).
    barriers: u32,
    chunks: u64,
    /// Kept between calls: where each leaf starts in the stream, and a sum's sources.
    at: Vec<usize>,
    srcs: Vec<*const u8>,
}

fn align64(x: usize) -> usize {
    x.div_ceil(64) * 64
}

/// A stream's shape: its leaves' types and sizes, hashed (FNV-1a).
pub fn shape_of(leaves: &[Leaf]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for l in leaves {
        for b in (l.kind as u64)
            .to_le_bytes()
            .into_iter()
            .chain((l.bytes as u64).to_le_bytes())
        {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// A piece of a leaf inside a stream range: (leaf, offset in the leaf, offset in the stream, bytes).
fn pieces(leaves: &[Leaf], at: &[usize], a: usize, b: usize, mut f: impl FnMut(&Leaf, usize, usize, usize)) {
    // Leaves are in stream order: skip those that end before `a`.
    let first = at.partition_point(|&o| o < a).saturating_sub(1);
    for (l, &o) in leaves.iter().zip(at).skip(first) {
        if o >= b {
            break;
        }
        let (s, e) = (a.max(o), b.min(o + l.bytes));
        if s < e {
            f(l, s - o, s, e - s);
        }
    }
}

impl Group {
    pub fn new(seg: Segment) -> Group {
        Group {
            seg,
            barriers: 0,
            chunks: 0,
            at: Vec::new(),
            srcs: Vec::new(),
        }
    }

    fn barrier(&mut self) -> Result<()> {
        self.barriers = self.barriers.wrapping_add(1);
        let target = self.barriers.wrapping_mul(self.seg.n as u32);
        let h = self.seg.header();
        let old = h.arrive.0.fetch_add(1, SeqCst);
        if old.wrapping_add(1) == target {
            self.seg.wake(&h.arrive.0);
            return Ok(());
        }
        self.seg.wait(&h.arrive.0, |v| v.wrapping_sub(target) as i32 >= 0)
    }

    /// Checks the posts of the call's first barrier: Sockets when any rank asked for them.
    fn agree(&self, set: usize, bytes: usize, shape: u64) -> Result<Outcome> {
        let me = self.seg.rank;
        for k in 0..self.seg.n {
            if self.seg.slot(k).post[set].mode.load(SeqCst) == SOCKETS {
                return Ok(Outcome::Sockets);
            }
        }
        for k in 0..self.seg.n {
            let s = &self.seg.slot(k).post[set];
            let (b, sh) = (s.bytes.load(SeqCst), s.shape.load(SeqCst));
            if b != bytes as u64 || sh != shape {
                return Err(Error::new(
                    ErrorKind::Shape,
                    format!(
                        "the values differ in structure: node {} passed {bytes} bytes of leaves, node {} {b} bytes{}",
                        me + 1,
                        k + 1,
                        if b == bytes as u64 {
                            " of other types or sizes"
                        } else {
                            ""
                        }
                    ),
                ));
            }
        }
        Ok(Outcome::Summed)
    }

    /// Sums `leaves` over every rank, in place; None: this rank's call goes over the sockets (so
    /// will every rank's).
    pub fn allreduce(&mut self, leaves: Option<&[Leaf]>) -> Result<Outcome> {
        let me = self.seg.rank;
        // The first chunk's set: where this call posts.
        let mine = &self.seg.slot(me).post[(self.chunks % 2) as usize];
        let Some(leaves) = leaves else {
            mine.mode.store(SOCKETS, SeqCst);
            self.chunks += 1;
            self.barrier()?;
            return Ok(Outcome::Sockets);
        };
        let mut at = std::mem::take(&mut self.at);
        at.clear();
        let mut len = 0;
        for l in leaves {
            len = align64(len);
            at.push(len);
            len += l.bytes;
        }
        let shape = shape_of(leaves);
        mine.mode.store(FAST, SeqCst);
        mine.bytes.store(len as u64, SeqCst);
        mine.shape.store(shape, SeqCst);
        let out = self.stream(leaves, &at, len, shape);
        self.at = at;
        out
    }

    fn stream(&mut self, leaves: &[Leaf], at: &[usize], len: usize, shape: u64) -> Result<Outcome> {
        if len <= SMALL {
            return self.small(leaves, at, len, shape);
        }
        let mut c0 = 0;
        while c0 < len {
            let c1 = (c0 + REGION).min(len);
            if let Outcome::Sockets = self.chunk(leaves, at, c0, c1, c0 == 0, len, shape)? {
                return Ok(Outcome::Sockets);
            }
            c0 = c1;
        }
        Ok(Outcome::Summed)
    }

    fn small(&mut self, leaves: &[Leaf], at: &[usize], len: usize, shape: u64) -> Result<Outcome> {
        let (n, me) = (self.seg.n, self.seg.rank);
        let set = (self.chunks % 2) as usize;
        self.chunks += 1;
        let region = self.seg.region(set, me);
        for (l, &o) in leaves.iter().zip(at) {
            // SAFETY: the leaf's bytes, into this rank's region (len <= SMALL < REGION).
            unsafe { std::ptr::copy_nonoverlapping(l.ptr, region.add(o), l.bytes) };
        }
        self.barrier()?;
        if self.agree(set, len, shape)? == Outcome::Sockets {
            return Ok(Outcome::Sockets);
        }
        let mut srcs = std::mem::take(&mut self.srcs);
        srcs.resize(n, std::ptr::null());
        for (l, &o) in leaves.iter().zip(at) {
            for (k, s) in srcs.iter_mut().enumerate() {
                // SAFETY: within region k, which its rank filled before the barrier.
                *s = if k == me {
                    l.ptr
                } else {
                    unsafe { self.seg.region(set, k).add(o) }
                };
            }
            // SAFETY: the leaf and the regions hold l.bytes bytes of its kind, aligned.
            unsafe { sum(l.kind, &srcs, l.ptr, None, l.bytes) };
        }
        self.srcs = srcs;
        Ok(Outcome::Summed)
    }

    #[allow(clippy::too_many_arguments)]
    fn chunk(
        &mut self,
        leaves: &[Leaf],
        at: &[usize],
        c0: usize,
        c1: usize,
        first: bool,
        len: usize,
        shape: u64,
    ) -> Result<Outcome> {
        let (n, me) = (self.seg.n, self.seg.rank);
        let set = (self.chunks % 2) as usize;
        self.chunks += 1;
        let q = align64((c1 - c0).div_ceil(n));
        let slice = |k: usize| ((c0 + k * q).min(c1), (c0 + (k + 1) * q).min(c1));
        let regions: Vec<*mut u8> = (0..n).map(|k| self.seg.region(set, k)).collect();
        let (a, b) = slice(me);
        // Copy in everything but this rank's own slice (it reads that from its leaves).
        let copy_in = |x: usize, y: usize| {
            pieces(leaves, at, x, y, |l, lo, so, bytes| {
                // SAFETY: a piece of the leaf into this rank's region at its chunk offset.
                unsafe { std::ptr::copy_nonoverlapping(l.ptr.add(lo), regions[me].add(so - c0), bytes) };
            })
        };
        copy_in(c0, a);
        copy_in(b, c1);
        self.barrier()?;
        if first && self.agree(set, len, shape)? == Outcome::Sockets {
            return Ok(Outcome::Sockets);
        }
        let mut srcs = vec![std::ptr::null(); n];
        pieces(leaves, at, a, b, |l, lo, so, bytes| {
            for (k, s) in srcs.iter_mut().enumerate() {
                // SAFETY: the same piece in every rank's region, or in this rank's leaf.
                *s = if k == me {
                    unsafe { l.ptr.add(lo) }
                } else {
                    unsafe { regions[k].add(so - c0) }
                };
            }
            // SAFETY: every source holds `bytes` of the leaf's kind, aligned (offsets are
            // multiples of 64 from aligned bases, or of the element size inside the leaf).
            unsafe { sum(l.kind, &srcs, l.ptr.add(lo), Some(regions[me].add(so - c0)), bytes) };
        });
        self.barrier()?;
        for k in (0..n).filter(|&k| k != me) {
            let (x, y) = slice(k);
            pieces(leaves, at, x, y, |l, lo, so, bytes| {
                // SAFETY: rank k's sums, final since the barrier, into this rank's leaf.
                unsafe { std::ptr::copy_nonoverlapping(regions[k].add(so - c0), l.ptr.add(lo), bytes) };
            });
        }
        Ok(Outcome::Summed)
    }
}
