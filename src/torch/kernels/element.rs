//! One element of a host storage as a Lua number, read or written.

use crate::dispatch;
use crate::torch::base::dtype::Element;
use crate::torch::base::storage::Storage;

/// Reads element `offset` of a storage as a Lua number.
pub fn read(s: &Storage, offset: usize) -> f64 {
    assert!(offset < s.len());
    // SAFETY: bounds checked above.
    dispatch!(s.dtype(), T => unsafe { (*s.ptr::<T>().add(offset)).to_f64() })
}

/// Sets element `offset` of a storage from a Lua number (converted as a C cast).
pub fn write(s: &Storage, offset: usize, v: f64) {
    assert!(offset < s.len());
    // SAFETY: bounds checked above.
    dispatch!(s.dtype(), T => unsafe { *s.ptr::<T>().add(offset) = T::from_f64(v) })
}
