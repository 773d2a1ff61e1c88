//! CUDA for Lua: devices and streams, `torch.CudaTensor` and friends (cutorch), NCCL collectives,
//! and CUDA IPC between processes. Every CUDA library is loaded at run time, so `th` builds and
//! runs on machines without CUDA: there `cutorch.getDeviceCount()` is 0 and anything that needs a
//! device raises a clear error.
//!
//! Layers, bottom up: `libs` (finding the libraries; no cudarc panic reaches Lua), `device`
//! (contexts, current device and stream per thread), `events` (ordering between streams), `peer`
//! (peer-to-peer access between devices), `memory` (device storages and host
//! copies) with `cache` (freed allocations kept for reuse), `kernels` (NVRTC-compiled elementwise and reduction kernels), `ops`, `sort` and `blas` (the
//! operations on device tensors), `family` (device tensors as a torch tensor family), `ipc`
//! and `share` (sharing storages between processes), `ffi` (the THCState_* C functions), and `lua` with
//! `methods` (the `libcutorch` module under `lua/cutorch`).

pub mod blas;
pub mod cache;
pub mod device;
pub mod events;
pub mod family;
pub mod ffi;
pub mod gather;
pub mod ipc;
pub mod kernels;
pub mod libs;
pub mod lua;
pub mod memory;
pub mod methods;
pub mod nccl;
pub mod operand;
pub mod ops;
pub mod peer;
pub mod share;
pub mod sort;
