//! Reading tensor-typed Lua arguments (tensors, dimensions, sizes, LongStorages) for tensor
//! methods; the other readers are the crate's `args`.

use mlua::Value;

use super::base::dtype::DType;
use super::base::storage::Storage;
use super::base::tensor::Tensor;
use super::userdata::{Object, classify, storage_of, tensor_of};
use crate::args::{Args, arg, check_dim, error, int_arg, number, number_arg, type_name};

pub fn tensor_arg(args: &Args, pos: usize, method: &str) -> mlua::Result<Tensor> {
    let v = arg(args, pos);
    tensor_of(v).ok_or_else(|| {
        error(
            method,
            format!("bad argument #{pos} (tensor expected, got {})", type_name(v)),
        )
    })
}

/// A 1-based dimension of `t` at `pos`, returned 0-based.
pub fn dim_arg(args: &Args, pos: usize, t: &Tensor, method: &str) -> mlua::Result<usize> {
    let d = int_arg(args, pos, method)?;
    check_dim(d, t.dim(), method)
}

pub fn is_long_storage(v: &Value) -> bool {
    matches!(classify(v), Some(Object::Storage(_, DType::Long)))
}

/// Values of a LongStorage.
pub fn long_storage_values(v: &Value) -> Option<Vec<i64>> {
    let s: Storage = storage_of(v)?;
    if s.dtype() != DType::Long {
        return None;
    }
    // SAFETY: read-only copy of a Long storage.
    Some(unsafe { s.as_slice::<i64>() }.to_vec())
}

/// Sizes given either as numbers from `pos` on, or as one LongStorage at `pos`; also accepts a
/// plain Lua table of numbers. Returns the raw values (-1 allowed for `view`).
pub fn sizes_arg(args: &Args, pos: usize, method: &str) -> mlua::Result<Vec<i64>> {
    let first = arg(args, pos);
    if let Some(v) = long_storage_values(first) {
        return Ok(v);
    }
    if let Value::Table(t) = first {
        let mut out = Vec::new();
        for v in t.sequence_values::<Value>() {
            let v = v?;
            let n = number(&v).ok_or_else(|| error(method, "size table must hold numbers"))?;
            out.push(n as i64);
        }
        return Ok(out);
    }
    // Torch7 reads sizes as C longs: a fractional size is cut toward zero (`torch.rand(3.5)` has
    // 3 elements, which nn's own tests rely on), as the table form above does.
    let mut out = Vec::new();
    let mut p = pos;
    while p <= args.len() && !matches!(arg(args, p), Value::Nil) {
        let n = number_arg(args, p, method)?;
        if !n.is_finite() {
            return Err(error(method, format!("bad argument #{p} (a size expected, got {n})")));
        }
        out.push(n.trunc() as i64);
        p += 1;
    }
    Ok(out)
}

/// Sizes that must all be non-negative.
pub fn usize_sizes(raw: &[i64], method: &str) -> mlua::Result<Vec<usize>> {
    raw.iter()
        .map(|&s| {
            if s < 0 {
                Err(error(method, format!("invalid size {s}")))
            } else {
                Ok(s as usize)
            }
        })
        .collect()
}
