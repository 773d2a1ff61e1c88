//! Writing every element of a tensor in logical order: a constant, a sequence (the factories'
//! ranges), or draws from a generator (the random fills); and reading every element back.

use super::strided::for_each_mut;
use crate::dispatch;
use crate::error::Result;
use crate::torch::base::dtype::Element;
use crate::torch::base::tensor::Tensor;

/// Sets every element of `t` to `value` (a Lua number, cast to the element type).
pub fn fill(t: &Tensor, value: f64) -> Result<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    let s = t.storage_checked()?;
    // SAFETY: a checked view, not accessed elsewhere during the fill.
    dispatch!(t.dtype, T => unsafe {
        let v = T::from_f64(value);
        for_each_mut(s.ptr::<T>(), t, |x| *x = v);
    });
    Ok(())
}

/// Writes `value(i)` into the i-th element of `t` in logical order; `T` is `t`'s element type.
pub fn fill_indexed<T: Element>(t: &Tensor, mut value: impl FnMut(usize) -> T) -> Result<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    let p = t.storage_checked()?.ptr::<T>();
    let mut i = 0;
    // SAFETY: a checked view.
    unsafe {
        for_each_mut(p, t, |x| {
            *x = value(i);
            i += 1;
        })
    };
    Ok(())
}

/// Sets every element of `t`, in logical order, to `f()` converted as a C cast from double.
pub fn fill_real(t: &Tensor, mut f: impl FnMut() -> f64) -> Result<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    let s = t.storage_checked()?;
    // SAFETY: the view is checked against its storage; nothing else runs during the fill.
    dispatch!(t.dtype, T => unsafe { for_each_mut(s.ptr::<T>(), t, |x| *x = T::from_f64(f())) });
    Ok(())
}

/// As `fill_real` for integer values: integer element types wrap as a C conversion does.
pub fn fill_int(t: &Tensor, mut f: impl FnMut() -> i64) -> Result<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    let s = t.storage_checked()?;
    // SAFETY: as in fill_real.
    dispatch!(t.dtype, T => unsafe { for_each_mut(s.ptr::<T>(), t, |x| *x = T::from_i64(f())) });
    Ok(())
}

/// The elements of `t` in logical order, as doubles.
pub fn values(t: &Tensor) -> Result<Vec<f64>> {
    if t.numel() == 0 {
        return Ok(Vec::new());
    }
    let s = t.storage_checked()?;
    let mut out = Vec::with_capacity(t.numel());
    // SAFETY: checked view; the closure only reads.
    dispatch!(t.dtype, T => unsafe { for_each_mut(s.ptr::<T>(), t, |x| out.push(x.to_f64())) });
    Ok(out)
}
