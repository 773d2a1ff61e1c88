//! Operations on device tensors (`tensor::Tensor` over device storages), the layer between the
//! kernels and the Lua glue: no mlua here. Each checks its operands (types, element counts,
//! devices) before anything is launched, and fails with a `crate::error::Error` that the Lua
//! layer names.
//!
//! - `operands`: what every operation needs of its operands (addresses, the device that works);
//! - `elementwise`: the elementwise kernels and conversions between element types;
//! - `copy`: copies within and between devices, to and from the host;
//! - `reduce`: reductions of everything, along a dimension, arg-extremes, scans;
//! - `moves`: moving elements by position (index, gather, scatter, masks);
//! - `sort`: sorting along a dimension (sort, topk, kthvalue, median, mode);
//! - `blas`: matrix products through cuBLAS;
//! - `nn`: nn's window passes (im2col, col2im, max pooling), for cunn.

pub mod blas;
pub mod copy;
pub mod elementwise;
pub mod moves;
pub mod nn;
pub mod operands;
pub mod reduce;
pub mod sort;

pub use operands::{storage_typename, tensor_typename};

use crate::torch::base::tensor::Tensor;

// The forms that code outside src/cuda calls today (src/ipc/net/cuda.rs): the Lua function's name
// passed down and errors as text. They go once that caller takes `crate::error::Error`.

/// `copy::to_host`, its error named after `method`.
pub fn to_host(t: &Tensor, method: &str) -> Result<Tensor, String> {
    copy::to_host(t).map_err(|e| format!("{method}: {e}"))
}

/// `copy::on_device`, its error named after `method`.
pub fn copy_device(dst: &Tensor, src: &Tensor, method: &str) -> Result<(), String> {
    copy::on_device(dst, src).map_err(|e| format!("{method}: {e}"))
}

/// `copy::from_host`, its error named after `method`.
pub fn copy_from_host(dst: &Tensor, src: &Tensor, method: &str) -> Result<(), String> {
    copy::from_host(dst, src).map_err(|e| format!("{method}: {e}"))
}
