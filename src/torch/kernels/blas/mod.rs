//! BLAS: OpenBLAS loaded on first use, the operand layouts it takes (shared with cuBLAS), and the
//! products of strided views with their plain-loop fallbacks.

pub mod gemm;
pub mod openblas;
pub mod operand;
