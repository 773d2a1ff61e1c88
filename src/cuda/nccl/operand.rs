//! What the collectives (`comm`) need to know of a device tensor (a flat range of device memory),
//! and how they reach a device's current stream.

use mlua::Value;

use crate::cuda::device;
use crate::cuda::family::Cuda;
use crate::cuda::memory;
use crate::error::Result;
use crate::torch::base::dtype::DType;
use crate::torch::family::Family;

/// A device tensor as a flat range of device memory.
#[derive(Clone, Debug)]
pub struct DeviceOperand {
    /// Device address of the tensor's first element (storage start + offset).
    pub ptr: u64,
    pub numel: usize,
    pub dtype: DType,
    /// 0-based device ordinal.
    pub device: usize,
    /// Whether the elements are dense in row-major order (collectives need it).
    pub contiguous: bool,
}

/// The device tensor `value` holds, if it is one (`torch.CudaTensor`, `CudaDoubleTensor`,
/// `CudaLongTensor`).
pub fn operand_of(value: &Value) -> Option<DeviceOperand> {
    let t = Cuda::tensor_of(value)?;
    let (ptr, device) = match &t.storage {
        Some(s) if t.numel() > 0 && t.storage_checked().is_ok() => {
            (memory::address(s, t.offset).ok()?, memory::device_of(s)?)
        }
        Some(s) => (0, memory::device_of(s).unwrap_or_else(device::current)),
        None => (0, device::current()),
    };
    Some(DeviceOperand {
        ptr,
        numel: t.numel(),
        dtype: t.dtype,
        device,
        contiguous: t.is_contiguous(),
    })
}

/// The raw `CUstream` that work on `device` (0-based) is queued on now (`cutorch.setStream`),
/// with that device's context made current on the calling thread.
pub fn current_stream(device: usize) -> Result<usize> {
    let dev = device::get(device).map_err(|e| e.context("stream"))?;
    dev.current_stream().map(|s| s as usize)
}
