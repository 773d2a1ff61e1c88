//! Element access: `t[i]`, `t[{...}]`, `t[mask]` and their assignments, storage `s[i]`, and the
//! storage methods (size, resize, elementSize, totable, string).

use mlua::{Lua, MultiValue, Result, Table, Value};

use super::convention::{add, one, receiver};
use super::copy::{copy_into, fill};
use crate::args::{self, Args, arg, error, index_in, number};
use crate::error::Named;
use crate::torch::base::dtype::DType;
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::Tensor;
use crate::torch::family::Family;
use crate::torch::kernels::element::{read, write};
use crate::torch::kernels::index::{masked_copy, masked_fill, masked_select};
use crate::torch::kernels::strided::Offsets;
use crate::torch::lua_list;
use crate::torch::tensor_args::tensor_arg;
use crate::torch::userdata::{self, Host, push_tensor, tensor_of};

/// What a key selects in a tensor: one element (its storage offset) or a view.
pub enum Target {
    Element(Storage, usize),
    View(Tensor),
}

/// Resolves a number, LongStorage or table key (Torch's `__index__` rules). Geometry only: it
/// serves device tensors too.
pub fn resolve(t: &Tensor, key: &Value, method: &str) -> Result<Option<Target>> {
    if let Some(i) = number(key) {
        if t.dim() == 0 {
            return Err(error(method, "cannot index an empty tensor"));
        }
        let idx = index_in(i as i64, t.size[0], method)?;
        if t.dim() == 1 {
            // The element itself, without building a view of it first (the common inner loop).
            let s = t.storage_checked().named(method)?.clone();
            return Ok(Some(Target::Element(s, t.offset + idx * t.stride[0])));
        }
        return Ok(Some(Target::View(t.select(0, idx).named(method)?)));
    }
    if let Some(idx) = crate::torch::tensor_args::long_storage_values(key) {
        if idx.len() != t.dim() {
            return Err(error(
                method,
                format!("expected {} indices, got {}", t.dim(), idx.len()),
            ));
        }
        let mut off = t.offset;
        for (d, &i) in idx.iter().enumerate() {
            off += index_in(i, t.size[d], method)? * t.stride[d];
        }
        let s = t.storage_checked().named(method)?.clone();
        return Ok(Some(Target::Element(s, off)));
    }
    let Value::Table(keys) = key else { return Ok(None) };
    let n = keys.raw_len();
    if n > t.dim() {
        return Err(error(
            method,
            format!("too many indices ({n}) for a {}D tensor", t.dim()),
        ));
    }
    let mut v = t.clone();
    let mut d = 0; // current dimension in `v`
    let mut selected_all = true;
    for k in 1..=n {
        let entry: Value = keys.raw_get(k)?;
        match &entry {
            _ if number(&entry).is_some() => {
                let i = index_in(number(&entry).unwrap() as i64, v.size[d], method)?;
                v = if v.dim() == 1 {
                    let mut e = v.clone();
                    e.offset += i * v.stride[0];
                    e.size.clear();
                    e.stride.clear();
                    e
                } else {
                    v.select(d, i).named(method)?
                };
            }
            Value::Table(range) => {
                selected_all = false;
                let size = v.size[d] as i64;
                let resolve = |x: i64| if x < 0 { size + x + 1 } else { x };
                let (start, end) = match range.raw_len() {
                    0 => (1, size),
                    1 => {
                        let a = resolve(range.raw_get::<f64>(1)? as i64);
                        (a, a)
                    }
                    _ => (
                        resolve(range.raw_get::<f64>(1)? as i64),
                        resolve(range.raw_get::<f64>(2)? as i64),
                    ),
                };
                if start < 1 || end > size || end < start {
                    return Err(error(
                        method,
                        format!(
                            "range {{{start}, {end}}} out of bounds for dimension {} of size {size}",
                            d + 1
                        ),
                    ));
                }
                v = v
                    .narrow(d, start as usize - 1, (end - start + 1) as usize)
                    .named(method)?;
                d += 1;
            }
            other => {
                return Err(error(
                    method,
                    format!(
                        "index table entries must be numbers or tables, got {}",
                        other.type_name()
                    ),
                ));
            }
        }
    }
    if selected_all && n == t.dim() {
        let s = t.storage_checked().named(method)?.clone();
        return Ok(Some(Target::Element(s, v.offset)));
    }
    Ok(Some(Target::View(v)))
}

/// `t[k]` for a key that is not a method name.
fn tensor_index(lua: &Lua, a: Args) -> Result<MultiValue> {
    let t = tensor_arg(&a, 1, "__index")?;
    let key = arg(&a, 2);
    if let Some(mask) = tensor_of(key) {
        return one(push_tensor(lua, masked_select(&t, &mask).named("__index")?)?);
    }
    match resolve(&t, key, "__index")? {
        Some(Target::Element(s, off)) => one(Value::Number(read(&s, off))),
        Some(Target::View(v)) => one(push_tensor(lua, v)?),
        None => one(Value::Nil),
    }
}

fn tensor_newindex(_: &Lua, a: Args) -> Result<MultiValue> {
    let t = tensor_arg(&a, 1, "__newindex")?;
    let key = arg(&a, 2);
    let value = arg(&a, 3);
    if let Some(mask) = tensor_of(key) {
        if let Some(x) = number(value) {
            masked_fill(&t, &mask, x).named("__newindex")?;
        } else if let Some(src) = tensor_of(value) {
            masked_copy(&t, &mask, &src).named("__newindex")?;
        } else {
            return Err(error("__newindex", "a mask assignment takes a number or a tensor"));
        }
        return Ok(MultiValue::new());
    }
    match resolve(&t, key, "__newindex")? {
        Some(Target::Element(s, off)) => match number(value) {
            Some(x) => write(&s, off, x),
            None => {
                let src = tensor_of(value).ok_or_else(|| error("__newindex", "expected a number or a tensor"))?;
                let mut e = t.clone();
                e.offset = off;
                e.size = vec![1];
                e.stride = vec![1];
                copy_into(&e, &src, "__newindex")?;
            }
        },
        Some(Target::View(v)) => match number(value) {
            Some(x) => fill(&v, x, "__newindex")?,
            None => {
                let src = tensor_of(value).ok_or_else(|| error("__newindex", "expected a number or a tensor"))?;
                copy_into(&v, &src, "__newindex")?;
            }
        },
        None => return Err(error("__newindex", format!("invalid key of type {}", key.type_name()))),
    }
    Ok(MultiValue::new())
}

fn storage_arg(a: &Args, pos: usize, method: &str) -> Result<Storage> {
    storage_arg_in::<Host>(a, pos, method)
}

/// The storage of family `K` at `pos`.
pub fn storage_arg_in<K: Family>(a: &Args, pos: usize, method: &str) -> Result<Storage> {
    K::storage_of(arg(a, pos)).ok_or_else(|| {
        error(
            method,
            format!(
                "bad argument #{pos} (storage expected, got {})",
                args::type_name(arg(a, pos))
            ),
        )
    })
}

/// `size` and `elementSize` of the storages of family `K`.
pub fn install_storage_sizes<K: Family>(lua: &Lua, storage: &Table) -> Result<()> {
    add(lua, storage, "size", |_, a| {
        one(Value::Number(storage_arg_in::<K>(&a, 1, "size")?.len() as f64))
    })?;
    add(lua, storage, "elementSize", |_, a| {
        one(Value::Number(
            storage_arg_in::<K>(&a, 1, "elementSize")?.dtype().size_of() as f64,
        ))
    })
}

/// `s[i]` for a storage of family `K`.
pub fn storage_index<K: Family>(_: &Lua, a: Args) -> Result<MultiValue> {
    let s = storage_arg_in::<K>(&a, 1, "__index")?;
    match number(arg(&a, 2)) {
        Some(i) => {
            let idx = index_in(i as i64, s.len(), "__index")?;
            one(Value::Number(K::read(&s, idx).map_err(|e| error("__index", e))?))
        }
        None => one(Value::Nil),
    }
}

/// `s[i] = v` for a storage of family `K`.
pub fn storage_newindex<K: Family>(_: &Lua, a: Args) -> Result<MultiValue> {
    let s = storage_arg_in::<K>(&a, 1, "__newindex")?;
    let i = number(arg(&a, 2)).ok_or_else(|| error("__newindex", "storage index must be a number"))?;
    let v = number(arg(&a, 3)).ok_or_else(|| error("__newindex", "storage value must be a number"))?;
    K::write(&s, index_in(i as i64, s.len(), "__newindex")?, v).map_err(|e| error("__newindex", e))?;
    Ok(MultiValue::new())
}

/// `t:totable()`: nested Lua tables of the elements, one level per dimension (`{}` for a tensor
/// with no dimension). Read in one pass in Rust: a Lua loop over `t[i]` costs a method call per
/// element.
fn nested_table(lua: &Lua, t: &Tensor) -> Result<Table> {
    let Some(s) = t.storage.as_ref().filter(|_| t.dim() > 0 && t.numel() > 0) else {
        return lua.create_table();
    };
    fn level(lua: &Lua, s: &Storage, size: &[usize], offsets: &mut Offsets) -> Result<Table> {
        if size.len() == 1 {
            return lua_list::list(lua, size[0], offsets.by_ref().take(size[0]).map(|o| read(s, o)));
        }
        let out = lua.create_table_with_capacity(size[0], 0)?;
        for i in 1..=size[0] {
            out.raw_set(i, level(lua, s, &size[1..], offsets)?)?;
        }
        Ok(out)
    }
    level(lua, s, &t.size, &mut Offsets::new(t))
}

pub fn install(lua: &Lua, tensor: &Table, storage: &Table, functions: &Table) -> Result<()> {
    add(lua, functions, "tensorIndex", tensor_index)?;
    add(lua, functions, "tensorNewIndex", tensor_newindex)?;
    add(lua, functions, "storageIndex", storage_index::<Host>)?;
    add(lua, functions, "storageNewIndex", storage_newindex::<Host>)?;
    add(lua, tensor, "totable", |lua, a| {
        let t = tensor_arg(&a, 1, "totable")?;
        one(Value::Table(nested_table(lua, &t)?))
    })?;
    add(lua, tensor, "maskedSelect", |lua, a| {
        // x:maskedSelect(mask) or res:maskedSelect(src, mask)
        let (src, mask, into) = match (tensor_of(arg(&a, 2)), tensor_of(arg(&a, 3))) {
            (Some(src), Some(mask)) => (src, mask, true),
            (Some(mask), None) => (tensor_arg(&a, 1, "maskedSelect")?, mask, false),
            _ => return Err(error("maskedSelect", "expected (mask) or (src, mask)")),
        };
        let out = masked_select(&src, &mask).named("maskedSelect")?;
        if into {
            userdata::set_view(arg(&a, 1), out)?;
            return receiver(&a);
        }
        one(push_tensor(lua, out)?)
    })?;
    add(lua, tensor, "maskedFill", |_, a| {
        let t = tensor_arg(&a, 1, "maskedFill")?;
        let mask = tensor_arg(&a, 2, "maskedFill")?;
        masked_fill(&t, &mask, args::number_arg(&a, 3, "maskedFill")?).named("maskedFill")?;
        receiver(&a)
    })?;
    add(lua, tensor, "maskedCopy", |_, a| {
        let t = tensor_arg(&a, 1, "maskedCopy")?;
        let mask = tensor_arg(&a, 2, "maskedCopy")?;
        let src = tensor_arg(&a, 3, "maskedCopy")?;
        masked_copy(&t, &mask, &src).named("maskedCopy")?;
        receiver(&a)
    })?;

    install_storage_sizes::<Host>(lua, storage)?;
    add(lua, storage, "resize", |_, a| {
        let s = storage_arg(&a, 1, "resize")?;
        let n = args::int_arg(&a, 2, "resize")?;
        if n < 0 {
            return Err(error("resize", format!("invalid size {n}")));
        }
        s.resize(n as usize).map_err(|e| error("resize", e))?;
        receiver(&a)
    })?;
    add(lua, storage, "totable", |lua, a| {
        let s = storage_arg(&a, 1, "totable")?;
        one(Value::Table(lua_list::list(
            lua,
            s.len(),
            (0..s.len()).map(|i| read(&s, i)),
        )?))
    })?;
    add(lua, storage, "string", |lua, a| {
        let s = storage_arg(&a, 1, "string")?;
        if !matches!(s.dtype(), DType::Byte | DType::Char) {
            return Err(error("string", "only for ByteStorage and CharStorage"));
        }
        match arg(&a, 2) {
            Value::String(text) => {
                let bytes = text.as_bytes();
                s.resize(bytes.len()).map_err(|e| error("string", e))?;
                // SAFETY: resized to exactly the string's length.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), s.data_ptr(), bytes.len()) };
                receiver(&a)
            }
            // SAFETY: read-only copy.
            _ => one(Value::String(lua.create_string(unsafe { s.bytes() })?)),
        }
    })?;
    Ok(())
}
