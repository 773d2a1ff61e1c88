//! Device tensors and storages over a client/server connection.
//!
//! To a peer on this machine the sender lends its tensor's own device memory (the wire's one
//! device-sharing protocol, `wire::cuda`; no host copy): the receiver opens the handle, copies
//! device to device into its receiving tensor, lets go of the mapping and releases the loan; the
//! sender's call returns with the release, after which its tensor may change (torch-ipc's
//! contract). Memory that cannot be exported (itself opened from another process), a peer on
//! another machine, or `LUATORCH_CUDA_IPC=0` take the host path instead: the elements travel in
//! the frames host tensors and storages use, and the receiver puts them on its device. A device
//! receiver takes either kind of frame.

use std::time::Instant;

use super::conn::Conn;
use super::error::{NetError, Res};
use super::frame::{HEADER_LEN, Kind, LentView, TensorMeta, decode_storage_meta};
use crate::cuda::ops::copy;
use crate::cuda::{memory, ops, share};
use crate::error::Error;
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::{Tensor, contiguous_strides};

const SEND: &str = "send";
const RECV: &str = "recv";

/// A device operation's failure, named after the call (`send`, `recv`) it happened in.
fn device_error(call: &str) -> impl FnOnce(Error) -> NetError + '_ {
    move |e| NetError::Mismatch(format!("{call}: {e}"))
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

/// The lent frame's description of `t`, its memory finished and lent; None when the memory
/// cannot be exported from this process.
fn lend(t: &Tensor) -> Res<Option<LentView>> {
    let s = t
        .storage_checked()
        .map_err(|e| NetError::Mismatch(format!("tensor to send: {e}")))?;
    let lent = share::lend_in_place(s).map_err(|e| NetError::Mismatch(e.message().to_string()))?;
    Ok(lent.map(|lent| LentView {
        lent,
        view_offset: t.offset as u64,
        size: t.size.clone(),
        stride: t.stride.clone(),
    }))
}

/// Sends the lent frame and waits for the receiver to have copied and released it; false when
/// the tensor must take the host path.
fn send_lent(conn: &mut Conn, t: &Tensor) -> Res<bool> {
    if t.numel() == 0 || !conn.same_host() || share::disabled() {
        return Ok(false);
    }
    conn.timed(false, |c| {
        c.check_open()?;
        let Some(view) = lend(t)? else { return Ok(false) };
        let start = Instant::now();
        c.start_frame(Kind::Lent, &view.encode(), 0);
        c.flush()?;
        if let Some(why) = c.wait_release(view.lent.loan)? {
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
    if send_lent(conn, t)? {
        return Ok(());
    }
    let host = copy::to_host(t).map_err(device_error(SEND))?;
    conn.send_tensor(&host)
}

pub fn send_storage(conn: &mut Conn, s: &Storage) -> Res<()> {
    if send_lent(conn, &whole(s))? {
        return Ok(());
    }
    let host = memory::download(s).map_err(device_error("download"))?;
    conn.send_storage(&host)
}

/// Copies the lent tensor `v` describes into `dst`, then lets go of the mapping (the caller
/// releases the loan).
fn copy_lent(v: &LentView, dst: &Tensor) -> Result<(), Error> {
    let src = Tensor {
        dtype: v.lent.dtype,
        storage: Some(share::open_briefly(&v.lent)?),
        offset: v.view_offset as usize,
        size: v.size.clone(),
        stride: v.stride.clone(),
    };
    let copied = copy::on_device(dst, &src)
        .and_then(|()| {
            // The sender may change its tensor once released: the copy must be over.
            let dst_storage = dst.storage_checked()?;
            memory::open_device(dst_storage)?.synchronize()
        })
        .map_err(|e| e.context(RECV));
    drop(src);
    copied
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
            Kind::Lent => {
                let v = LentView::decode(c.meta_bytes(&h)).map_err(|e| c.malformed(e))?;
                let fits = v.lent.dtype == t.dtype
                    && (v.size == t.size || storage && v.size.iter().product::<usize>() == t.numel());
                if !fits {
                    return Err(mismatch(v.describe()));
                }
                c.consume(HEADER_LEN + h.meta_len);
                let start = Instant::now();
                let copied = copy_lent(&v, t);
                c.send_release(v.lent.loan, copied.as_ref().err().map(Error::message))?;
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
        storage: Some(Storage::new(t.dtype, t.numel()).map_err(|e| NetError::Mismatch(e.to_string()))?),
        offset: 0,
        size: t.size.clone(),
        stride: contiguous_strides(&t.size),
    };
    let s = host.storage.as_ref().expect("made above");
    // SAFETY: a fresh storage of exactly numel elements, owned here.
    let dst = unsafe { std::slice::from_raw_parts_mut(s.data_ptr(), t.numel() * t.dtype.size_of()) };
    c.read_exact_into(dst)?;
    c.stats.rx.num_regions += 1;
    copy::from_host(t, &host).map_err(device_error(RECV))
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
