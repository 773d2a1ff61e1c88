//! Constructors: `torch.FloatTensor(...)` in every form Torch accepts, and the storage ones, plus
//! `resize` and `set`, which share the same geometry rules.

use mlua::{Lua, Result, Table, Value};

use super::base::dtype::{DType, Element};
use super::base::storage::Storage;
use super::base::tensor::{Tensor, checked_numel, contiguous_strides};
use super::family::Family;
use super::userdata::{Host, push_storage, push_tensor, storage_of};
use crate::args::{self, Args, arg, error, int_arg, is_number, number};
use crate::dispatch;
use crate::error::Named;
use crate::torch::forms::bind::invalid;
use crate::torch::tensor_args::long_storage_values;

/// Torch's rule for size lists (THTensor_resizeNd): the dimensions end at the first size of 0, so
/// `torch.Tensor(0)` has no dimension and `torch.Tensor(2, 0)` is 1-D.
pub fn torch_dims(size: &[usize]) -> &[usize] {
    &size[..size.iter().position(|&s| s == 0).unwrap_or(size.len())]
}

/// A zero-filled tensor of family `K` of `size` (after `torch_dims`); no storage when it has no
/// dimension.
fn new_zeros<K: Family>(dtype: DType, size: &[usize]) -> Result<Tensor> {
    let size = torch_dims(size);
    if size.is_empty() {
        return Ok(Tensor::empty(dtype));
    }
    let method = K::tensor_typename(dtype);
    let n = checked_numel(size).named(method)?;
    Ok(Tensor {
        dtype,
        storage: Some(K::new_storage(dtype, n).map_err(|e| error(method, e))?),
        offset: 0,
        size: size.to_vec(),
        stride: contiguous_strides(size),
    })
}

/// THTensor_resizeNd: same sizes keep the strides; otherwise the tensor becomes contiguous, and the
/// storage grows (never shrinks) to hold it. A tensor with no storage gets one.
pub fn resize(t: &mut Tensor, size: &[usize]) -> crate::error::Result<()> {
    resize_in::<Host>(t, size)
}

/// `resize` for a tensor of family `K`.
pub fn resize_in<K: Family>(t: &mut Tensor, size: &[usize]) -> crate::error::Result<()> {
    let size = torch_dims(size);
    if t.size == size && t.storage.is_some() {
        return Ok(());
    }
    let n = checked_numel(size)?;
    t.size = size.to_vec();
    t.stride = contiguous_strides(size);
    let needed = if size.is_empty() { 0 } else { t.offset + n };
    match &t.storage {
        // A tensor with no dimension needs no memory (Torch gives it no storage).
        None if size.is_empty() => {}
        Some(s) if s.len() >= needed => {}
        Some(s) => K::resize_storage(s, needed)?,
        None => t.storage = Some(K::new_storage(t.dtype, needed)?),
    }
    Ok(())
}

/// The geometry of a `set`/constructor call given a storage: `(offset, sizes, strides)` from the
/// Lua arguments starting at `pos` (offset 1-based).
fn storage_view(storage: Storage, args: &Args, pos: usize, method: &str) -> Result<Tensor> {
    let dtype = storage.dtype();
    let len = storage.len();
    let offset = match arg(args, pos) {
        Value::Nil => 1,
        _ => int_arg(args, pos, method)?,
    };
    if offset < 1 || (offset as usize > len.max(1)) {
        return Err(error(
            method,
            format!("storage offset {offset} out of range for a storage of size {len}"),
        ));
    }
    let offset = offset as usize - 1;
    // Sizes, and strides where given (Torch computes a missing or negative stride as
    // contiguous, dimension by dimension).
    let (size, stride): (Vec<usize>, Vec<Option<i64>>) = if let Some(sz) = long_storage_values(arg(args, pos + 1)) {
        let size = crate::torch::tensor_args::usize_sizes(&sz, method)?;
        let stride = match long_storage_values(arg(args, pos + 2)) {
            Some(st) if st.len() != size.len() => {
                return Err(error(method, "sizes and strides have different lengths"));
            }
            Some(st) => st.into_iter().map(Some).collect(),
            None => vec![None; size.len()],
        };
        (size, stride)
    } else if is_number(arg(args, pos + 1)) {
        // size1, stride1, size2, stride2, ...
        let mut size = Vec::new();
        let mut stride = Vec::new();
        let mut p = pos + 1;
        while is_number(arg(args, p)) {
            size.push(int_arg(args, p, method)?);
            stride.push(if is_number(arg(args, p + 1)) {
                Some(int_arg(args, p + 1, method)?)
            } else {
                None
            });
            p += 2;
        }
        (crate::torch::tensor_args::usize_sizes(&size, method)?, stride)
    } else if matches!(arg(args, pos), Value::Nil) {
        // The whole storage, as 1-D.
        (if len == 0 { vec![] } else { vec![len] }, vec![None])
    } else {
        // An offset without sizes gives a tensor with no dimension, as in Torch.
        (vec![], vec![])
    };
    let size = torch_dims(&size).to_vec();
    let mut strides = vec![0usize; size.len()];
    for d in (0..size.len()).rev() {
        strides[d] = match stride[d] {
            Some(st) if st >= 0 => st as usize,
            _ if d + 1 == size.len() => 1,
            _ => size[d + 1] * strides[d + 1],
        };
    }
    let stride = strides;
    let t = Tensor {
        dtype,
        storage: Some(storage),
        offset,
        size,
        stride,
    };
    if t.numel() > 0 && t.extent() > len {
        return Err(error(method, "the view extends past the end of the storage"));
    }
    Ok(t)
}

/// Nested Lua tables -> (sizes, values in row-major order).
fn table_data(t: &Table, method: &str) -> Result<(Vec<usize>, Vec<f64>)> {
    let mut size = Vec::new();
    let mut cursor = t.clone();
    loop {
        let n = cursor.raw_len();
        size.push(n);
        match cursor.raw_get::<Value>(1)? {
            Value::Table(inner) if n > 0 => cursor = inner,
            _ => break,
        }
    }
    let mut values = Vec::with_capacity(checked_numel(&size).named(method)?);
    fn walk(t: &Table, size: &[usize], values: &mut Vec<f64>, method: &str) -> Result<()> {
        if t.raw_len() != size[0] {
            return Err(error(method, "inconsistent table sizes"));
        }
        // The innermost lists of numbers in one pass; element by element only to say what is
        // wrong with one.
        if size.len() == 1 && super::lua_list::numbers(t, 1, size[0], values)? {
            return Ok(());
        }
        for i in 1..=size[0] {
            let v: Value = t.raw_get(i)?;
            if size.len() == 1 {
                let x = number(&v).ok_or_else(|| {
                    error(
                        method,
                        format!("table element is a {}, expected a number", v.type_name()),
                    )
                })?;
                values.push(x);
            } else {
                match v {
                    Value::Table(inner) => walk(&inner, &size[1..], values, method)?,
                    _ => return Err(error(method, "inconsistent table sizes")),
                }
            }
        }
        Ok(())
    }
    walk(t, &size, &mut values, method)?;
    if size == [0] {
        size.clear();
    }
    Ok((size, values))
}

fn tensor_from_values<T: Element>(size: &[usize], values: &[f64]) -> crate::error::Result<Tensor> {
    let t = Tensor::zeros(T::DTYPE, size)?;
    if let Some(s) = &t.storage {
        // SAFETY: fresh contiguous storage of exactly `values.len()` elements.
        let data = unsafe { s.as_mut_slice::<T>() };
        for (d, v) in data.iter_mut().zip(values) {
            *d = T::from_f64(*v);
        }
    }
    Ok(t)
}

/// `torch.<T>Tensor(...)`.
pub fn new_tensor(dtype: DType, args: &Args) -> Result<Tensor> {
    new_tensor_in::<Host>(dtype, args)
}

/// The constructor of the tensors of family `K` (a size list is a host LongStorage for every
/// family, as in cutorch).
pub fn new_tensor_in<K: Family>(dtype: DType, args: &Args) -> Result<Tensor> {
    let method = K::tensor_typename(dtype);
    let first = arg(args, 1);
    match first {
        Value::Nil => Ok(Tensor::empty(dtype)),
        Value::Table(t) => {
            let (size, values) = table_data(t, method)?;
            let host = args::lift(dispatch!(dtype, T => tensor_from_values::<T>(&size, &values)))?;
            K::from_host(host).named(method)
        }
        _ if is_number(first) => {
            let size = crate::torch::tensor_args::usize_sizes(
                &crate::torch::tensor_args::sizes_arg(args, 1, method)?,
                method,
            )?;
            new_zeros::<K>(dtype, &size)
        }
        _ => {
            if let Some(t) = K::tensor_of(first) {
                if t.dtype != dtype {
                    return Err(error(
                        method,
                        format!("expected a {method} to share, got a {}", K::tensor_typename(t.dtype)),
                    ));
                }
                return Ok(t);
            }
            let own_storage = K::storage_of(first);
            // A host LongStorage given to a host tensor of another type is a size list.
            let is_size_list = |s: &Storage| s.dtype() == DType::Long && dtype != DType::Long;
            if let Some(s) = own_storage.filter(|s| !is_size_list(s)) {
                if s.dtype() != dtype {
                    return Err(error(
                        method,
                        format!(
                            "expected a {}, got a {}",
                            K::storage_typename(dtype),
                            K::storage_typename(s.dtype())
                        ),
                    ));
                }
                return storage_view(s, args, 2, method);
            }
            if let Some(size) = long_storage_values(first) {
                let size = crate::torch::tensor_args::usize_sizes(&size, method)?;
                let mut t = new_zeros::<K>(dtype, &size)?;
                if let Some(st) = long_storage_values(arg(args, 2)) {
                    let stride = crate::torch::tensor_args::usize_sizes(&st, method)?;
                    if stride.len() != size.len() {
                        return Err(error(method, "sizes and strides have different lengths"));
                    }
                    if t.dim() == 0 {
                        return Ok(t);
                    }
                    t.stride = stride[..t.dim()].to_vec();
                    let needed = t.extent();
                    args::lift(K::resize_storage(
                        t.storage.as_ref().expect("zeros has storage"),
                        needed,
                    ))?;
                }
                return Ok(t);
            }
            let short = |name: &'static str| name.strip_prefix("torch.").unwrap_or(name);
            let (t, st) = (short(K::tensor_typename(dtype)), short(K::storage_typename(dtype)));
            Err(invalid::<K>(
                method,
                args,
                &format!(
                    "no arguments | number [number] [number] [number] | LongStorage [LongStorage] | {t} | {st} [number] [LongStorage] [LongStorage] | table"
                ),
            ))
        }
    }
}

/// `tensor:set(...)`: `()` empties, `(tensor)` takes its view, `(storage, ...)` as the constructor.
pub fn set_view_in<K: Family>(dtype: DType, args: &Args, method: &str) -> Result<Tensor> {
    let first = arg(args, 2);
    if matches!(first, Value::Nil) {
        return Ok(Tensor::empty(dtype));
    }
    if let Some(t) = K::tensor_of(first) {
        if t.dtype != dtype {
            return Err(error(method, "source tensor has a different type"));
        }
        return Ok(t);
    }
    match K::storage_of(first) {
        Some(s) if s.dtype() == dtype => storage_view(s, args, 3, method),
        _ => Err(error(
            method,
            format!(
                "expected a tensor or a {}, got {}",
                K::storage_typename(dtype),
                args::type_name(first)
            ),
        )),
    }
}

/// `torch.<T>Storage(...)`: `()`, `(n)`, `(table)`, `(storage [, offset [, size]])` (a view; here
/// sharing its memory), and `(filename [, shared [, size [, sharedMem]]])` (a mapped file or
/// shared-memory object, see `mapped`).
pub fn new_storage(lua: &Lua, dtype: DType, args: &Args) -> Result<Value> {
    let method = dtype.storage_typename();
    let first = arg(args, 1);
    let storage = match first {
        Value::Nil => args::lift(Storage::new(dtype, 0))?,
        Value::Table(t) => {
            let mut values = Vec::new();
            for v in t.sequence_values::<Value>() {
                let v = v?;
                values.push(number(&v).ok_or_else(|| error(method, "table must hold numbers"))?);
            }
            let t = args::lift(dispatch!(dtype, T => tensor_from_values::<T>(&[values.len()], &values)))?;
            t.storage.unwrap_or(args::lift(Storage::new(dtype, 0))?)
        }
        _ if is_number(first) => {
            let n = int_arg(args, 1, method)?;
            if n < 0 {
                return Err(error(method, format!("invalid size {n}")));
            }
            Storage::new(dtype, n as usize).map_err(|e| error(method, e))?
        }
        Value::String(path) => {
            let flag = |pos: usize| matches!(arg(args, pos), Value::Boolean(true));
            let size = match arg(args, 3) {
                Value::Nil => None,
                _ => match int_arg(args, 3, method)? {
                    0 => None,
                    n if n < 0 => return Err(error(method, format!("invalid size {n}"))),
                    n => Some(n as usize),
                },
            };
            let request = super::base::mapped::Request {
                path: &path.to_str()?,
                shared: flag(2),
                size,
                shared_mem: flag(4),
            };
            super::base::mapped::map(dtype, &request).map_err(|e| error(method, e))?
        }
        _ => {
            let Some(src) = storage_of(first) else {
                let st = &method["torch.".len()..];
                return Err(invalid::<Host>(
                    method,
                    args,
                    &format!("no arguments | number | table | {st} [number] [number] | string [boolean] [number]"),
                ));
            };
            if src.dtype() != dtype {
                return Err(error(method, "source storage has a different type"));
            }
            let offset = match arg(args, 2) {
                Value::Nil => 1,
                _ => int_arg(args, 2, method)?,
            };
            let size = match arg(args, 3) {
                Value::Nil => src.len() as i64 - offset + 1,
                _ => int_arg(args, 3, method)?,
            };
            if offset < 1 || size < 0 || (offset - 1 + size) as usize > src.len() {
                return Err(error(method, "offset and size out of range of the source storage"));
            }
            let es = dtype.size_of();
            // SAFETY: the range is inside `src`, which the new storage keeps alive. As in Torch,
            // resizing `src` afterwards invalidates the view.
            unsafe {
                Storage::from_external(
                    dtype,
                    src.data_ptr().add((offset as usize - 1) * es),
                    size as usize,
                    Box::new(src.clone()),
                )
            }
        }
    };
    push_storage(lua, storage)
}

pub fn push(lua: &Lua, t: Tensor) -> Result<Value> {
    push_tensor(lua, t)
}
