//! The device tensor family: `torch.CudaTensor`, `torch.CudaDoubleTensor`, `torch.CudaLongTensor`
//! and their storages (on top of the tensor operations; what the host code and the Lua glue know
//! of device tensors).
//!
//! A device tensor is the host tensor's `tensor::Tensor` (sizes, strides, offset: every view
//! operation is the same arithmetic) over a `Storage` whose backing is device memory
//! (`memory::DeviceMemory`). Keeping the one `Storage` type, rather than a separate device
//! storage beside a storage-less geometry, lets the view methods, constructors, `resize` and the
//! .t7 format serve both families; the host code cannot reach device memory because device
//! tensors are userdata of other types (`TensorUd<T, Cuda>`), which the host functions never
//! accept. New storages go on the calling thread's current device, as in cutorch.
//!
//! Each of `torch::family::Family`'s errors is a device error named here after the step that failed
//! ("allocate", "resize", ...), as the host code then names the Lua function.

use super::device;
use super::memory;
use super::ops::{self, copy};
use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::Tensor;
use crate::torch::family::Family;

/// The family marker of device tensors.
pub struct Cuda;

/// The element types with device classes.
pub const TYPES: [DType; 3] = [DType::Float, DType::Double, DType::Long];

impl Family for Cuda {
    fn tensor_typename(dtype: DType) -> &'static str {
        ops::tensor_typename(dtype)
    }

    fn storage_typename(dtype: DType) -> &'static str {
        ops::storage_typename(dtype)
    }

    fn new_storage(dtype: DType, len: usize) -> Result<Storage> {
        let dev = device::current_device().map_err(|e| Error::device(format!("allocate: {e}")))?;
        memory::alloc(&dev, dtype, len).map_err(|e| Error::device(format!("allocate: {e}")))
    }

    fn resize_storage(s: &Storage, len: usize) -> Result<()> {
        if len == s.len() {
            return Ok(());
        }
        let resized = memory::open_device(s).and_then(|dev| {
            let fresh = memory::alloc(&dev, s.dtype(), len)?;
            memory::copy(&fresh, 0, s, 0, len.min(s.len()))?;
            Ok(fresh)
        });
        s.take_memory_of(resized.map_err(|e| Error::device(format!("resize: {e}")))?)
    }

    fn read(s: &Storage, offset: usize) -> Result<f64> {
        memory::read(s, offset).map_err(|e| Error::device(format!("read: {e}")))
    }

    fn write(s: &Storage, offset: usize, v: f64) -> Result<()> {
        memory::write(s, offset, v).map_err(|e| Error::device(format!("write: {e}")))
    }

    fn from_host(t: Tensor) -> Result<Tensor> {
        let dev = device::current_device().map_err(|e| Error::device(format!("upload: {e}")))?;
        let d = ops::operands::empty_like(&dev, t.dtype, &t.size).map_err(|e| Error::device(format!("upload: {e}")))?;
        copy::from_host(&d, &t).map_err(|e| Error::device(format!("upload: {e}")))?;
        Ok(d)
    }
}
