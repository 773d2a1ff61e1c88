//! Communicators whose ranks may share a GPU (several processes per device, as under MPS), for
//! the NCCL 1.x interface (`v1`).
//!
//! NCCL 2.5 to 2.29 refuse two ranks on one GPU ("Duplicate GPU detected"), and 2.30 and later
//! accept them only when NCCL_MULTI_RANK_GPU_ENABLE=1. So the ranks of a GPU are summed here,
//! through CUDA IPC, and only one rank per GPU (its leader, the lowest rank there) talks to NCCL:
//! - the ranks meet in a shared-memory segment named by a key that `mark_id` writes into the
//!   unused tail of the unique id (NCCL's own part is the bootstrap address at its start);
//! - for each collective, the other ranks of a GPU post their buffers (IPC handles) and wait; the
//!   leader maps them, reduces or copies on its stream, runs the NCCL call among the leaders when
//!   there is more than one GPU, copies the results back, and releases them.
//!
//! The ranks of one GPU synchronize their streams around each collective (host waits), where
//! NCCL would only order the streams: simple, and cheap next to the host round trips a training
//! step makes anyway. When no two ranks share a GPU, collectives go to NCCL directly, with no
//! wait. Every wait notices a dead peer and gives up after the timeout.

use std::ffi::c_int;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::comm::{Call, Communicator, Kind};
use super::loader::UNIQUE_ID_BYTES;
use super::meeting::{Buffer, MAX_RANKS, Posted, Segment, alive, key_of, nccl_part};
use crate::cuda::device;
use crate::cuda::ipc::{self, Exported, HANDLE_BYTES};
use crate::cuda::memory;
use crate::cuda::ops::elementwise;
use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::Tensor;

/// Why a collective failed, for the NCCL 1.x result codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The ranks asked for different collectives.
    Mismatch = 1,
    /// The leader's device work or NCCL failed.
    Internal = 2,
    /// A type the leader cannot reduce.
    Type = 3,
}

/// One rank's communicator.
pub struct Group {
    seg: Segment,
    key: String,
    pub nranks: usize,
    pub rank: usize,
    /// 0-based device ordinal.
    pub device: usize,
    /// The ranks on this rank's GPU, lowest (the leader) first.
    members: Vec<usize>,
    /// For each rank, the index among the leaders of its GPU's leader.
    leader_index: Vec<usize>,
    nleaders: usize,
    /// Whether some GPU has more than one rank (else every collective goes to NCCL directly).
    sharing: bool,
    /// NCCL among the leaders (none with one GPU, or for a rank that is not a leader).
    nccl: Option<Communicator>,
    seq: u64,
    timeout: Duration,
    /// The leader's scratch buffer (reduce, reduceScatter), kept for the next call.
    scratch: Option<Storage>,
}

impl Group {
    /// Joins rank `rank` of `nranks` on `device` (0-based) with the others holding `id`: waits
    /// (at most `timeout`) for every rank, then makes the leaders' NCCL communicator.
    pub fn join(
        nranks: usize,
        id: &[u8; UNIQUE_ID_BYTES],
        rank: usize,
        device: usize,
        timeout: Duration,
    ) -> Result<Group> {
        if nranks == 0 || nranks > MAX_RANKS {
            return Err(Error::argument(format!(
                "the number of ranks must be between 1 and {MAX_RANKS}, got {nranks}"
            )));
        }
        if rank >= nranks {
            return Err(Error::argument(format!(
                "rank {rank} is out of range for {nranks} ranks"
            )));
        }
        let key = key_of(id).ok_or_else(|| {
            Error::argument("the unique id was not made by this th's ncclGetUniqueId (or nccl.uniqueId)")
        })?;
        let uuid = ipc::uuid_of(device)?;
        let seg = Segment::open(&format!("/luatorch-nccl-{key}"))?;
        let h = seg.header();
        if let Err(other) = h
            .nranks
            .compare_exchange(0, nranks as u32, Ordering::AcqRel, Ordering::Acquire)
            && other as usize != nranks
        {
            return Err(Error::argument(format!(
                "rank {rank} was told of {nranks} ranks, another rank of {other}"
            )));
        }
        let me = seg.slot(rank);
        if me.joined.load(Ordering::Acquire) != 0 {
            return Err(Error::argument(format!(
                "rank {rank} has already joined this communicator"
            )));
        }
        me.pid.store(std::process::id(), Ordering::Relaxed);
        // SAFETY: this rank's own slot; published by the store below.
        unsafe { *me.uuid.get() = uuid };
        me.joined.store(1, Ordering::Release);

        let mut g = Group {
            seg,
            key,
            nranks,
            rank,
            device,
            members: Vec::new(),
            leader_index: Vec::new(),
            nleaders: 0,
            sharing: false,
            nccl: None,
            seq: 0,
            timeout,
            scratch: None,
        };
        let everyone: Vec<usize> = (0..nranks).collect();
        let waited = g.wait("waiting for the other ranks to join", &everyone, |s| {
            (0..nranks).all(|r| s.slot(r).joined.load(Ordering::Acquire) != 0)
        });
        if let Err(e) = waited {
            g.seg.header().failed.store(1, Ordering::Release);
            g.seg.unlink();
            return Err(e);
        }
        if g.seg.header().attached.fetch_add(1, Ordering::AcqRel) as usize + 1 == nranks {
            g.seg.unlink();
        }
        // SAFETY: every slot's uuid was published by its joined flag, acquired above.
        let uuids: Vec<[u8; 16]> = (0..nranks).map(|r| unsafe { *g.seg.slot(r).uuid.get() }).collect();
        let mut leaders: Vec<usize> = Vec::new();
        g.leader_index = vec![0; nranks];
        for r in 0..nranks {
            match leaders.iter().position(|&l| uuids[l] == uuids[r]) {
                Some(i) => g.leader_index[r] = i,
                None => {
                    g.leader_index[r] = leaders.len();
                    leaders.push(r);
                }
            }
        }
        g.nleaders = leaders.len();
        g.sharing = g.nleaders < nranks;
        g.members = (0..nranks).filter(|&r| uuids[r] == uuid).collect();
        if g.nleaders > 1 && g.is_leader() {
            match Communicator::init_rank(
                g.nleaders as i32,
                &nccl_part(id),
                g.leader_index[rank] as i32,
                device,
                timeout,
            ) {
                Ok(comm) => g.nccl = Some(comm),
                Err(e) => {
                    // The other ranks of this GPU would wait for this leader forever.
                    g.seg.header().failed.store(1, Ordering::Release);
                    return Err(e);
                }
            }
        }
        Ok(g)
    }

    fn is_leader(&self) -> bool {
        self.members.first() == Some(&self.rank)
    }

    /// Waits until `ready` holds, noticing a dead rank among `watch`, a rank that gave up, and
    /// the timeout.
    fn wait(&self, what: &str, watch: &[usize], ready: impl Fn(&Segment) -> bool) -> Result<()> {
        let start = Instant::now();
        let mut checked = start;
        let mut spins = 0u32;
        loop {
            if ready(&self.seg) {
                return Ok(());
            }
            if self.seg.header().failed.load(Ordering::Acquire) != 0 {
                return Err(Error::peer(format!("{what}: another rank gave up")));
            }
            let now = Instant::now();
            if now.duration_since(checked) > Duration::from_millis(20) {
                checked = now;
                for &r in watch {
                    let pid = self.seg.slot(r).pid.load(Ordering::Relaxed);
                    if !alive(pid) {
                        return Err(Error::peer(format!("{what}: rank {r} (process {pid}) has died")));
                    }
                }
                if now.duration_since(start) > self.timeout {
                    return Err(Error::peer(format!(
                        "{what}: gave up after {} s (LUATORCH_NCCL_TIMEOUT)",
                        self.timeout.as_secs()
                    )));
                }
            }
            spins += 1;
            if spins < 100 {
                std::hint::spin_loop();
            } else if spins < 1000 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    }

    /// Runs one collective (NCCL 2 type and op codes; its root a rank) on device addresses of
    /// this rank's device, queued after the work on the call's stream.
    pub fn run(&mut self, call: &Call) -> std::result::Result<(), (Failure, Error)> {
        let (kind, send, recv, count, dtype, op, root, stream) = call.parts();
        let root = root.max(0) as usize;
        if kind.takes_root() && root >= self.nranks {
            return Err((
                Failure::Mismatch,
                Error::argument(format!("root {root} is out of range for {} ranks", self.nranks)),
            ));
        }
        if !self.sharing {
            return self.direct(call);
        }
        let internal = |e: Error| (Failure::Internal, e);
        sync_stream(stream).map_err(internal)?;
        let dev = device::get(self.device).map_err(internal)?;
        let current = dev.current_stream().map_err(internal)? as usize;
        sync_stream(current).map_err(internal)?;
        self.seq += 1;
        let handles = !self.is_leader();
        let posted = Posted {
            kind: kind as u32,
            dtype,
            op,
            root: root as c_int,
            count: count as u64,
            send: export(
                send,
                bytes_of(kind, count, self.nranks, dtype, true),
                self.device,
                handles,
            )
            .map_err(internal)?,
            recv: export(
                recv,
                bytes_of(kind, count, self.nranks, dtype, false),
                self.device,
                handles,
            )
            .map_err(internal)?,
        };
        if self.is_leader() {
            self.lead(&posted)
        } else {
            self.follow(&posted)
        }
    }

    /// A collective when no two ranks share a GPU: NCCL's own, or a copy with one rank.
    fn direct(&mut self, call: &Call) -> std::result::Result<(), (Failure, Error)> {
        let internal = |e: Error| (Failure::Internal, e);
        match self.nccl.as_mut() {
            Some(comm) => comm.run(call).map_err(internal),
            None => {
                // One rank: every collective copies its input to its output.
                let (kind, send, recv, count, dtype, _, _, stream) = call.parts();
                let bytes = bytes_of(kind, count, 1, dtype, true);
                if send != recv && bytes > 0 && recv != 0 {
                    copy_bytes(self.device, recv, send, bytes, stream).map_err(internal)?;
                }
                Ok(())
            }
        }
    }

    fn follow(&mut self, posted: &Posted) -> std::result::Result<(), (Failure, Error)> {
        let me = self.seg.slot(self.rank);
        // SAFETY: this rank's own call, published by the store of `posted`.
        unsafe { *me.call.get() = *posted };
        me.posted.store(self.seq, Ordering::Release);
        let seq = self.seq;
        let leader = [self.members[0]];
        self.wait("waiting for the leader of this GPU", &leader, |s| {
            s.slot(self.rank).done.load(Ordering::Acquire) >= seq
        })
        .map_err(|e| (Failure::Internal, e))?;
        match me.status.load(Ordering::Acquire) {
            0 => Ok(()),
            1 => Err((
                Failure::Mismatch,
                Error::argument("the ranks asked for different collectives"),
            )),
            3 => Err((
                Failure::Type,
                Error::dtype("the ranks sharing a GPU cannot reduce this type"),
            )),
            _ => Err((
                Failure::Internal,
                Error::device("the leader of this GPU failed the collective"),
            )),
        }
    }

    fn lead(&mut self, mine: &Posted) -> std::result::Result<(), (Failure, Error)> {
        let seq = self.seq;
        let followers: Vec<usize> = self.members[1..].to_vec();
        let waited = self.wait("waiting for the other ranks of this GPU", &followers, |s| {
            followers
                .iter()
                .all(|&f| s.slot(f).posted.load(Ordering::Acquire) >= seq)
        });
        if let Err(e) = waited {
            self.seg.header().failed.store(1, Ordering::Release);
            return Err((Failure::Internal, e));
        }
        let mut calls = vec![(self.rank, *mine)];
        for &f in &followers {
            // SAFETY: published by the follower's `posted` store, acquired above.
            calls.push((f, unsafe { *self.seg.slot(f).call.get() }));
        }
        let result = self.combine(&calls);
        if let Ok(dev) = device::get(self.device)
            && let Ok(s) = dev.current_stream()
        {
            let _ = sync_stream(s as usize);
        }
        let status = match &result {
            Ok(()) => 0,
            Err((f, _)) => *f as u32,
        };
        for &f in &followers {
            let s = self.seg.slot(f);
            s.status.store(status, Ordering::Relaxed);
            s.done.store(seq, Ordering::Release);
        }
        result
    }

    /// The leader's work for one collective; `calls` holds every rank of this GPU's call, the
    /// leader's first.
    fn combine(&mut self, calls: &[(usize, Posted)]) -> std::result::Result<(), (Failure, Error)> {
        let first = calls[0].1;
        for (r, c) in &calls[1..] {
            if (c.kind, c.dtype, c.op, c.root, c.count) != (first.kind, first.dtype, first.op, first.root, first.count)
            {
                return Err((
                    Failure::Mismatch,
                    Error::argument(format!(
                        "rank {r} asked for a different collective than rank {}",
                        self.rank
                    )),
                ));
            }
        }
        let internal = |e: Error| (Failure::Internal, e);
        let kind = kind_of(first.kind);
        let count = first.count as usize;
        let elem = element_of(first.dtype);
        let reduces = matches!(kind, Kind::AllReduce | Kind::Reduce | Kind::ReduceScatter);
        let dtype = match elem {
            Some(d) => d,
            None if !reduces => DType::Byte,
            None => {
                return Err((
                    Failure::Type,
                    Error::dtype("the ranks sharing a GPU can only reduce float, double and 64-bit integer tensors"),
                ));
            }
        };
        let scale = if elem.is_some() { 1 } else { size_of_nccl(first.dtype) };
        let n = self.nranks;
        // avg: summed here and among the GPUs, then divided by the number of ranks.
        let avg = first.op == 4;
        if avg && !matches!(dtype, DType::Float | DType::Double) {
            return Err((
                Failure::Type,
                Error::dtype("avg over ranks sharing a GPU needs float or double tensors"),
            ));
        }
        let op = if avg { 0 } else { first.op };
        let finish = |acc: &Storage, len: usize| -> Result<()> {
            if avg {
                let t = vector(acc, len);
                elementwise::pointwise("mul_n", &t, Some(&t), None, None, 1.0 / n as f64, 0.0)?;
            }
            Ok(())
        };
        let (me, dev, key) = (self.rank, self.device, self.key.clone());
        let open = |(r, _): &(usize, Posted), b: &Buffer, len: usize| -> Result<Option<Storage>> {
            open_buffer(me, dev, &key, *r, b, dtype, len)
        };
        match kind {
            Kind::AllReduce => {
                let len = count * scale;
                let outs = calls
                    .iter()
                    .map(|c| open(c, &c.1.recv, len))
                    .collect::<Result<Vec<_>>>()
                    .map_err(internal)?;
                let ins = calls
                    .iter()
                    .map(|c| open(c, &c.1.send, len))
                    .collect::<Result<Vec<_>>>()
                    .map_err(internal)?;
                let acc = outs[0]
                    .clone()
                    .ok_or_else(|| internal(Error::argument("no output buffer")))?;
                self.reduce_into(&acc, &ins, op, len).map_err(internal)?;
                self.across(Kind::AllReduce, &acc, len, first.dtype, op, 0)
                    .map_err(internal)?;
                finish(&acc, len).map_err(internal)?;
                for o in outs[1..].iter().flatten() {
                    memory::copy(o, 0, &acc, 0, len).map_err(internal)?;
                }
            }
            Kind::Reduce => {
                let len = count * scale;
                let ins = calls
                    .iter()
                    .map(|c| open(c, &c.1.send, len))
                    .collect::<Result<Vec<_>>>()
                    .map_err(internal)?;
                let acc = self.scratch(dtype, len).map_err(internal)?;
                self.reduce_into(&acc, &ins, op, len).map_err(internal)?;
                let root = first.root as usize;
                self.across(Kind::Reduce, &acc, len, first.dtype, op, root)
                    .map_err(internal)?;
                finish(&acc, len).map_err(internal)?;
                if let Some(c) = calls.iter().find(|(r, _)| *r == root) {
                    let out = open(c, &c.1.recv, len).map_err(internal)?;
                    let out = out.ok_or_else(|| internal(Error::argument("the root has no output buffer")))?;
                    memory::copy(&out, 0, &acc, 0, len).map_err(internal)?;
                }
            }
            Kind::Bcast => {
                let len = count * scale;
                let bufs = calls
                    .iter()
                    .map(|c| open(c, &c.1.recv, len))
                    .collect::<Result<Vec<_>>>()
                    .map_err(internal)?;
                let bufs: Vec<Storage> = bufs.into_iter().flatten().collect();
                if bufs.len() != calls.len() {
                    return Err(internal(Error::argument("a rank has no buffer")));
                }
                let root = first.root as usize;
                if let Some(i) = calls.iter().position(|(r, _)| *r == root)
                    && i != 0
                {
                    memory::copy(&bufs[0], 0, &bufs[i], 0, len).map_err(internal)?;
                }
                self.across(Kind::Bcast, &bufs[0], len, first.dtype, 0, root)
                    .map_err(internal)?;
                for (i, b) in bufs.iter().enumerate().skip(1) {
                    if calls[i].0 != root {
                        memory::copy(b, 0, &bufs[0], 0, len).map_err(internal)?;
                    }
                }
            }
            Kind::AllGather => {
                let piece = count * scale;
                let outs = calls
                    .iter()
                    .map(|c| open(c, &c.1.recv, piece * n))
                    .collect::<Result<Vec<_>>>()
                    .map_err(internal)?;
                let ins = calls
                    .iter()
                    .map(|c| open(c, &c.1.send, piece))
                    .collect::<Result<Vec<_>>>()
                    .map_err(internal)?;
                let mine = outs[0]
                    .clone()
                    .ok_or_else(|| internal(Error::argument("no output buffer")))?;
                // With other GPUs, their pieces arrive as a sum over zeros, in a zeroed buffer.
                let acc = if self.nleaders > 1 {
                    memory::alloc(&*device::get(self.device).map_err(internal)?, dtype, piece * n).map_err(internal)?
                } else {
                    mine.clone()
                };
                for ((r, _), i) in calls.iter().zip(&ins) {
                    let i = i.as_ref().ok_or_else(|| internal(Error::argument("no input buffer")))?;
                    memory::copy(&acc, r * piece, i, 0, piece).map_err(internal)?;
                }
                self.across(Kind::AllReduce, &acc, piece * n, nccl_sum_type(first.dtype), 0, 0)
                    .map_err(internal)?;
                let copies = if self.nleaders > 1 { &outs[..] } else { &outs[1..] };
                for o in copies.iter().flatten() {
                    memory::copy(o, 0, &acc, 0, piece * n).map_err(internal)?;
                }
            }
            Kind::ReduceScatter => {
                let piece = count * scale;
                let ins = calls
                    .iter()
                    .map(|c| open(c, &c.1.send, piece * n))
                    .collect::<Result<Vec<_>>>()
                    .map_err(internal)?;
                let acc = self.scratch(dtype, piece * n).map_err(internal)?;
                self.reduce_into(&acc, &ins, op, piece * n).map_err(internal)?;
                self.across(Kind::AllReduce, &acc, piece * n, first.dtype, op, 0)
                    .map_err(internal)?;
                finish(&acc, piece * n).map_err(internal)?;
                for c in calls {
                    if let Some(o) = open(c, &c.1.recv, piece).map_err(internal)? {
                        memory::copy(&o, 0, &acc, c.0 * piece, piece).map_err(internal)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// `acc` = the reduction of `ins` (each `len` elements) by NCCL op `op`.
    fn reduce_into(&self, acc: &Storage, ins: &[Option<Storage>], op: c_int, len: usize) -> Result<()> {
        let mut first = true;
        for i in ins.iter().flatten() {
            if first {
                if memory::address(i, 0)? != memory::address(acc, 0)? {
                    memory::copy(acc, 0, i, 0, len)?;
                }
                first = false;
                continue;
            }
            let (name, v) = match op {
                0 => ("add", 1.0),
                1 => ("cmul", 0.0),
                2 => ("cmax", 0.0),
                3 => ("cmin", 0.0),
                _ => return Err(Error::argument(format!("unknown reduction {op}"))),
            };
            let a = vector(acc, len);
            let b = vector(i, len);
            elementwise::pointwise(name, &a, Some(&a), Some(&b), None, v, 0.0)?;
        }
        if first {
            return Err(Error::argument("no input buffer"));
        }
        Ok(())
    }

    /// The NCCL call among the leaders, in place on `buf`, when there is more than one GPU.
    fn across(&mut self, kind: Kind, buf: &Storage, len: usize, dtype: c_int, op: c_int, root: usize) -> Result<()> {
        let Some(comm) = self.nccl.as_mut() else { return Ok(()) };
        let addr = memory::address(buf, 0)?;
        let stream = device::get(self.device)?.current_stream()? as usize;
        let count = len * buf.dtype().size_of() / size_of_nccl(dtype);
        let root = self.leader_index[root] as c_int;
        comm.run(&Call::raw(kind, addr, addr, count, dtype, op, root, stream))
    }

    fn scratch(&mut self, dtype: DType, len: usize) -> Result<Storage> {
        if let Some(s) = &self.scratch
            && s.dtype() == dtype
            && s.len() >= len
        {
            return Ok(s.clone());
        }
        let s = memory::alloc_unset(&*device::get(self.device)?, dtype, len)?;
        self.scratch = Some(s.clone());
        Ok(s)
    }

    pub fn destroy(&mut self) {
        // A rank that is gone never answers again: whoever still waits for it stops at once.
        self.seg.header().failed.store(1, Ordering::Release);
        if let Some(mut c) = self.nccl.take() {
            let _ = c.destroy();
        }
        self.scratch = None;
        ipc::forget_named(&format!("nccl:{}:", self.key));
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.destroy();
    }
}

/// A rank's buffer as a storage of `len` elements: the leader's (`me`) own memory, or another
/// rank's opened through its IPC handle (kept open for the next call).
fn open_buffer(
    me: usize,
    device: usize,
    key: &str,
    rank: usize,
    b: &Buffer,
    dtype: DType,
    len: usize,
) -> Result<Option<Storage>> {
    if b.present == 0 || len == 0 {
        return Ok(None);
    }
    if rank == me {
        return Ok(Some(memory::unowned(device, dtype, b.offset, len)));
    }
    let e = Exported {
        handle: b.handle,
        offset: b.offset as usize,
        bytes: len * dtype.size_of(),
        device,
        uuid: ipc::uuid_of(device).unwrap_or([0; 16]),
        dtype,
    };
    let name = format!(
        "nccl:{key}:{}",
        b.handle.iter().map(|x| format!("{x:02x}")).collect::<String>()
    );
    ipc::import_named(&name, &e, None).map(Some)
}

/// A 1-D tensor over the first `len` elements of `s`.
fn vector(s: &Storage, len: usize) -> Tensor {
    Tensor {
        dtype: s.dtype(),
        storage: Some(s.clone()),
        offset: 0,
        size: vec![len],
        stride: vec![1],
    }
}

/// NCCL 2's element types that the leader reduces with our kernels.
fn element_of(dtype: c_int) -> Option<DType> {
    match dtype {
        7 => Some(DType::Float),
        8 => Some(DType::Double),
        4 => Some(DType::Long),
        _ => None,
    }
}

/// Bytes of one element of NCCL 2 type `dtype`.
pub fn size_of_nccl(dtype: c_int) -> usize {
    match dtype {
        0 | 1 => 1,
        6 | 9 => 2,
        2 | 3 | 7 => 4,
        _ => 8,
    }
}

/// The type an allGather's sum over zeros runs in: bytes as unsigned 8-bit integers, where our
/// own kernels have no such type (a byte plus zero is the byte).
fn nccl_sum_type(dtype: c_int) -> c_int {
    if element_of(dtype).is_some() { dtype } else { 1 }
}

fn kind_of(k: u32) -> Kind {
    match k {
        0 => Kind::AllReduce,
        1 => Kind::Reduce,
        2 => Kind::Bcast,
        3 => Kind::AllGather,
        _ => Kind::ReduceScatter,
    }
}

/// Bytes of the send (or receive) buffer of a collective of `count` elements.
fn bytes_of(kind: Kind, count: usize, nranks: usize, dtype: c_int, send: bool) -> usize {
    let e = size_of_nccl(dtype);
    match (kind, send) {
        (Kind::AllGather, false) | (Kind::ReduceScatter, true) => count * nranks * e,
        _ => count * e,
    }
}

/// A buffer as the leader reaches it: another rank's by its allocation's IPC handle and its
/// offset there; the leader's own by its address (in `offset`, with no handle).
fn export(addr: u64, bytes: usize, device: usize, handle: bool) -> Result<Buffer> {
    let mut b = Buffer {
        present: u32::from(addr != 0 && bytes > 0),
        _pad: 0,
        handle: [0; HANDLE_BYTES],
        offset: addr,
        bytes: bytes as u64,
    };
    if b.present == 1 && handle {
        let e = ipc::export(&memory::unowned(device, DType::Byte, addr, bytes))?;
        b.handle = e.handle;
        b.offset = e.offset as u64;
    }
    Ok(b)
}

fn sync_stream(stream: usize) -> Result<()> {
    // SAFETY: a stream of this process (or null, the legacy default stream).
    unsafe { cudarc::driver::result::stream::synchronize(stream as cudarc::driver::sys::CUstream) }
        .map_err(|e| Error::device(format!("synchronizing the stream failed: {e}")))
}

fn copy_bytes(device: usize, dst: u64, src: u64, bytes: usize, stream: usize) -> Result<()> {
    let d = memory::unowned(device, DType::Byte, dst, bytes);
    let s = memory::unowned(device, DType::Byte, src, bytes);
    sync_stream(stream)?;
    memory::copy(&d, 0, &s, 0, bytes)?;
    let cur = device::get(device)?.current_stream()? as usize;
    sync_stream(cur)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_sizes_follow_the_collective() {
        assert_eq!(bytes_of(Kind::AllGather, 3, 4, 7, false), 48);
        assert_eq!(bytes_of(Kind::AllGather, 3, 4, 7, true), 12);
        assert_eq!(bytes_of(Kind::ReduceScatter, 3, 4, 8, true), 96);
        assert_eq!(bytes_of(Kind::AllReduce, 3, 4, 0, true), 3);
    }
}
