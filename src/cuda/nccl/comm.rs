//! NCCL communicators and the five collectives on device tensors (below the Lua functions of
//! `nccl`, on top of `loader` and `operand`).
//!
//! A communicator made by `nccl.communicator` is non-blocking: NCCL returns at once and we poll it
//! with a deadline (`nccl.timeout`), so a rank whose peers never come cannot hang; on the deadline
//! the communicator is aborted and a Lua error says why. Communicators for the single-process API
//! (one per device, `ncclCommInitAll`) are blocking: there are no other processes to wait for.
//!
//! Collectives are queued on the current stream of the communicator's device (the stream cutorch
//! queues its own work on), so they are ordered with the tensor operations around them and the
//! call returns without waiting for the GPU.

use std::ffi::c_int;
use std::time::{Duration, Instant};

use mlua::Value;

use super::loader::{self, Comm, IN_PROGRESS, INVALID_USAGE, Nccl, NcclResult, SUCCESS, UNIQUE_ID_BYTES, UniqueId};
use super::operand::{DeviceOperand, current_stream, operand_of};
use crate::args::type_name;
use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;

/// The five collectives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    AllReduce,
    Reduce,
    Bcast,
    AllGather,
    ReduceScatter,
}

impl Kind {
    pub fn from_name(name: &str) -> Option<Kind> {
        Some(match name {
            "allReduce" => Kind::AllReduce,
            "reduce" => Kind::Reduce,
            "bcast" => Kind::Bcast,
            "allGather" => Kind::AllGather,
            "reduceScatter" => Kind::ReduceScatter,
            _ => return None,
        })
    }

    pub fn takes_op(self) -> bool {
        matches!(self, Kind::AllReduce | Kind::Reduce | Kind::ReduceScatter)
    }

    pub fn takes_root(self) -> bool {
        matches!(self, Kind::Reduce | Kind::Bcast)
    }

    /// allGather and reduceScatter change the element count, so they need both tensors.
    pub fn needs_recv(self) -> bool {
        matches!(self, Kind::AllGather | Kind::ReduceScatter)
    }
}

/// `sum`, `prod`, `max`, `min`, `avg` (any case) as NCCL's ncclRedOp_t.
pub fn parse_op(name: &str) -> Result<c_int> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "sum" => 0,
        "prod" => 1,
        "max" => 2,
        "min" => 3,
        "avg" => 4,
        _ => {
            return Err(Error::argument(format!(
                "unknown reduction '{name}' (expected sum, prod, max, min or avg)"
            )));
        }
    })
}

/// ncclRedOp_t's sum and avg.
const OP_SUM: c_int = 0;
const OP_AVG: c_int = 4;
/// The first NCCL whose one-rank reduction kernel covers every element (2.29.7): before it, an
/// avg on a communicator of one rank, out of place, left the last `count % blocks` elements of
/// the output unwritten (NVIDIA/nccl issue 1950, seen here on an H200 with NCCL 2.28.3).
const ONE_RANK_AVG_FIXED: i32 = 22907;

/// The reduction to ask NCCL for. With one rank, avg equals sum exactly (the data pass through
/// unchanged), and sum takes NCCL's plain copy rather than the faulty kernel of older versions.
fn effective_op(op: c_int, nranks: i32, version: i32) -> c_int {
    if op == OP_AVG && nranks == 1 && version < ONE_RANK_AVG_FIXED {
        OP_SUM
    } else {
        op
    }
}

/// The element type as NCCL's ncclDataType_t.
fn nccl_type(dtype: DType) -> Option<c_int> {
    Some(match dtype {
        DType::Char => 0,
        DType::Byte => 1,
        DType::Int => 2,
        DType::Long => 4,
        DType::Float => 7,
        DType::Double => 8,
        DType::Half => 6,
        DType::Short => return None,
    })
}

/// cutorch's name for a device tensor of `dtype` (`torch.CudaTensor` holds floats).
pub fn cuda_typename(dtype: DType) -> String {
    match dtype {
        DType::Float => "torch.CudaTensor".to_string(),
        d => format!("torch.Cuda{}Tensor", d.name()),
    }
}

/// The device tensor in `value`, or an error naming `label` and what it got instead.
pub fn operand(label: &str, value: &Value) -> Result<DeviceOperand> {
    operand_of(value).ok_or_else(|| {
        Error::dtype(format!(
            "{label}: expected a torch.Cuda*Tensor, got {}",
            type_name(value)
        ))
    })
}

/// A communicator: one rank's handle, owned by one Lua state.
pub struct Communicator {
    nccl: &'static Nccl,
    /// Null once destroyed or aborted.
    comm: Comm,
    pub nranks: i32,
    pub rank: i32,
    /// 0-based device ordinal.
    pub device: usize,
    /// False for `nccl.communicator`'s: calls may return ncclInProgress and are polled.
    blocking: bool,
    timeout: Duration,
}

/// A call that failed: NCCL's result code (ncclInProgress when time ran out) and the message.
struct Failure(NcclResult, String);

impl Failure {
    /// The error: the other ranks' when time ran out waiting for them, NCCL's otherwise.
    fn error(code: NcclResult, message: String) -> Error {
        if code == IN_PROGRESS {
            Error::peer(message)
        } else {
            Error::device(message)
        }
    }
}

/// One collective, checked and ready to queue.
#[derive(Debug)]
pub struct Call {
    kind: Kind,
    send: u64,
    recv: u64,
    count: usize,
    dtype: c_int,
    op: c_int,
    root: c_int,
    stream: usize,
}

impl Call {
    /// A call on raw device addresses (NCCL 2 codes), for callers that checked them themselves:
    /// the NCCL 1.x interface (`v1`) and the ranks-sharing-a-GPU path (`shared`).
    #[allow(clippy::too_many_arguments)]
    pub fn raw(
        kind: Kind,
        send: u64,
        recv: u64,
        count: usize,
        dtype: c_int,
        op: c_int,
        root: c_int,
        stream: usize,
    ) -> Call {
        Call {
            kind,
            send,
            recv,
            count,
            dtype,
            op,
            root,
            stream,
        }
    }

    /// (kind, send, recv, count, NCCL type, NCCL op, root, stream).
    #[allow(clippy::type_complexity)]
    pub fn parts(&self) -> (Kind, u64, u64, usize, c_int, c_int, c_int, usize) {
        (
            self.kind,
            self.send,
            self.recv,
            self.count,
            self.dtype,
            self.op,
            self.root,
            self.stream,
        )
    }

    /// Same element type and count: what the calls of one group must share.
    pub fn same_shape(&self, other: &Call) -> bool {
        self.dtype == other.dtype && self.count == other.count
    }

    /// Waits until the stream the call was queued on has finished it.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: the stream came from current_stream and is alive while its device is.
        unsafe { cudarc::driver::result::stream::synchronize(self.stream as cudarc::driver::sys::CUstream) }
            .map_err(|e| Error::device(format!("synchronizing the stream failed: {e}")))
    }
}

impl Communicator {
    /// `ncclCommInitRankConfig` (non-blocking) for `rank` of `nranks` on `device` (0-based),
    /// waiting at most `timeout` for the other ranks.
    pub fn init_rank(
        nranks: i32,
        id: &[u8; UNIQUE_ID_BYTES],
        rank: i32,
        device: usize,
        timeout: Duration,
    ) -> Result<Communicator> {
        // Makes the device's context current: NCCL takes the device from it.
        current_stream(device)?;
        let nccl = loader::nccl()?;
        let id = UniqueId {
            internal: id.map(|b| b as std::ffi::c_char),
        };
        let mut config = loader::Config::non_blocking();
        let mut comm: Comm = std::ptr::null_mut();
        // SAFETY: comm and config outlive the call; the id is passed by value.
        let rc = unsafe { (nccl.comm_init_rank_config)(&mut comm, nranks, id, rank, &mut config) };
        let mut c = Communicator {
            nccl,
            comm,
            nranks,
            rank,
            device,
            blocking: false,
            timeout,
        };
        let what = format!("rank {rank} of {nranks}");
        if let Err(Failure(code, e)) = c.settle(rc, "ncclCommInitRankConfig", &what) {
            // A half-made communicator is freed without waiting for anyone.
            c.abort();
            return Err(Failure::error(code, init_error(nccl, e, code)));
        }
        let mut dev: c_int = 0;
        // SAFETY: a live communicator; writes one int.
        if unsafe { (nccl.comm_cu_device)(c.comm, &mut dev) } == SUCCESS && dev >= 0 {
            c.device = dev as usize;
        }
        Ok(c)
    }

    /// `ncclCommInitAll` over `devices` (0-based, distinct): one blocking communicator per device,
    /// rank i on devices[i].
    pub fn init_all(devices: &[usize], timeout: Duration) -> Result<Vec<Communicator>> {
        for &d in devices {
            current_stream(d)?;
        }
        let nccl = loader::nccl()?;
        let list: Vec<c_int> = devices.iter().map(|&d| d as c_int).collect();
        let mut comms: Vec<Comm> = vec![std::ptr::null_mut(); devices.len()];
        // SAFETY: comms has room for one handle per device; list holds the device ordinals.
        let rc = unsafe { (nccl.comm_init_all)(comms.as_mut_ptr(), list.len() as c_int, list.as_ptr()) };
        if rc != SUCCESS {
            let e = format!("ncclCommInitAll failed: {}", describe(nccl, rc, std::ptr::null_mut()));
            return Err(Failure::error(rc, init_error(nccl, e, rc)));
        }
        let n = devices.len() as i32;
        Ok(comms
            .into_iter()
            .zip(devices)
            .enumerate()
            .map(|(i, (comm, &device))| Communicator {
                nccl,
                comm,
                nranks: n,
                rank: i as i32,
                device,
                blocking: true,
                timeout,
            })
            .collect())
    }

    pub fn is_live(&self) -> bool {
        !self.comm.is_null()
    }

    /// Waits for a call that returned `rc` to finish: ncclInProgress is polled until the
    /// communicator's state settles, at most `timeout`. A call NCCL refused at once leaves the
    /// communicator as it was; one that failed later, or ran out of time, aborts it.
    fn settle(&mut self, rc: NcclResult, call: &str, what: &str) -> Result<(), Failure> {
        if rc == SUCCESS {
            return Ok(());
        }
        if rc != IN_PROGRESS || self.comm.is_null() {
            return Err(Failure(
                rc,
                format!("{call} failed: {}", describe(self.nccl, rc, self.comm)),
            ));
        }
        let deadline = Instant::now() + self.timeout;
        let mut pause = Duration::from_micros(1);
        loop {
            let mut state: NcclResult = IN_PROGRESS;
            // SAFETY: a live communicator; writes one result code.
            let rc = unsafe { (self.nccl.comm_get_async_error)(self.comm, &mut state) };
            if rc != SUCCESS {
                state = rc;
            }
            match state {
                SUCCESS => return Ok(()),
                IN_PROGRESS => {}
                failed => {
                    let e = format!("{call} failed: {}", describe(self.nccl, failed, self.comm));
                    self.abort();
                    return Err(Failure(failed, e));
                }
            }
            if Instant::now() >= deadline {
                self.abort();
                return Err(Failure(
                    IN_PROGRESS,
                    format!(
                        "{call}: {what} was still waiting for the other ranks after {} s (nccl.timeout); \
                     the communicator was aborted. Every rank must take part, with the same unique id",
                        fmt_secs(self.timeout)
                    ),
                ));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(5));
        }
    }

    /// Raises an error left behind by earlier work (a peer that went away, for one).
    fn check_async(&mut self) -> Result<()> {
        let mut state: NcclResult = SUCCESS;
        // SAFETY: a live communicator; writes one result code.
        let rc = unsafe { (self.nccl.comm_get_async_error)(self.comm, &mut state) };
        let state = if rc != SUCCESS { rc } else { state };
        if state == SUCCESS || state == IN_PROGRESS {
            return Ok(());
        }
        let e = format!(
            "the communicator failed earlier: {}; it was aborted",
            describe(self.nccl, state, self.comm)
        );
        self.abort();
        Err(Error::device(e))
    }

    /// Checks the tensors of one collective against this communicator and each other.
    /// `recv` None means in place (allReduce, reduce, bcast only).
    pub fn prepare(
        &self,
        kind: Kind,
        send: (&str, &Value),
        recv: Option<(&str, &Value)>,
        op: c_int,
        root: i32,
    ) -> Result<Call> {
        if self.comm.is_null() {
            return Err(Error::argument("the communicator was destroyed"));
        }
        let version = self.nccl.version().unwrap_or(0);
        check_call(self.nranks, self.rank, self.device, version, kind, send, recv, op, root)
    }
}

/// Checks the tensors of one collective for a communicator of `nranks` on `device` and each
/// other, and makes the call (on the device's current stream).
#[allow(clippy::too_many_arguments)]
pub fn check_call(
    nranks: i32,
    rank: i32,
    device: usize,
    version: i32,
    kind: Kind,
    send: (&str, &Value),
    recv: Option<(&str, &Value)>,
    op: c_int,
    root: i32,
) -> Result<Call> {
    {
        let s = operand(send.0, send.1)?;
        let r = match recv {
            Some((label, v)) => operand(label, v)?,
            None if kind.needs_recv() => return Err(Error::argument("an output tensor is needed")),
            None => s.clone(),
        };
        let recv_label = recv.map_or(send.0, |r| r.0);
        for (label, o) in [(send.0, &s), (recv_label, &r)] {
            if !o.contiguous {
                return Err(Error::shape(format!("{label}: the tensor must be contiguous")));
            }
            if o.device != device {
                return Err(Error::device(format!(
                    "{label}: the tensor is on device {}, the communicator on device {}",
                    o.device + 1,
                    device + 1
                )));
            }
        }
        if s.dtype != r.dtype {
            return Err(Error::dtype(format!(
                "{} is a {} but {} is a {}: both must have the same type",
                send.0,
                cuda_typename(s.dtype),
                recv_label,
                cuda_typename(r.dtype)
            )));
        }
        let dtype = nccl_type(s.dtype)
            .ok_or_else(|| Error::dtype(format!("{}: NCCL has no {} type", send.0, cuda_typename(s.dtype))))?;
        let n = nranks as usize;
        let count = match kind {
            Kind::AllReduce | Kind::Reduce | Kind::Bcast => {
                if r.numel != s.numel {
                    return Err(Error::shape(format!(
                        "{} has {} elements but {} has {}: they must have the same number",
                        send.0, s.numel, recv_label, r.numel
                    )));
                }
                s.numel
            }
            Kind::AllGather => {
                if r.numel != s.numel * n {
                    return Err(Error::shape(format!(
                        "{recv_label} has {} elements but must have {} ({} ranks x {} elements of {})",
                        r.numel,
                        s.numel * n,
                        n,
                        s.numel,
                        send.0
                    )));
                }
                s.numel
            }
            Kind::ReduceScatter => {
                if s.numel != r.numel * n {
                    return Err(Error::shape(format!(
                        "{} has {} elements but must have {} ({} ranks x {} elements of {recv_label})",
                        send.0,
                        s.numel,
                        r.numel * n,
                        n,
                        r.numel
                    )));
                }
                r.numel
            }
        };
        check_overlap(kind, &s, &r, count, rank as usize)
            .map_err(|e| e.context(format!("{} and {recv_label}", send.0)))?;
        let stream = current_stream(device)?;
        let op = effective_op(op, nranks, version);
        Ok(Call {
            kind,
            send: s.ptr,
            recv: r.ptr,
            count,
            dtype,
            op,
            root,
            stream,
        })
    }
}

impl Communicator {
    /// Queues a prepared call; inside a group NCCL only records it.
    fn launch(&self, c: &Call) -> NcclResult {
        if c.count == 0 {
            // Every rank has the same count, so every rank skips: nothing to exchange.
            return SUCCESS;
        }
        let n = self.nccl;
        let (send, recv) = (c.send as *const std::ffi::c_void, c.recv as *mut std::ffi::c_void);
        let stream = c.stream as loader::Stream;
        // SAFETY: prepare checked that both ranges are live device tensors of `count` (or
        // nranks x count) elements of `dtype` on this communicator's device, and the stream is
        // that device's current stream.
        unsafe {
            match c.kind {
                Kind::AllReduce => (n.all_reduce)(send, recv, c.count, c.dtype, c.op, self.comm, stream),
                Kind::Reduce => (n.reduce)(send, recv, c.count, c.dtype, c.op, c.root, self.comm, stream),
                Kind::Bcast => (n.broadcast)(send, recv, c.count, c.dtype, c.root, self.comm, stream),
                Kind::AllGather => (n.all_gather)(send, recv, c.count, c.dtype, self.comm, stream),
                Kind::ReduceScatter => (n.reduce_scatter)(send, recv, c.count, c.dtype, c.op, self.comm, stream),
            }
        }
    }

    /// Queues one collective on this communicator.
    pub fn run(&mut self, call: &Call) -> Result<()> {
        self.check_async()?;
        let rc = self.launch(call);
        let what = format!("rank {} of {}", self.rank, self.nranks);
        self.settle(rc, &format!("nccl{}", nccl_name(call.kind)), &what)
            .map_err(|Failure(code, e)| Failure::error(code, e))
    }

    /// Frees the communicator once its queued work is done (bounded by the timeout, after which
    /// it is aborted). Destroying a destroyed communicator does nothing.
    pub fn destroy(&mut self) -> Result<()> {
        if self.comm.is_null() {
            return Ok(());
        }
        if !self.blocking {
            // SAFETY: a live communicator.
            let rc = unsafe { (self.nccl.comm_finalize)(self.comm) };
            let what = format!("rank {} of {}", self.rank, self.nranks);
            if let Err(Failure(code, e)) = self.settle(rc, "ncclCommFinalize", &what) {
                // Whatever went wrong, the communicator is gone afterwards.
                self.abort();
                return Err(Failure::error(code, e));
            }
        }
        let comm = std::mem::replace(&mut self.comm, std::ptr::null_mut());
        // SAFETY: a live communicator, finalized above (or blocking), not used after this.
        let rc = unsafe { (self.nccl.comm_destroy)(comm) };
        if rc != SUCCESS {
            return Err(Error::device(format!(
                "ncclCommDestroy failed: {}",
                describe(self.nccl, rc, std::ptr::null_mut())
            )));
        }
        Ok(())
    }

    /// Ends the communicator at once, dropping work still queued on it.
    pub fn abort(&mut self) {
        let comm = std::mem::replace(&mut self.comm, std::ptr::null_mut());
        if !comm.is_null() {
            // SAFETY: a live communicator, not used after this.
            unsafe { (self.nccl.comm_abort)(comm) };
        }
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        // Nobody is left to report an error to.
        let _ = self.destroy();
    }
}

/// Runs several collectives, one per communicator of one `init_all` clique, as one NCCL group.
pub fn run_group(comms: &mut [&mut Communicator], calls: &[Call]) -> Result<()> {
    let Some(first) = comms.first() else { return Ok(()) };
    let nccl = first.nccl;
    // SAFETY: plain NCCL calls with no arguments.
    let rc = unsafe { (nccl.group_start)() };
    if rc != SUCCESS {
        return Err(Error::device(format!(
            "ncclGroupStart failed: {}",
            describe(nccl, rc, std::ptr::null_mut())
        )));
    }
    let mut failed = None;
    for (c, call) in comms.iter().zip(calls) {
        let rc = c.launch(call);
        if rc != SUCCESS && failed.is_none() {
            failed = Some(format!(
                "nccl{} failed: {}",
                nccl_name(call.kind),
                describe(nccl, rc, c.comm)
            ));
        }
    }
    // The group is always closed, even after a failed call, so later NCCL calls are not swallowed.
    // SAFETY: as above.
    let rc = unsafe { (nccl.group_end)() };
    if let Some(e) = failed {
        return Err(Error::device(e));
    }
    if rc != SUCCESS {
        return Err(Error::device(format!(
            "ncclGroupEnd failed: {}",
            describe(nccl, rc, std::ptr::null_mut())
        )));
    }
    Ok(())
}

fn nccl_name(kind: Kind) -> &'static str {
    match kind {
        Kind::AllReduce => "AllReduce",
        Kind::Reduce => "Reduce",
        Kind::Bcast => "Broadcast",
        Kind::AllGather => "AllGather",
        Kind::ReduceScatter => "ReduceScatter",
    }
}

/// "invalid usage (NCCL's own message)".
fn describe(nccl: &Nccl, rc: NcclResult, comm: Comm) -> String {
    let detail = nccl.last_error(comm);
    if detail.is_empty() {
        nccl.error_string(rc)
    } else {
        format!("{} ({detail})", nccl.error_string(rc))
    }
}

/// Adds what to do when NCCL refused two ranks on one GPU.
fn init_error(nccl: &Nccl, message: String, rc: NcclResult) -> String {
    let lower = message.to_ascii_lowercase();
    let same_gpu = lower.contains("duplicate gpu") || lower.contains("same gpu") || lower.contains("multiple ranks");
    if rc == INVALID_USAGE || same_gpu {
        format!(
            "{message}. If two ranks use the same GPU: that needs NCCL >= 2.30 with NCCL_MULTI_RANK_GPU_ENABLE=1 \
             in the environment (this is NCCL {}); otherwise give each rank its own GPU",
            nccl.version_string()
        )
    } else {
        message
    }
}

/// NCCL needs out-of-place buffers apart, and in-place ones exactly where it expects them.
fn check_overlap(kind: Kind, s: &DeviceOperand, r: &DeviceOperand, count: usize, rank: usize) -> Result<()> {
    let esize = s.dtype.size_of() as u64;
    let (s_len, r_len) = (s.numel as u64 * esize, r.numel as u64 * esize);
    let overlap = s.ptr < r.ptr + r_len && r.ptr < s.ptr + s_len;
    if !overlap || s_len == 0 || r_len == 0 {
        return Ok(());
    }
    let chunk = (count * rank) as u64 * esize;
    let (in_place, how) = match kind {
        Kind::AllReduce | Kind::Reduce | Kind::Bcast => (s.ptr == r.ptr, "the same tensor"),
        Kind::AllGather => (s.ptr == r.ptr + chunk, "the rank's own slice of the output"),
        Kind::ReduceScatter => (r.ptr == s.ptr + chunk, "the rank's own slice of the input"),
    };
    if in_place {
        Ok(())
    } else {
        Err(Error::argument(format!(
            "the tensors overlap; in place, they must be {how}"
        )))
    }
}

fn fmt_secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn operand(ptr: u64, numel: usize) -> DeviceOperand {
        DeviceOperand {
            ptr,
            numel,
            dtype: DType::Float,
            device: 0,
            contiguous: true,
        }
    }

    #[test]
    fn in_place_is_where_nccl_expects_it() {
        let whole = operand(1000, 8);
        // Apart, or the same tensor: fine.
        assert!(check_overlap(Kind::AllReduce, &operand(0, 8), &whole, 8, 0).is_ok());
        assert!(check_overlap(Kind::AllReduce, &whole, &whole, 8, 0).is_ok());
        // Half overlapping: refused.
        assert!(check_overlap(Kind::AllReduce, &operand(1004, 8), &whole, 8, 0).is_err());
        // allGather in place: send is the rank's slice of recv (rank 1 of 2, 4 elements each).
        assert!(check_overlap(Kind::AllGather, &operand(1016, 4), &whole, 4, 1).is_ok());
        assert!(check_overlap(Kind::AllGather, &operand(1000, 4), &whole, 4, 1).is_err());
        // reduceScatter in place: recv is the rank's slice of send.
        assert!(check_overlap(Kind::ReduceScatter, &whole, &operand(1016, 4), 4, 1).is_ok());
        assert!(check_overlap(Kind::ReduceScatter, &whole, &operand(1004, 4), 4, 1).is_err());
    }

    #[test]
    fn reductions_and_types() {
        assert_eq!(parse_op("sum"), Ok(0));
        assert_eq!(parse_op("AVG"), Ok(4));
        assert!(
            parse_op("mean")
                .unwrap_err()
                .message()
                .contains("sum, prod, max, min or avg")
        );
        assert_eq!(nccl_type(DType::Float), Some(7));
        assert_eq!(nccl_type(DType::Double), Some(8));
        assert_eq!(nccl_type(DType::Long), Some(4));
        assert_eq!(nccl_type(DType::Short), None);
        assert_eq!(cuda_typename(DType::Float), "torch.CudaTensor");
        assert_eq!(cuda_typename(DType::Double), "torch.CudaDoubleTensor");
    }

    #[test]
    fn one_rank_avg_is_a_sum_before_nccl_2_29_7() {
        let avg = parse_op("avg").unwrap();
        let sum = parse_op("sum").unwrap();
        assert_eq!(effective_op(avg, 1, 22803), sum);
        assert_eq!(effective_op(avg, 1, 22907), avg);
        assert_eq!(effective_op(avg, 2, 22803), avg);
        assert_eq!(
            effective_op(parse_op("max").unwrap(), 1, 22803),
            parse_op("max").unwrap()
        );
    }
}
