//! Device tensors and storages over a client/server connection.
//!
//! To a peer on this machine the sender sends a CUDA IPC handle frame naming its own device
//! memory (no host copy); the receiver opens the handle, copies device to device into its
//! receiving tensor, closes the handle and acknowledges; the sender's call returns with the
//! acknowledgement, after which its tensor may change (torch-ipc's protocol). Memory that cannot
//! be exported (itself opened from another process), a peer on another machine, or
//! `LUATORCH_CUDA_IPC=0` take the host path instead: the elements travel in the frames host
//! tensors and storages use, and the receiver puts them on its device. A device receiver takes
//! either kind of frame.

use std::time::Instant;

use super::conn::{Conn, NetError};
use super::frame::{CudaMeta, HEADER_LEN, Kind, TensorMeta, decode_storage_meta};
use crate::cuda::{ipc, memory, ops, share};
use crate::torch::layout::{Tensor, contiguous_strides};
use crate::torch::storage::Storage;

type Res<T> = Result<T, NetError>;

const SEND: &str = "send";
const RECV: &str = "recv";

fn device_error(e: String) -> NetError {
    NetError::Mismatch(e)
}

/// The whole of a storage as a one-dimensional tensor.
fn whole(s: &Storage) -> Tensor {
    Tensor {
        dtype: s.dtype(),
        storage: Some(s.clone()),
        offset: 0,
        size: vec![s.len()],
        stride: vec![1],
    }
}

/// The handle frame's description of `t`, its memory finished and exported; None when the
/// memory cannot be exported from this process.
fn export(t: &Tensor) -> Res<Option<CudaMeta>> {
    let s = t
        .storage_checked()
        .map_err(|e| device_error(format!("tensor to send: {e}")))?;
    // Work queued on the tensor must be done before another process reads it.
    memory::device_for(s, SEND)
        .and_then(|d| d.synchronize())
        .map_err(device_error)?;
    let Ok(e) = ipc::export_ipc(s) else {
        return Ok(None);
    };
    Ok(Some(CudaMeta {
        handle: e.handle,
        offset: e.offset as u64,
        storage_len: s.len() as u64,
        device: e.device as u32,
        uuid: e.uuid,
        dtype: t.dtype,
        view_offset: t.offset as u64,
        size: t.size.clone(),
        stride: t.stride.clone(),
        pid: std::process::id(),
        addr: memory::addr_of(s, 0).map_err(device_error)?,
    }))
}

/// Sends the handle frame and waits for the receiver to have copied; false when the tensor must
/// take the host path.
fn send_handle(conn: &mut Conn, t: &Tensor) -> Res<bool> {
    if t.numel() == 0 || !conn.same_host() || share::disabled() {
        return Ok(false);
    }
    conn.timed(false, |c| {
        c.check_open()?;
        let Some(meta) = export(t)? else { return Ok(false) };
        let start = Instant::now();
        c.start_frame(Kind::CudaHandle, &meta.encode(), 0);
        c.flush()?;
        if let Some(why) = c.wait_ack()? {
            return Err(NetError::Mismatch(format!(
                "the receiver could not copy the CUDA tensor: {why}"
            )));
        }
        c.stats.tx.num_regions += 1;
        c.stats.tx.cuda_ipc_bytes += (t.numel() * t.dtype.size_of()) as u64;
        c.stats.tx.cuda_ipc_seconds += start.elapsed().as_secs_f64();
        Ok(true)
    })
}

pub fn send_tensor(conn: &mut Conn, t: &Tensor) -> Res<()> {
    if send_handle(conn, t)? {
        return Ok(());
    }
    let host = ops::to_host(t, SEND).map_err(device_error)?;
    conn.send_tensor(&host)
}

pub fn send_storage(conn: &mut Conn, s: &Storage) -> Res<()> {
    if send_handle(conn, &whole(s))? {
        return Ok(());
    }
    let host = memory::to_host(s).map_err(device_error)?;
    conn.send_storage(&host)
}

/// Copies what a handle frame describes into `dst`, then lets go of the mapping.
fn copy_from_handle(m: &CudaMeta, dst: &Tensor) -> Result<(), String> {
    let e = ipc::Exported {
        handle: m.handle,
        offset: m.offset as usize,
        bytes: (m.storage_len as usize).saturating_mul(m.dtype.size_of()),
        device: m.device as usize,
        uuid: m.uuid,
        dtype: m.dtype,
    };
    // A sender in this process (another thread) is waiting for the acknowledgement: its memory
    // is there to read as it is.
    let storage = if m.pid == std::process::id() {
        ipc::own_memory(m.addr, &e)?
    } else {
        ipc::import_ipc(&e, None)?
    };
    let src = Tensor {
        dtype: m.dtype,
        storage: Some(storage),
        offset: m.view_offset as usize,
        size: m.size.clone(),
        stride: m.stride.clone(),
    };
    ops::copy_device(dst, &src, RECV)?;
    // The sender may change its tensor once acknowledged: the copy must be over.
    let dst_storage = dst.storage_checked()?;
    memory::device_for(dst_storage, RECV)?.synchronize()
}

/// Receives the next frame into device tensor `t` (of the sender's type and sizes); `storage`
/// when `t` stands for a whole storage, which takes storage frames on the host path.
fn recv_into(conn: &mut Conn, t: &Tensor, storage: bool) -> Res<()> {
    let want = if storage {
        format!("{} of {} elements", ops::storage_typename(t.dtype), t.numel())
    } else {
        format!("{} of size {}", ops::tensor_typename(t.dtype), sizes(&t.size))
    };
    conn.timed(true, |c| {
        let h = c
            .peek(true)?
            .ok_or_else(|| NetError::Broken("no frame after a blocking wait".into()))?;
        let mismatch = |what: String| NetError::Mismatch(format!("the peer sent {what}, the receiver is a {want}"));
        match h.kind {
            Kind::CudaHandle => {
                let m = CudaMeta::decode(c.meta_bytes(&h)).map_err(|e| c.malformed(e))?;
                let fits = m.dtype == t.dtype
                    && (m.size == t.size || storage && m.size.iter().product::<usize>() == t.numel());
                if !fits {
                    return Err(mismatch(m.describe()));
                }
                c.consume(HEADER_LEN + h.meta_len);
                let start = Instant::now();
                let copied = copy_from_handle(&m, t);
                c.send_ack(copied.as_ref().err().map(String::as_str))?;
                copied.map_err(|e| NetError::Mismatch(format!("cannot copy the CUDA tensor the peer sent: {e}")))?;
                c.stats.rx.num_regions += 1;
                c.stats.rx.cuda_ipc_bytes += (t.numel() * t.dtype.size_of()) as u64;
                c.stats.rx.cuda_ipc_seconds += start.elapsed().as_secs_f64();
                Ok(())
            }
            Kind::Tensor if !storage => {
                let m = TensorMeta::decode(c.meta_bytes(&h), h.body_len).map_err(|e| c.malformed(e))?;
                if m.dtype != t.dtype || m.size != t.size {
                    return Err(mismatch(format!("a tensor ({})", m.describe())));
                }
                c.consume(HEADER_LEN + h.meta_len);
                read_host(c, t)
            }
            Kind::Storage if storage => {
                let (d, n) = decode_storage_meta(c.meta_bytes(&h), h.body_len).map_err(|e| c.malformed(e))?;
                if d != t.dtype || n != t.numel() {
                    return Err(mismatch(format!("a {} of {n} elements", d.storage_typename())));
                }
                c.consume(HEADER_LEN + h.meta_len);
                read_host(c, t)
            }
            _ => Err(mismatch(c.describe(&h)?)),
        }
    })
}

/// Reads the frame body (`t`'s elements, row-major) through host memory into `t`.
fn read_host(c: &mut Conn, t: &Tensor) -> Res<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    let host = Tensor {
        dtype: t.dtype,
        storage: Some(Storage::new(t.dtype, t.numel()).map_err(device_error)?),
        offset: 0,
        size: t.size.clone(),
        stride: contiguous_strides(&t.size),
    };
    let s = host.storage.as_ref().expect("made above");
    // SAFETY: a fresh storage of exactly numel elements, owned here.
    let dst = unsafe { std::slice::from_raw_parts_mut(s.data_ptr(), t.numel() * t.dtype.size_of()) };
    c.read_exact_into(dst)?;
    c.stats.rx.num_regions += 1;
    ops::copy_from_host(t, &host, RECV).map_err(device_error)
}

fn sizes(size: &[usize]) -> String {
    size.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("x")
}

pub fn recv_tensor(conn: &mut Conn, t: &Tensor) -> Res<()> {
    recv_into(conn, t, false)
}

pub fn recv_storage(conn: &mut Conn, s: &Storage) -> Res<()> {
    recv_into(conn, &whole(s), true)
}
