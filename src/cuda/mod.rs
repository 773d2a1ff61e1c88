//! CUDA for Lua: devices and streams, `torch.CudaTensor` and friends (cutorch), NCCL collectives,
//! and CUDA IPC between processes. Every CUDA library is loaded at run time, so `th` builds and
//! runs on machines without CUDA: there `cutorch.getDeviceCount()` is 0 and anything that needs a
//! device raises a clear error.

pub mod nccl;
pub mod operand;
