//! CUDA for Lua: devices and streams, `torch.CudaTensor` and friends (cutorch), NCCL collectives,
//! and CUDA IPC between processes. Every CUDA library is loaded at run time, so `th` builds and
//! runs on machines without CUDA: there `cutorch.getDeviceCount()` is 0 and anything that needs a
//! device raises a clear error.
//!
//! Layers, bottom up; a file uses only the layers below its own (and its own layer's files
//! listed before it):
//!
//! 1. driver and libraries: `driver` (cudarc's panics kept out of Lua, the driver's errors in
//!    words), `libraries` (finding cuBLAS and NVRTC);
//! 2. devices, memory, streams: `block_cache` (freed allocations kept for reuse), `device`
//!    (contexts, the current device and stream per thread, per-device slots for the layers
//!    above), `events` (ordering between streams), `peer` (peer access between devices),
//!    `generators` (the devices' random generators), `memory` (device storages and the copies
//!    between host and device), `ipc` (CUDA IPC handles) and `share` (staging storages for
//!    another process); `ffi` (the THCState_* C functions) sits on `device`;
//! 3. kernels: `kernels` (compiling and launching; the program's text in `kernels/source`);
//! 4. tensor operations: `ops` (elementwise, copies, reductions, moves by position, sorting,
//!    cuBLAS products), and `family` (device tensors as a torch tensor family);
//! 5. the Lua glue: `lua` (the `libcutorch` module under `lua/cutorch`) and `nccl` (the
//!    `libnccl` module under `lua/nccl`, with its own loader and communicators).
//!
//! Below the Lua glue errors are `crate::error::Error`s that do not know the Lua function; the
//! glue names them (`crate::error::Named`).

pub mod block_cache;
pub mod device;
pub mod driver;
pub mod events;
pub mod family;
pub mod ffi;
pub mod generators;
pub mod ipc;
pub mod kernels;
pub mod libraries;
pub mod lua;
pub mod memory;
pub mod nccl;
pub mod ops;
pub mod peer;
pub mod share;
