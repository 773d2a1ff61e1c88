//! What the parts of `cuda` that work on device tensors without owning them (NCCL collectives,
//! IPC) need to know of a device tensor, and how they reach a device's current stream.

use mlua::Value;

use crate::torch::dtype::DType;

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
    let _ = value;
    None
}

/// The raw `CUstream` that work on `device` (0-based) is queued on now (`cutorch.setStream`),
/// with that device's context made current on the calling thread.
pub fn current_stream(device: usize) -> Result<usize, String> {
    Err(format!("no CUDA device {}", device + 1))
}
