//! The socket allreduce (sum) of one call, over the links of `Group`:
//!
//! 1. The small pass: numbers and leaves shorter than LARGE are packed into one message, behind
//!    a header saying whether this node takes part (else the call goes over the tree's message
//!    sockets, on every node) and the shape of all its leaves (types and sizes: a call whose
//!    nodes differ raises on every node). Between 2 or 4 nodes it is an exchange between
//!    partners over the ring's links (1 or 2 steps, as recursive doubling); otherwise the tree's
//!    reduce and broadcast. Either way every node ends with the same bits.
//! 2. Each large leaf, in place: a ring (reduce-scatter then all-gather, n - 1 steps each, a
//!    step's sums made as its bytes come) or a pipelined tree (chunks go up and come down while
//!    the next ones are still on their way, so the hops overlap). LUATORCH_TREE_ALGO=ring or tree
//!    forces one; by default the ring takes leaves of at least RING_SEGMENT bytes per node.

use super::link::{Link, Step, drive};
use crate::error::{Error, Kind as ErrorKind, Result};
use crate::ipc::shmtree::collective::{Leaf, Outcome, shape_of};
use crate::ipc::shmtree::sum::{Kind, sum};

/// Leaves at least this long go by ring or pipelined tree; shorter ones in the small pass.
pub const LARGE: usize = 64 << 10;
/// The pipelined tree's chunk (a multiple of every element size).
const CHUNK: usize = 256 << 10;
/// A ring step sums what has come in pieces of this much.
const BLOCK: usize = 64 << 10;
/// The ring takes a leaf (by default) when each node's segment is at least this long.
const RING_SEGMENT: usize = 256 << 10;
/// The most a peer's small message may announce.
const MAX_SMALL: u64 = 1 << 30;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Algo {
    Auto,
    Ring,
    Tree,
}

impl Algo {
    pub fn from_env() -> Algo {
        match crate::settings::text(crate::settings::TREE_ALGO).as_deref() {
            Some("ring") => Algo::Ring,
            Some("tree") => Algo::Tree,
            _ => Algo::Auto,
        }
    }
}

const OK: u32 = 0;
const DECLINE: u32 = 1;
const MISMATCH: u32 = 2;
const HEADER_LEN: usize = 40;

/// A small message's header: whether the sender (and what it summed) takes part, and the shape
/// of its leaves; on a mismatch, the two nodes that differ and their stream lengths.
#[derive(Clone, Copy, Default, Debug)]
pub struct Header {
    status: u32,
    a: u32,
    b: u32,
    bytes: u64,
    shape: u64,
    other: u64,
}

impl Header {
    fn encode(&self) -> [u8; HEADER_LEN] {
        let mut o = [0u8; HEADER_LEN];
        o[0..4].copy_from_slice(&self.status.to_le_bytes());
        o[4..8].copy_from_slice(&self.a.to_le_bytes());
        o[8..12].copy_from_slice(&self.b.to_le_bytes());
        o[16..24].copy_from_slice(&self.bytes.to_le_bytes());
        o[24..32].copy_from_slice(&self.shape.to_le_bytes());
        o[32..40].copy_from_slice(&self.other.to_le_bytes());
        o
    }

    fn decode(i: &[u8; HEADER_LEN]) -> Header {
        let u32_at = |k: usize| u32::from_le_bytes(i[k..k + 4].try_into().unwrap_or_default());
        let u64_at = |k: usize| u64::from_le_bytes(i[k..k + 8].try_into().unwrap_or_default());
        Header {
            status: u32_at(0),
            a: u32_at(4),
            b: u32_at(8),
            bytes: u64_at(16),
            shape: u64_at(24),
            other: u64_at(32),
        }
    }

    /// This node's view combined with a peer's (`me` and `them` are their node indexes).
    fn combine(&mut self, t: &Header, me: usize, them: usize) {
        if self.status == MISMATCH {
            return;
        }
        if t.status == MISMATCH {
            *self = *t;
        } else if self.status == OK && t.status == OK && (self.bytes != t.bytes || self.shape != t.shape) {
            *self = Header {
                status: MISMATCH,
                a: me as u32,
                b: them as u32,
                bytes: self.bytes,
                shape: 0,
                other: t.bytes,
            };
        } else if t.status == DECLINE {
            self.status = DECLINE;
        }
    }

    fn mismatch(&self) -> Error {
        Error::new(
            ErrorKind::Shape,
            format!(
                "the values differ in structure: node {} passed {} bytes of small leaves, node {} {} bytes{}",
                self.a,
                self.bytes,
                self.b,
                self.other,
                if self.bytes == self.other {
                    " (or leaves of other types or sizes)"
                } else {
                    ""
                }
            ),
        )
    }
}

/// Where the links of a node are: indexes into `Group::links`.
pub struct Wiring {
    pub next: usize,
    pub prev: usize,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
}

pub struct Group {
    pub node: usize,
    pub n: usize,
    pub links: Vec<Link>,
    pub wiring: Wiring,
    pub algo: Algo,
    /// Set once a call failed: the links are shut and every later call raises this.
    pub failed: Option<String>,
    /// More nodes than this machine's CPUs: waits yield while they poll.
    polite: bool,
    /// The small stream (u64s: aligned for every element type), and where each leaf starts.
    stage: Vec<u64>,
    at: Vec<usize>,
    /// Received data: a small message per child, or a ring segment, or two chunks per child.
    tmp: Vec<u64>,
    /// Headers: this node's (kept until sent) and one per link.
    out: [u8; HEADER_LEN],
    hin: Vec<[u8; HEADER_LEN]>,
}

fn align8(x: usize) -> usize {
    x.div_ceil(8) * 8
}

fn grow(v: &mut Vec<u64>, bytes: usize) -> *mut u8 {
    let words = bytes.div_ceil(8);
    if v.len() < words {
        v.resize(words, 0);
    }
    v.as_mut_ptr().cast()
}

/// dst[..bytes] = dst + srcs[0] + srcs[1] + ... (in that order), elements of `kind`.
///
/// # Safety
/// dst and every source hold `bytes` bytes of `kind`, aligned; no source overlaps dst.
unsafe fn add_into(kind: Kind, dst: *mut u8, srcs: &[*const u8], bytes: usize) {
    if bytes == 0 || srcs.is_empty() {
        return;
    }
    let mut all: [*const u8; 9] = [std::ptr::null(); 9];
    // A few children at a time (a wide tree adds in several rounds, still in child order).
    for group in srcs.chunks(8) {
        all[0] = dst;
        all[1..=group.len()].copy_from_slice(group);
        // SAFETY: as the caller promises; a source may be dst (read before written).
        unsafe { sum(kind, &all[..=group.len()], dst, None, bytes) };
    }
}

impl Group {
    pub fn new(node: usize, n: usize, links: Vec<Link>, wiring: Wiring) -> Group {
        Group {
            node,
            n,
            hin: vec![[0u8; HEADER_LEN]; links.len()],
            links,
            wiring,
            algo: Algo::from_env(),
            failed: None,
            polite: n > std::thread::available_parallelism().map_or(1, |c| c.get()),
            stage: Vec::new(),
            at: Vec::new(),
            tmp: Vec::new(),
            out: [0u8; HEADER_LEN],
        }
    }

    /// Sums `leaves` (None: this node asks for the message sockets) over every node, in place.
    pub fn allreduce(&mut self, leaves: Option<&[Leaf]>) -> Result<Outcome> {
        if let Some(f) = &self.failed {
            return Err(Error::peer(f.clone()));
        }
        match self.call(leaves) {
            Ok(r) => r,
            Err(e) => {
                // The others' waits end too: they see these links close.
                for l in &self.links {
                    l.shut();
                }
                self.failed = Some(format!("the socket allreduce failed earlier: {}", e.message()));
                Err(e)
            }
        }
    }

    /// The outer error ends the group; the inner one (values of another structure) does not.
    fn call(&mut self, leaves: Option<&[Leaf]>) -> Result<Result<Outcome>> {
        let empty: &[Leaf] = &[];
        let all = leaves.unwrap_or(empty);
        let is_small = |l: &Leaf| l.bytes < LARGE;
        // The small stream: the small leaves, each at a multiple of 8 bytes.
        self.at.clear();
        let mut len = 0;
        for l in all.iter().filter(|l| is_small(l)) {
            len = align8(len);
            self.at.push(len);
            len += l.bytes;
        }
        let stage = grow(&mut self.stage, len);
        for (l, &o) in all.iter().filter(|l| is_small(l)).zip(&self.at) {
            // SAFETY: the leaf's bytes into the stage, which holds `len` bytes.
            unsafe { std::ptr::copy_nonoverlapping(l.ptr, stage.add(o), l.bytes) };
        }
        let mut h = Header {
            status: if leaves.is_some() { OK } else { DECLINE },
            bytes: len as u64,
            shape: shape_of(all),
            ..Header::default()
        };
        if self.n == 2 || self.n == 4 {
            self.exchange_pass(&mut h, len, all)?;
        } else {
            self.tree_pass(&mut h, len, all)?;
        }
        match h.status {
            OK => {}
            DECLINE => return Ok(Ok(Outcome::Sockets)),
            _ => return Ok(Err(h.mismatch())),
        }
        let stage: *const u8 = self.stage.as_ptr().cast();
        for (l, &o) in all.iter().filter(|l| is_small(l)).zip(&self.at) {
            // SAFETY: back from the stage into the leaf.
            unsafe { std::ptr::copy_nonoverlapping(stage.add(o), l.ptr, l.bytes) };
        }
        for l in all.iter().filter(|l| !is_small(l)) {
            let ring = match self.algo {
                Algo::Ring => true,
                Algo::Tree => false,
                Algo::Auto => l.bytes / self.n >= RING_SEGMENT,
            };
            if ring {
                self.ring(l)?;
            } else {
                self.pipelined_tree(l)?;
            }
        }
        Ok(Ok(Outcome::Summed))
    }

    /// Sums the small stream's leaf pieces from `src` (a peer's stream) into the stage.
    fn add_stream(&mut self, all: &[Leaf], srcs: &[*const u8]) {
        let stage: *mut u8 = self.stage.as_mut_ptr().cast();
        let mut ptrs: Vec<*const u8> = Vec::with_capacity(srcs.len());
        for (l, &o) in all.iter().filter(|l| l.bytes < LARGE).zip(&self.at) {
            ptrs.clear();
            // SAFETY: every source is a stream of the same layout (its header matched).
            ptrs.extend(srcs.iter().map(|s| unsafe { s.add(o) }));
            // SAFETY: the stage and the sources hold the leaf's bytes at `o`, aligned to 8.
            unsafe { add_into(l.kind, stage.add(o), &ptrs, l.bytes) };
        }
    }

    /// Receives a header on link `li`, then its small message (if it has one) at `dst`, which
    /// must hold MAX(own length, announced length) bytes: see `room`.
    fn recv_header(&mut self, li: usize) -> Result<Header> {
        let p = self.hin[li].as_mut_ptr();
        self.links[li].expect(p, HEADER_LEN);
        drive(&mut self.links, self.polite, |links| {
            Ok(if links[li].received() {
                Step::Done
            } else {
                Step::Waiting
            })
        })?;
        let h = Header::decode(&self.hin[li]);
        if h.status == OK && h.bytes > MAX_SMALL {
            return Err(Error::io(format!(
                "node {} announced a message of {} bytes",
                self.links[li].node, h.bytes
            )));
        }
        Ok(h)
    }

    /// Waits until every link has sent what it queued and filled what it expects.
    fn settle(&mut self) -> Result<()> {
        drive(&mut self.links, self.polite, |links| {
            let mut done = true;
            for l in links.iter_mut() {
                if l.expecting() && !l.received() {
                    done = false;
                }
                if !l.idle_send() {
                    done = false;
                }
            }
            Ok(if done { Step::Done } else { Step::Waiting })
        })
    }

    /// Sends this node's header (and small message, when it takes part) on link `li`.
    fn send_mine(&mut self, li: usize, h: &Header, len: usize) {
        self.out = h.encode();
        self.links[li].send(self.out.as_ptr(), HEADER_LEN);
        if h.status == OK {
            self.links[li].send(self.stage.as_ptr().cast(), len);
        }
    }

    /// Between 2 or 4 nodes: partners swap their streams and add (n = 4: (1,2)(3,4), then
    /// (1,4)(2,3), all over ring links). x + y is y + x, bit for bit: partners agree.
    fn exchange_pass(&mut self, h: &mut Header, len: usize, all: &[Leaf]) -> Result<()> {
        let even = (self.node - 1).is_multiple_of(2);
        let (w_next, w_prev) = (self.wiring.next, self.wiring.prev);
        let steps: &[usize] = if self.n == 2 {
            if even { &[w_next][..] } else { &[w_prev][..] }
        } else if even {
            &[w_next, w_prev]
        } else {
            &[w_prev, w_next]
        };
        let steps = steps.to_vec();
        for li in steps {
            self.send_mine(li, h, len);
            let theirs = self.recv_header(li)?;
            let peer = grow(&mut self.tmp, theirs.bytes as usize);
            if theirs.status == OK {
                self.links[li].expect(peer, theirs.bytes as usize);
            }
            self.settle()?;
            let node = self.links[li].node;
            let mine_ok = h.status == OK;
            h.combine(&theirs, self.node, node);
            if mine_ok && h.status == OK {
                self.add_stream(all, &[peer as *const u8]);
            }
        }
        Ok(())
    }

    /// The tree's reduce (own stream first, then the children's in order) and broadcast.
    fn tree_pass(&mut self, h: &mut Header, len: usize, all: &[Leaf]) -> Result<()> {
        let children = self.wiring.children.clone();
        let mut theirs = Vec::with_capacity(children.len());
        for &c in &children {
            theirs.push(self.recv_header(c)?);
        }
        // Each child's message in its own slot of tmp.
        let room = theirs
            .iter()
            .map(|t| align8(t.bytes as usize))
            .max()
            .unwrap_or(0)
            .max(align8(len));
        let base = grow(&mut self.tmp, room * children.len());
        for (k, (&c, t)) in children.iter().zip(&theirs).enumerate() {
            if t.status == OK {
                // SAFETY: slot k of tmp, `room` bytes.
                self.links[c].expect(unsafe { base.add(k * room) }, t.bytes as usize);
            }
        }
        self.settle()?;
        let mine_ok = h.status == OK;
        for (&c, t) in children.iter().zip(&theirs) {
            h.combine(t, self.node, self.links[c].node);
        }
        if mine_ok && h.status == OK && !children.is_empty() {
            // SAFETY: the slots filled above.
            let srcs: Vec<*const u8> = (0..children.len())
                .map(|k| unsafe { base.add(k * room) } as *const u8)
                .collect();
            self.add_stream(all, &srcs);
        }
        if let Some(p) = self.wiring.parent {
            self.send_mine(p, h, len);
            let fin = self.recv_header(p)?;
            if fin.status == OK {
                if fin.bytes as usize != len {
                    return Err(Error::io("the tree's result does not fit this node's leaves"));
                }
                let stage = grow(&mut self.stage, len);
                self.links[p].expect(stage, len);
            }
            self.settle()?;
            *h = fin;
        }
        for &c in &children {
            self.send_mine(c, h, len);
            self.settle()?;
        }
        Ok(())
    }

    /// A ring over the leaf: n - 1 steps of reduce-scatter, then n - 1 of all-gather.
    fn ring(&mut self, l: &Leaf) -> Result<()> {
        let (n, r) = (self.n, self.node - 1);
        let es = l.kind.size();
        let elems = l.bytes / es;
        let seg = elems.div_ceil(n);
        let span = |s: usize| -> (usize, usize) {
            let a = (s * seg).min(elems);
            let b = ((s + 1) * seg).min(elems);
            (a * es, (b - a) * es)
        };
        let tmp = grow(&mut self.tmp, seg * es);
        let (next, prev) = (self.wiring.next, self.wiring.prev);
        // Sums in pieces of whole elements.
        let block = BLOCK / es * es;
        for phase in 0..2 {
            for t in 0..n - 1 {
                let (ss, sr) = if phase == 0 {
                    ((r + n - t) % n, (r + 2 * n - t - 1) % n)
                } else {
                    ((r + 1 + n - t) % n, (r + n - t) % n)
                };
                let (so, sl) = span(ss);
                let (ro, rl) = span(sr);
                // SAFETY: segment offsets lie inside the leaf.
                let (send_at, own_at) = unsafe { (l.ptr.add(so) as *const u8, l.ptr.add(ro)) };
                self.links[next].send(send_at, sl);
                let into = if phase == 0 { tmp } else { own_at };
                let mut added = 0;
                let mut done_recv = rl == 0;
                if !done_recv {
                    self.links[prev].expect(into, rl);
                }
                let kind = l.kind;
                drive(&mut self.links, self.polite, |links| {
                    if !done_recv {
                        let got = links[prev].got;
                        let upto = if got == rl { rl } else { got / block * block };
                        if phase == 0 && upto > added {
                            // SAFETY: bytes added..upto of the segment have come into tmp.
                            unsafe { add_into(kind, own_at.add(added), &[tmp.add(added)], upto - added) };
                        }
                        added = upto.max(added);
                        if got == rl && links[prev].received() {
                            done_recv = true;
                        }
                    }
                    Ok(if done_recv && links[next].idle_send() {
                        Step::Done
                    } else {
                        Step::Waiting
                    })
                })?;
            }
        }
        Ok(())
    }

    /// A pipelined tree over the leaf: chunks are summed up the tree (own, then the children's
    /// in order) and the sums come down, chunk after chunk, all hops at once.
    fn pipelined_tree(&mut self, l: &Leaf) -> Result<()> {
        let chunk = CHUNK;
        let k_total = l.bytes.div_ceil(chunk);
        let span = |j: usize| (j * chunk, chunk.min(l.bytes - j * chunk));
        let children = self.wiring.children.clone();
        let parent = self.wiring.parent;
        let nc = children.len();
        let tmp = grow(&mut self.tmp, 2 * chunk * nc);
        // SAFETY (the closures below): slot (c, j % 2) of tmp holds a chunk.
        let slot = |c: usize, j: usize| unsafe { tmp.add((2 * c + j % 2) * chunk) };
        let mut arrived = vec![0usize; nc];
        let mut posted = vec![false; nc];
        let (mut reduced, mut fin, mut sent_down) = (0usize, 0usize, 0usize);
        let mut posted_parent = false;
        let kind = l.kind;
        let base = l.ptr;
        let mut srcs: Vec<*const u8> = Vec::with_capacity(nc);
        drive(&mut self.links, self.polite, |links| {
            let mut moved = false;
            loop {
                let mut again = false;
                for (c, &li) in children.iter().enumerate() {
                    if posted[c] && links[li].received() {
                        arrived[c] += 1;
                        posted[c] = false;
                    }
                    if !posted[c] && arrived[c] < k_total && arrived[c] < reduced + 2 {
                        let (_, len) = span(arrived[c]);
                        links[li].expect(slot(c, arrived[c]), len);
                        posted[c] = true;
                        moved = true;
                    }
                }
                while reduced < k_total && arrived.iter().all(|&a| a > reduced) {
                    let (o, len) = span(reduced);
                    srcs.clear();
                    srcs.extend((0..nc).map(|c| slot(c, reduced) as *const u8));
                    // SAFETY: chunk `reduced` of the leaf and of every child's slot.
                    unsafe { add_into(kind, base.add(o), &srcs, len) };
                    match parent {
                        // SAFETY: inside the leaf.
                        Some(p) => links[p].send(unsafe { base.add(o) }, len),
                        None => fin = reduced + 1,
                    }
                    reduced += 1;
                    again = true;
                    moved = true;
                }
                if let Some(p) = parent {
                    if posted_parent && links[p].received() {
                        fin += 1;
                        posted_parent = false;
                        again = true;
                    }
                    // A chunk's sum comes down only after this node's part went up, so it may
                    // be received into the leaf that part was sent from.
                    if !posted_parent && fin < k_total && fin < reduced {
                        let (o, len) = span(fin);
                        // SAFETY: inside the leaf.
                        links[p].expect(unsafe { base.add(o) }, len);
                        posted_parent = true;
                        moved = true;
                    }
                }
                while sent_down < fin {
                    let (o, len) = span(sent_down);
                    for &li in &children {
                        // SAFETY: inside the leaf; final, never written again in this call.
                        links[li].send(unsafe { base.add(o) }, len);
                    }
                    sent_down += 1;
                    moved = true;
                }
                if !again {
                    break;
                }
            }
            let done = sent_down == k_total && links.iter().all(|x| x.idle_send() && !x.expecting());
            Ok(if done {
                Step::Done
            } else if moved {
                Step::Moved
            } else {
                Step::Waiting
            })
        })
    }
}

impl crate::ipc::shmtree::calls::Collective for Group {
    fn allreduce(&mut self, leaves: Option<&[Leaf]>) -> Result<Outcome> {
        Group::allreduce(self, leaves)
    }
}
