//! Shape queries and views: size, dim, stride, storage, narrow, select, sub, transpose, t, unfold,
//! expand, view, squeeze, permute, resize, resizeAs, set. Views never copy. Written once for every
//! tensor family (host tensors here, device tensors in `crate::cuda`).

use mlua::{Lua, MultiValue, Result, Table, Value};

use super::convention::{add, none, one, receiver};
use crate::args::{self, Args, arg, error, int_arg, is_number};
use crate::error::Named;
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::Tensor;
use crate::torch::construct;
use crate::torch::family::Family;
use crate::torch::tensor_args::{dim_arg, long_storage_values};
use crate::torch::userdata::push_storage;

/// A new LongStorage holding `values`.
pub fn long_storage(lua: &Lua, values: &[usize]) -> Result<Value> {
    let v: Vec<i64> = values.iter().map(|&x| x as i64).collect();
    push_storage(lua, args::lift(Storage::from_slice(&v))?)
}

fn new_view<K: Family>(lua: &Lua, t: Result<Tensor>) -> Result<MultiValue> {
    one(K::push_tensor(lua, t?)?)
}

/// Sizes for view/expand/resize from the arguments at `pos` (numbers, a LongStorage or a table).
fn sizes_at(a: &Args, pos: usize, method: &str) -> Result<Vec<i64>> {
    crate::torch::tensor_args::sizes_arg(a, pos, method)
}

fn view_of(src: &Tensor, raw: &[i64], method: &str) -> Result<Tensor> {
    let sizes: Vec<Option<usize>> = raw
        .iter()
        .map(|&s| match s {
            -1 => Ok(None),
            s if s >= 0 => Ok(Some(s as usize)),
            s => Err(error(method, format!("invalid size {s}"))),
        })
        .collect::<Result<_>>()?;
    src.view(&sizes).named(method)
}

/// `x:view(sizes)` or `res:view(src, sizes)` (the result form sets res).
fn view<K: Family>(lua: &Lua, a: Args) -> Result<MultiValue> {
    let first = K::tensor_arg(&a, 1, "view")?;
    if let Some(src) = K::tensor_of(arg(&a, 2)) {
        let v = view_of(&src, &sizes_at(&a, 3, "view")?, "view")?;
        K::set_view(arg(&a, 1), v)?;
        return receiver(&a);
    }
    new_view::<K>(lua, view_of(&first, &sizes_at(&a, 2, "view")?, "view"))
}

fn expand_to(src: &Tensor, raw: &[i64], method: &str) -> Result<Tensor> {
    let size = crate::torch::tensor_args::usize_sizes(raw, method)?;
    src.expand(&size).named(method)
}

fn expand<K: Family>(lua: &Lua, a: Args) -> Result<MultiValue> {
    let first = K::tensor_arg(&a, 1, "expand")?;
    if let Some(src) = K::tensor_of(arg(&a, 2)) {
        let v = expand_to(&src, &sizes_at(&a, 3, "expand")?, "expand")?;
        K::set_view(arg(&a, 1), v)?;
        return receiver(&a);
    }
    new_view::<K>(lua, expand_to(&first, &sizes_at(&a, 2, "expand")?, "expand"))
}

/// `x:sub(d1s, d1e [, d2s, d2e ...])`: inclusive 1-based ranges, negative from the end.
fn sub<K: Family>(lua: &Lua, a: Args) -> Result<MultiValue> {
    let mut t = K::tensor_arg(&a, 1, "sub")?;
    let mut pos = 2;
    let mut d = 0;
    while is_number(arg(&a, pos)) {
        if d >= t.dim() {
            return Err(error("sub", "too many ranges for the tensor's dimensions"));
        }
        let n = t.size[d] as i64;
        let resolve = |v: i64| if v < 0 { n + v + 1 } else { v };
        let start = resolve(int_arg(&a, pos, "sub")?);
        let end = resolve(int_arg(&a, pos + 1, "sub")?);
        if start < 1 || end > n || end < start {
            return Err(error(
                "sub",
                format!(
                    "range {start} to {end} out of bounds for dimension {} of size {n}",
                    d + 1
                ),
            ));
        }
        t = t
            .narrow(d, start as usize - 1, (end - start + 1) as usize)
            .named("sub")?;
        pos += 2;
        d += 1;
    }
    new_view::<K>(lua, Ok(t))
}

fn squeeze<K: Family>(lua: &Lua, a: Args) -> Result<MultiValue> {
    // As Torch7's cwrap: x:squeeze([dim]) returns a new view and leaves x alone (its result
    // argument defaults to a new tensor); res:squeeze(src [, dim]) sets res.
    let (src, dim_pos, into_receiver) = match K::tensor_of(arg(&a, 2)) {
        Some(src) => (src, 3, true),
        None => (K::tensor_arg(&a, 1, "squeeze")?, 2, false),
    };
    let dim = match arg(&a, dim_pos) {
        Value::Nil => None,
        _ => Some(dim_arg(&a, dim_pos, &src, "squeeze")?),
    };
    let v = src.squeeze(dim).named("squeeze")?;
    // A result of one element in one dimension comes back as a number (a given result tensor
    // is set all the same), unless a dimension was named of a tensor of several.
    let number = v.dim() == 1 && v.size[0] == 1 && (dim.is_none() || src.dim() == 1);
    let value = match (number, &v.storage) {
        (true, Some(s)) => Some(K::read(s, v.offset).map_err(|e| error("squeeze", e))?),
        _ => None,
    };
    if let Some(x) = value {
        if into_receiver {
            K::set_view(arg(&a, 1), v)?;
        }
        return one(Value::Number(x));
    }
    if into_receiver {
        K::set_view(arg(&a, 1), v)?;
        receiver(&a)
    } else {
        new_view::<K>(lua, Ok(v))
    }
}

fn resize<K: Family>(_: &Lua, a: Args) -> Result<MultiValue> {
    let mut t = K::tensor_arg(&a, 1, "resize")?;
    let size = crate::torch::tensor_args::usize_sizes(&sizes_at(&a, 2, "resize")?, "resize")?;
    construct::resize_in::<K>(&mut t, &size).named("resize")?;
    K::set_view(arg(&a, 1), t)?;
    receiver(&a)
}

/// The shape methods of the tensors of family `K`.
pub fn install<K: Family>(lua: &Lua, m: &Table) -> Result<()> {
    add(lua, m, "size", |lua, a| {
        let t = K::tensor_arg(&a, 1, "size")?;
        match arg(&a, 2) {
            Value::Nil => one(long_storage(lua, &t.size)?),
            _ => one(Value::Number(t.size[dim_arg(&a, 2, &t, "size")?] as f64)),
        }
    })?;
    add(lua, m, "stride", |lua, a| {
        let t = K::tensor_arg(&a, 1, "stride")?;
        match arg(&a, 2) {
            Value::Nil => one(long_storage(lua, &t.stride)?),
            _ => one(Value::Number(t.stride[dim_arg(&a, 2, &t, "stride")?] as f64)),
        }
    })?;
    for name in ["dim", "nDimension"] {
        add(lua, m, name, |_, a| {
            one(Value::Number(K::tensor_arg(&a, 1, "dim")?.dim() as f64))
        })?;
    }
    for name in ["nElement", "numel"] {
        add(lua, m, name, |_, a| {
            one(Value::Number(K::tensor_arg(&a, 1, "nElement")?.numel() as f64))
        })?;
    }
    add(lua, m, "storage", |lua, a| {
        match K::tensor_arg(&a, 1, "storage")?.storage {
            Some(s) => one(K::push_storage(lua, s)?),
            None => none(),
        }
    })?;
    add(lua, m, "storageOffset", |_, a| {
        one(Value::Number(
            (K::tensor_arg(&a, 1, "storageOffset")?.offset + 1) as f64,
        ))
    })?;
    add(lua, m, "isContiguous", |_, a| {
        one(Value::Boolean(K::tensor_arg(&a, 1, "isContiguous")?.is_contiguous()))
    })?;
    add(lua, m, "isSameSizeAs", |_, a| {
        let (x, y) = (
            K::tensor_arg(&a, 1, "isSameSizeAs")?,
            K::tensor_arg(&a, 2, "isSameSizeAs")?,
        );
        one(Value::Boolean(x.same_size(&y)))
    })?;
    add(lua, m, "elementSize", |_, a| {
        one(Value::Number(
            K::tensor_arg(&a, 1, "elementSize")?.dtype.size_of() as f64
        ))
    })?;
    // Whether two tensors are the same view of the same memory (a tensor without storage is set
    // to nothing).
    add(lua, m, "isSetTo", |_, a| {
        let (x, y) = (K::tensor_arg(&a, 1, "isSetTo")?, K::tensor_arg(&a, 2, "isSetTo")?);
        let same_storage = matches!((&x.storage, &y.storage), (Some(p), Some(q)) if p.same(q));
        one(Value::Boolean(
            same_storage && x.offset == y.offset && x.size == y.size && x.stride == y.stride,
        ))
    })?;
    add(lua, m, "isSize", |_, a| {
        let t = K::tensor_arg(&a, 1, "isSize")?;
        let sizes = long_storage_values(arg(&a, 2)).ok_or_else(|| error("isSize", "expected a LongStorage"))?;
        one(Value::Boolean(t.size.iter().map(|&s| s as i64).eq(sizes)))
    })?;
    add(lua, m, "narrow", |lua, a| {
        let t = K::tensor_arg(&a, 1, "narrow")?;
        let d = dim_arg(&a, 2, &t, "narrow")?;
        let start = int_arg(&a, 3, "narrow")?;
        let len = int_arg(&a, 4, "narrow")?;
        if start < 1 || len < 0 {
            return Err(error("narrow", format!("out of range (index {start}, size {len})")));
        }
        new_view::<K>(lua, t.narrow(d, start as usize - 1, len as usize).named("narrow"))
    })?;
    add(lua, m, "select", |lua, a| {
        let t = K::tensor_arg(&a, 1, "select")?;
        // As in Torch, selecting in a 1-D tensor gives the element itself, whichever dimension
        // is named (Torch7's own tests select along dimension 2 of a row).
        if t.dim() == 1 {
            int_arg(&a, 2, "select")?;
            let i = args::index_in(int_arg(&a, 3, "select")?, t.size[0], "select")?;
            let s = t.storage_checked().named("select")?;
            return one(Value::Number(
                K::read(s, t.offset + i * t.stride[0]).map_err(|e| error("select", e))?,
            ));
        }
        let d = dim_arg(&a, 2, &t, "select")?;
        let i = args::index_in(int_arg(&a, 3, "select")?, t.size[d], "select")?;
        new_view::<K>(lua, t.select(d, i).named("select"))
    })?;
    add(lua, m, "sub", sub::<K>)?;
    add(lua, m, "transpose", |lua, a| {
        let t = K::tensor_arg(&a, 1, "transpose")?;
        let d1 = dim_arg(&a, 2, &t, "transpose")?;
        let d2 = dim_arg(&a, 3, &t, "transpose")?;
        new_view::<K>(lua, t.transpose(d1, d2).named("transpose"))
    })?;
    add(lua, m, "t", |lua, a| {
        let t = K::tensor_arg(&a, 1, "t")?;
        if t.dim() != 2 {
            return Err(error("t", format!("t() expects a 2D tensor, got {}D", t.dim())));
        }
        new_view::<K>(lua, t.transpose(0, 1).named("t"))
    })?;
    add(lua, m, "unfold", |lua, a| {
        let t = K::tensor_arg(&a, 1, "unfold")?;
        let d = dim_arg(&a, 2, &t, "unfold")?;
        let size = int_arg(&a, 3, "unfold")?;
        let step = int_arg(&a, 4, "unfold")?;
        if size < 0 || step < 1 {
            return Err(error("unfold", "size must be >= 0 and step >= 1"));
        }
        new_view::<K>(lua, t.unfold(d, size as usize, step as usize).named("unfold"))
    })?;
    add(lua, m, "permute", |lua, a| {
        let t = K::tensor_arg(&a, 1, "permute")?;
        let dims: Vec<usize> = (2..=a.len())
            .map(|p| dim_arg(&a, p, &t, "permute"))
            .collect::<Result<_>>()?;
        new_view::<K>(lua, t.permute(&dims).named("permute"))
    })?;
    add(lua, m, "unsqueeze", |lua, a| {
        let t = K::tensor_arg(&a, 1, "unsqueeze")?;
        let d = int_arg(&a, 2, "unsqueeze")?;
        if d < 1 || d as usize > t.dim() + 1 {
            return Err(error("unsqueeze", format!("dimension {d} out of range")));
        }
        new_view::<K>(lua, t.unsqueeze(d as usize - 1).named("unsqueeze"))
    })?;
    add(lua, m, "view", view::<K>)?;
    add(lua, m, "expand", expand::<K>)?;
    add(lua, m, "squeeze", squeeze::<K>)?;
    add(lua, m, "resize", resize::<K>)?;
    add(lua, m, "resizeAs", |_, a| {
        let mut t = K::tensor_arg(&a, 1, "resizeAs")?;
        let other = K::tensor_arg(&a, 2, "resizeAs")?;
        construct::resize_in::<K>(&mut t, &other.size).named("resizeAs")?;
        K::set_view(arg(&a, 1), t)?;
        receiver(&a)
    })?;
    add(lua, m, "set", |_, a| {
        let t = K::tensor_arg(&a, 1, "set")?;
        let v = construct::set_view_in::<K>(t.dtype, &a, "set")?;
        K::set_view(arg(&a, 1), v)?;
        receiver(&a)
    })?;
    Ok(())
}
