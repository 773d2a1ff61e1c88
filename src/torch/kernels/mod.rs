//! The host kernels: the work on tensors' elements, below the Lua layer (nothing here knows mlua;
//! `tests/architecture.rs` checks it). A kernel takes `Tensor`s (or slices) that the caller has
//! resolved and shaped, and returns `crate::error::Result` with messages that do not name a Lua
//! function: the method that called it adds its name once, at the boundary (`Named::named`).
//!
//! Every kernel walks tensors through `strided`; elementwise loops are in `elementwise`, element
//! arithmetic with C's semantics in `arith`. The nn kernels (convolution by unfold + gemm, pooling,
//! softmax) belong here too, on top of `blas` and `reduce`.

pub mod arith;
pub mod blas;
pub mod conv;
pub mod copy;
pub mod element;
pub mod elementwise;
pub mod fill;
pub mod index;
pub mod lapack;
pub mod linalg;
pub mod math;
pub mod nn;
pub mod reduce;
pub mod strided;
pub mod workers;
