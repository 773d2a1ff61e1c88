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
