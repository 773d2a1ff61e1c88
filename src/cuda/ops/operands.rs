//! What every operation on device tensors needs of its operands (tensor operations layer): the
//! kernels' name for their element type, their class names, their storage and first element's
//! address, the device that runs the work (theirs, or the current one reaching the others as a
//! peer), and new results.

use std::sync::Arc;

use crate::cuda::device::{self, Device};
use crate::cuda::kernels::source::TYPES;
use crate::cuda::memory::{self, device_of};
use crate::cuda::{events, peer};
use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::{Tensor, checked_numel, contiguous_strides};

/// The kernels' name for an element type.
pub fn suffix(d: DType) -> Result<&'static str> {
    match d {
        DType::Float => Ok(TYPES[0].0),
        DType::Double => Ok(TYPES[1].0),
        DType::Long => Ok(TYPES[2].0),
        _ => Err(Error::dtype(format!("internal error: no device kernels for {d:?}"))),
    }
}

/// The cutorch class of a device tensor of type `d`.
pub fn tensor_typename(d: DType) -> &'static str {
    match d {
        DType::Float => "torch.CudaTensor",
        DType::Double => "torch.CudaDoubleTensor",
        DType::Long => "torch.CudaLongTensor",
        _ => d.tensor_typename(),
    }
}

pub fn storage_typename(d: DType) -> &'static str {
    match d {
        DType::Float => "torch.CudaStorage",
        DType::Double => "torch.CudaDoubleStorage",
        DType::Long => "torch.CudaLongStorage",
        _ => d.storage_typename(),
    }
}

/// The error of an operation that integers do not have.
pub fn not_on_long() -> Error {
    Error::dtype("not supported for torch.CudaLongTensor (only torch.CudaTensor and torch.CudaDoubleTensor)")
}

/// The storage of a device tensor with elements, checked to hold its view.
pub fn storage(t: &Tensor) -> Result<Storage> {
    let s = t.storage_checked()?;
    if !s.is_device() {
        return Err(Error::dtype(
            "internal error: a host tensor where a device tensor was expected",
        ));
    }
    Ok(s.clone())
}

/// Address of a tensor's first element (0 for a tensor with no element).
pub fn addr(t: &Tensor) -> Result<u64> {
    if t.numel() == 0 {
        return Ok(0);
    }
    memory::address(&storage(t)?, t.offset)
}

/// The device the tensors are on (they must all be on one), opened and bound. After
/// cutorch.setKernelPeerToPeerAccess(true), tensors of several devices are worked on by the
/// current device, where it has peer access to each of the others.
pub fn common_device(ts: &[&Tensor]) -> Result<Arc<Device>> {
    let mut devices: Vec<usize> = ts
        .iter()
        .filter_map(|t| t.storage.as_ref().and_then(device_of))
        .collect();
    devices.sort_unstable();
    devices.dedup();
    let Some(&first) = devices.first() else {
        return device::current_device();
    };
    match devices.iter().find(|&&d| d != first) {
        None => device::get(first),
        Some(&other) if !peer::kernel_access() => Err(Error::device(format!(
            "tensors are on different devices ({} and {}; cutorch.setKernelPeerToPeerAccess(true) lets kernels reach other devices)",
            first + 1,
            other + 1
        ))),
        Some(_) => on_current_device(&devices),
    }
}

/// The current device, with peer access to each of `devices` (and its stream queued after
/// theirs, so that it reads what they wrote).
fn on_current_device(devices: &[usize]) -> Result<Arc<Device>> {
    let here = device::current_device()?;
    let stream = here.current_stream()?;
    for &d in devices.iter().filter(|&&d| d != here.ordinal) {
        if !peer::ensure(here.ordinal, d)? {
            return Err(Error::device(format!(
                "device {} has no peer access to device {} (cutorch.setPeerToPeerAccess)",
                here.ordinal + 1,
                d + 1
            )));
        }
        let other = device::get(d)?;
        other.mark_read_by_peers();
        let theirs = other.current_stream()?;
        events::order(&here, stream, &other, theirs)?;
    }
    here.bind()?;
    Ok(here)
}

/// A new contiguous device tensor of `size` on `dev`, its elements not set: for results that
/// are written whole before they are read (what every caller here makes).
pub fn empty_like(dev: &Device, dtype: DType, size: &[usize]) -> Result<Tensor> {
    let n = checked_numel(size)?;
    Ok(Tensor {
        dtype,
        storage: Some(memory::alloc_unset(dev, dtype, n)?),
        offset: 0,
        size: size.to_vec(),
        stride: contiguous_strides(size),
    })
}

/// A host Long tensor of `size` holding `values` in row-major order (positions and draws made on
/// the host, on their way to the device).
pub fn host_longs(values: &[i64], size: &[usize]) -> Result<Tensor> {
    Ok(Tensor {
        dtype: DType::Long,
        storage: Some(Storage::from_slice(values)?),
        offset: 0,
        size: size.to_vec(),
        stride: contiguous_strides(size),
    })
}
