//! Copies of device tensors (tensor operations layer): within a device and between devices, up from
//! the host and down to it, converting element types as a C cast, and contiguous copies.

use super::elementwise::{convert, pointwise};
use super::operands::{common_device, empty_like, storage};
use crate::cuda::memory::{self, device_of};
use crate::error::{Error, Result};
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::Tensor;
use crate::torch::methods::copy::copy_into;

/// A contiguous copy of `t` (on its device), or `t` itself when it is contiguous.
pub fn contiguous(t: &Tensor) -> Result<Tensor> {
    if t.is_contiguous() || t.numel() == 0 {
        return Ok(t.clone());
    }
    let dev = common_device(&[t])?;
    let c = empty_like(&dev, t.dtype, &t.size)?;
    on_device(&c, t)?;
    Ok(c)
}

/// Whether a copy between `dst` and `src` has elements to move; an error when their element
/// counts differ.
fn copies_anything(dst: &Tensor, src: &Tensor) -> Result<bool> {
    if dst.numel() != src.numel() {
        return Err(Error::shape(format!(
            "sizes do not match ({} elements vs {})",
            dst.numel(),
            src.numel()
        )));
    }
    Ok(dst.numel() > 0)
}

/// `dst = src` between device tensors of any types and geometries with as many elements.
pub fn on_device(dst: &Tensor, src: &Tensor) -> Result<()> {
    if !copies_anything(dst, src)? {
        return Ok(());
    }
    let (ds, ss) = (storage(dst)?, storage(src)?);
    if device_of(&ds) != device_of(&ss) {
        // Across devices: a contiguous copy moves between them, kernels work on each side.
        let src_c = contiguous(src)?;
        let dev = memory::open_device(&ds)?;
        let landing = empty_like(&dev, src.dtype, &src.size)?;
        memory::copy(
            landing.storage.as_ref().expect("allocated"),
            0,
            src_c.storage.as_ref().expect("has elements"),
            src_c.offset,
            src.numel(),
        )?;
        return on_device(dst, &landing);
    }
    if dst.dtype != src.dtype {
        return convert(dst, src);
    }
    if dst.is_contiguous() && src.is_contiguous() {
        return memory::copy(&ds, dst.offset, &ss, src.offset, dst.numel());
    }
    pointwise("copy", dst, Some(src), None, None, 0.0, 0.0)
}

/// A host tensor's conversion into a host tensor of another type (or layout), as `copy`.
fn host_copy(dst: &Tensor, src: &Tensor) -> Result<()> {
    copy_into(dst, src, "copy").map_err(|e| Error::dtype(e.to_string()))
}

/// `dst` (device) = `src` (host), converting the element type as a C cast.
pub fn from_host(dst: &Tensor, src: &Tensor) -> Result<()> {
    let n = dst.numel();
    if !copies_anything(dst, src)? {
        return Ok(());
    }
    // A contiguous host tensor of the destination's type...
    let host = if src.dtype == dst.dtype && src.is_contiguous() {
        src.clone()
    } else {
        let h = Tensor::zeros(dst.dtype, &src.size)?;
        host_copy(&h, src)?;
        h
    };
    let hs = host.storage_checked()?;
    let es = dst.dtype.size_of();
    // ... goes up in one copy, straight into place when the destination is contiguous.
    let ds = storage(dst)?;
    // SAFETY: `host` holds n contiguous elements of the type from its offset.
    let upload =
        |to: &Storage, offset: usize| unsafe { memory::upload_raw(to, offset, hs.data_ptr().add(host.offset * es), n) };
    if dst.is_contiguous() {
        return upload(&ds, dst.offset);
    }
    let dev = memory::open_device(&ds)?;
    let staged = empty_like(&dev, dst.dtype, &dst.size)?;
    upload(staged.storage.as_ref().expect("allocated"), 0)?;
    on_device(dst, &staged)
}

/// `dst` (host) = `src` (device), converting the element type as a C cast.
pub fn into_host(dst: &Tensor, src: &Tensor) -> Result<()> {
    let n = src.numel();
    if !copies_anything(dst, src)? {
        return Ok(());
    }
    let src = contiguous(src)?;
    let ss = storage(&src)?;
    let es = src.dtype.size_of();
    if dst.dtype == src.dtype && dst.is_contiguous() {
        let ds = dst.storage_checked()?;
        // SAFETY: the destination view holds n contiguous elements of the type.
        return unsafe { memory::download_raw(&ss, src.offset, ds.data_ptr().add(dst.offset * es), n) };
    }
    let host = Tensor::zeros(src.dtype, &src.size)?;
    let hs = host.storage_checked()?;
    // SAFETY: fresh host storage of n elements.
    unsafe { memory::download_raw(&ss, src.offset, hs.data_ptr(), n)? };
    host_copy(dst, &host)
}

/// A contiguous host copy of a device tensor.
pub fn to_host(t: &Tensor) -> Result<Tensor> {
    if t.dim() == 0 {
        return Ok(Tensor::empty(t.dtype));
    }
    let h = Tensor::zeros(t.dtype, &t.size)?;
    into_host(&h, t)?;
    Ok(h)
}
