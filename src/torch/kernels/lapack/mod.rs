//! Torch7's LAPACK functions for Float and Double tensors, through the LAPACK of the OpenBLAS that
//! `blas::openblas` loads at first use (`library`). Nothing is factorized here by hand.
//!
//! The layout rule, as Torch7's THTensorLapack.c has it: LAPACK is column-major, so every matrix
//! is copied into a new column-major buffer (a `rows x cols` tensor with strides `1, rows`, the
//! transpose of a contiguous one), LAPACK works there, and the results are placed (`place_matrix`,
//! `place_plain`):
//! - a result that was not given is that buffer itself, so matrices come back "transposed
//!   contiguous", as Torch7's do;
//! - a result tensor given is laid out as Torch7 lays it out (a contiguous one becomes the
//!   transpose of a contiguous one; one that already has the result's size but a layout of its own
//!   keeps it) and receives a copy;
//! - a result tensor that is also the input it replaces (`torch.gesv(b, a, b, a)`) keeps its
//!   layout and receives the values.
//!
//! Errors are Torch7's words without its "Lapack Error in ..." prefix: the method names the Lua
//! function.

mod decompose;
mod layout;
mod library;
mod solve;

pub use decompose::{eig, geqrf, orgqr, ormqr, qr, svd, symeig};
pub use layout::{available, unavailable, unsupported};
pub use solve::{gels, gesv, inverse, potrf, potri, potrs, pstrf, trtrs};
