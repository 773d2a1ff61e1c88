//! The device tensors' and storages' native methods (Lua glue; the view methods come from
//! `torch::methods::shape`, shared with the host tensors; index, gather and scatter are in
//! `gather`, sorting in `sort`): copies, fills, random draws, element access, printing, FFI
//! addresses, and the storages' constructor and methods.

use mlua::{LightUserData, Lua, MultiValue, Result, Table, Value};

use super::args::{new_like, ordinal_of, result, tensor_arg};
use crate::args::{self, Args, arg, error, int_arg, number, number_arg, type_name};
use crate::cuda::device;
use crate::cuda::family::{Cuda, TYPES};
use crate::cuda::generators::with_generator;
use crate::cuda::memory::{self, device_of};
use crate::cuda::ops::operands::{host_longs, storage_typename, tensor_typename};
use crate::cuda::ops::{copy, elementwise};
use crate::error::Named;
use crate::torch::base::dtype::DType;
use crate::torch::base::print;
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::Tensor;
use crate::torch::construct;
use crate::torch::family::Family;
use crate::torch::forms::bind::invalid;
use crate::torch::methods::access::{self, Target, resolve};
use crate::torch::methods::{add, none, one, random, receiver};
use crate::torch::userdata::{storage_of, tensor_of};

/// `dst:copy(src)` for a device destination: from a device tensor of any of the three types or
/// from any host tensor.
fn copy(_: &Lua, a: Args) -> Result<MultiValue> {
    let dst = tensor_arg(&a, 1, "copy")?;
    let src = arg(&a, 2);
    let r = if let Some(s) = Cuda::tensor_of(src) {
        copy::on_device(&dst, &s)
    } else if let Some(s) = tensor_of(src) {
        copy::from_host(&dst, &s)
    } else {
        return Err(error(
            "copy",
            format!("bad argument #2 (tensor expected, got {})", type_name(src)),
        ));
    };
    r.named("copy")?;
    receiver(&a)
}

/// `copyToHost(dst, src)`: a host destination's copy from a device tensor (what the host
/// classes' `copy` calls for device sources).
fn copy_to_host(_: &Lua, a: Args) -> Result<MultiValue> {
    let dst = tensor_of(arg(&a, 1)).ok_or_else(|| error("copy", "bad argument #1 (host tensor expected)"))?;
    let src = tensor_arg(&a, 2, "copy")?;
    copy::into_host(&dst, &src).named("copy")?;
    receiver(&a)
}

fn fill_value(t: &Tensor, v: f64, method: &str) -> Result<()> {
    elementwise::pointwise("fill", t, None, None, None, v, 0.0).named(method)
}

/// `x:name(args...)` for a random distribution (see `torch::methods::random`): drawn on the host
/// from the generator of the tensor's device, as a host tensor would draw, then copied up.
fn random_fill(a: &Args, method: &str) -> Result<MultiValue> {
    let t = tensor_arg(a, 1, method)?;
    let ordinal = ordinal_of(&t);
    let host = Tensor::zeros(t.dtype, &t.size).named(method)?;
    with_generator(ordinal, |g| random::fill_like_method(method, &host, g, a, 2)).named(method)??;
    if t.numel() > 0 {
        copy::from_host(&t, &host).named(method)?;
    }
    receiver(a)
}

/// `randperm(res, n)`: res resized to n and filled with 1..n shuffled by the generator of its
/// device.
fn randperm(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "randperm";
    let n = int_arg(&a, 2, M)?;
    if n <= 0 {
        return Err(error(M, "n must be strictly positive"));
    }
    let like = tensor_arg(&a, 1, M)?;
    let ordinal = ordinal_of(&like);
    let values: Vec<i64> = with_generator(ordinal, |g| g.randperm(n as usize))
        .named(M)?
        .into_iter()
        .map(|v| v + 1)
        .collect();
    let (rv, r) = result(lua, &a, 1, like.dtype, &[n as usize], &like, M)?;
    let values = host_longs(&values, &[n as usize]).named(M)?;
    copy::from_host(&r, &values).named(M)?;
    one(rv)
}

/// `multinomial(res, probs, n [, replacement])`: categories drawn from each row of probs by the
/// generator of its device, into res (nil: a new CudaLongTensor).
fn multinomial(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "multinomial";
    let probs = tensor_arg(&a, 2, M)?;
    let host = copy::to_host(&probs).named(M)?;
    let ordinal = ordinal_of(&probs);
    let (size, values) = with_generator(ordinal, |g| random::multinomial_draws(g, &host, &a, 3, M)).named(M)??;
    let (rv, r) = result(lua, &a, 1, DType::Long, &size, &probs, M)?;
    let draws = host_longs(&values, &size).named(M)?;
    copy::from_host(&r, &draws).named(M)?;
    one(rv)
}

/// `t[k]`: an element (a number) or a view, as for host tensors; masks are not supported.
fn tensor_index(lua: &Lua, a: Args) -> Result<MultiValue> {
    let t = tensor_arg(&a, 1, "__index")?;
    let key = arg(&a, 2);
    if tensor_of(key).is_some() || Cuda::tensor_of(key).is_some() {
        return Err(error(
            "__index",
            "indexing a CUDA tensor with a tensor (mask) is not supported",
        ));
    }
    match resolve(&t, key, "__index")? {
        Some(Target::Element(s, off)) => one(Value::Number(memory::read(&s, off).named("__index")?)),
        Some(Target::View(v)) => one(Cuda::push_tensor(lua, v)?),
        None => one(Value::Nil),
    }
}

/// `t[k] = v` for a number or a tensor (host or device).
fn tensor_newindex(_: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "__newindex";
    let t = tensor_arg(&a, 1, M)?;
    let key = arg(&a, 2);
    let value = arg(&a, 3);
    if tensor_of(key).is_some() || Cuda::tensor_of(key).is_some() {
        return Err(error(M, "indexing a CUDA tensor with a tensor (mask) is not supported"));
    }
    let target = match resolve(&t, key, M)? {
        Some(Target::Element(s, off)) => {
            if let Some(x) = number(value) {
                memory::write(&s, off, x).named(M)?;
                return none();
            }
            let mut e = t.clone();
            e.offset = off;
            e.size = vec![1];
            e.stride = vec![1];
            e
        }
        Some(Target::View(v)) => v,
        None => return Err(error(M, format!("invalid key of type {}", key.type_name()))),
    };
    let r = if let Some(x) = number(value) {
        return fill_value(&target, x, M).map(|_| MultiValue::new());
    } else if let Some(s) = Cuda::tensor_of(value) {
        copy::on_device(&target, &s)
    } else if let Some(s) = tensor_of(value) {
        copy::from_host(&target, &s)
    } else {
        return Err(error(M, "expected a number or a tensor"));
    };
    r.named(M)?;
    none()
}

/// The class name of a device tensor or storage value.
fn class_of(v: &Value) -> Option<&'static str> {
    if let Some(t) = Cuda::tensor_of(v) {
        return Some(tensor_typename(t.dtype));
    }
    Cuda::storage_of(v).map(|s| storage_typename(s.dtype()))
}

fn tostring(lua: &Lua, a: Args) -> Result<MultiValue> {
    let v = arg(&a, 1);
    let name = class_of(v).ok_or_else(|| error("tostring", "expected a CUDA tensor or storage"))?;
    let text = if let Some(t) = Cuda::tensor_of(v) {
        let host = copy::to_host(&t).named("tostring")?;
        print::tensor_to_string_named(&host, name)
    } else {
        let s = Cuda::storage_of(v).expect("classified as a storage");
        print::storage_to_string_named(&memory::download(&s).named("tostring")?, name)
    };
    one(Value::String(lua.create_string(text)?))
}

/// The address of a tensor's first element or a storage's memory, for FFI (`t:data()`).
fn data_address(_: &Lua, a: Args) -> Result<MultiValue> {
    let v = arg(&a, 1);
    let addr = if let Some(t) = Cuda::tensor_of(v) {
        match &t.storage {
            Some(s) if t.numel() > 0 => memory::address(s, t.offset).named("data")?,
            _ => 0,
        }
    } else if let Some(s) = Cuda::storage_of(v) {
        s.device_addr().unwrap_or(0)
    } else {
        return Err(error("data", "expected a CUDA tensor or storage"));
    };
    one(Value::LightUserData(LightUserData(
        addr as usize as *mut std::ffi::c_void,
    )))
}

/// The 1-based device of a tensor or storage.
fn get_device(_: &Lua, a: Args) -> Result<MultiValue> {
    let v = arg(&a, 1);
    let s = match (Cuda::tensor_of(v), Cuda::storage_of(v)) {
        (Some(t), _) => t.storage,
        (None, Some(s)) => Some(s),
        _ => return Err(error("getDevice", "expected a CUDA tensor or storage")),
    };
    let d = s.as_ref().and_then(device_of).unwrap_or_else(device::current);
    one(Value::Number((d + 1) as f64))
}

/// `torch.Cuda*Storage(...)`: `()`, `(n)`, `(table)`, `(storage [, offset [, size]])` (a view).
pub fn new_storage(lua: &Lua, dtype: DType, a: &Args) -> Result<Value> {
    let method = storage_typename(dtype);
    device::usable().named(method)?;
    let first = arg(a, 1);
    let s = match first {
        Value::Nil => Cuda::new_storage(dtype, 0).map_err(|e| error(method, e))?,
        _ if args::is_number(first) => {
            let n = int_arg(a, 1, method)?;
            if n < 0 {
                return Err(error(method, format!("invalid size {n}")));
            }
            Cuda::new_storage(dtype, n as usize).map_err(|e| error(method, e))?
        }
        Value::Table(_) => {
            let host = construct::new_tensor(dtype, &Args::from_iter([first.clone()]))?;
            let host = host.storage.unwrap_or(args::lift(Storage::new(dtype, 0))?);
            memory::upload(&host).named(method)?
        }
        _ => {
            let Some(src) = Cuda::storage_of(first).filter(|s| s.dtype() == dtype) else {
                // The host constructor's error, in the forms a device storage has.
                let st = method.strip_prefix("torch.").unwrap_or(method);
                let forms = format!("no arguments | number | table | {st} [number] [number]");
                return Err(invalid::<Cuda>(method, a, &forms));
            };
            let offset = if arg(a, 2).is_nil() { 1 } else { int_arg(a, 2, method)? };
            let size = if arg(a, 3).is_nil() {
                src.len() as i64 - offset + 1
            } else {
                int_arg(a, 3, method)?
            };
            if offset < 1 || size < 0 || (offset - 1 + size) as usize > src.len() {
                return Err(error(method, "offset and size out of range of the source storage"));
            }
            memory::view(&src, offset as usize - 1, size as usize).named(method)?
        }
    };
    Cuda::push_storage(lua, s)
}

fn storage_arg(a: &Args, pos: usize, method: &str) -> Result<Storage> {
    Cuda::storage_of(arg(a, pos)).ok_or_else(|| {
        error(
            method,
            format!(
                "bad argument #{pos} (CUDA storage expected, got {})",
                type_name(arg(a, pos))
            ),
        )
    })
}

/// A storage as a 1-D tensor view (for copies and fills).
fn whole(s: &Storage) -> Tensor {
    Tensor::of_storage(s.clone())
}

fn install_storage_methods(lua: &Lua, storage: &Table, internal: &Table) -> Result<()> {
    access::install_storage_sizes::<Cuda>(lua, storage)?;
    add(lua, storage, "resize", |_, a| {
        let s = storage_arg(&a, 1, "resize")?;
        let n = int_arg(&a, 2, "resize")?;
        if n < 0 {
            return Err(error("resize", format!("invalid size {n}")));
        }
        // Its errors are named "resize" already (see `family`).
        Cuda::resize_storage(&s, n as usize).named("resize")?;
        receiver(&a)
    })?;
    add(lua, storage, "fill", |_, a| {
        let s = storage_arg(&a, 1, "fill")?;
        fill_value(&whole(&s), number_arg(&a, 2, "fill")?, "fill")?;
        receiver(&a)
    })?;
    add(lua, storage, "copy", |_, a| {
        let s = storage_arg(&a, 1, "copy")?;
        let src = arg(&a, 2);
        let r = if let Some(o) = Cuda::storage_of(src) {
            copy::on_device(&whole(&s), &whole(&o))
        } else if let Some(o) = storage_of(src) {
            copy::from_host(&whole(&s), &whole(&o))
        } else {
            return Err(error(
                "copy",
                format!("bad argument #2 (storage expected, got {})", type_name(src)),
            ));
        };
        r.named("copy")?;
        receiver(&a)
    })?;
    add(lua, storage, "getDevice", get_device)?;
    add(lua, internal, "storageIndex", access::storage_index::<Cuda>)?;
    add(lua, internal, "storageNewIndex", access::storage_newindex::<Cuda>)?;
    // A host copy of a storage (what `storage:totable()` and printing use).
    add(lua, internal, "storageToHost", |lua, a| {
        let s = storage_arg(&a, 1, "totable")?;
        one(crate::torch::userdata::push_storage(
            lua,
            memory::download(&s).named("totable")?,
        )?)
    })
}

/// Fills the method tables of the device classes and the internal functions of `libcutorch`.
pub fn install(lua: &Lua, tensor: &Table, storage: &Table, internal: &Table) -> Result<()> {
    add(lua, tensor, "copy", copy)?;
    add(lua, tensor, "fill", |_, a| {
        let t = tensor_arg(&a, 1, "fill")?;
        fill_value(&t, number_arg(&a, 2, "fill")?, "fill")?;
        receiver(&a)
    })?;
    add(lua, tensor, "zero", |_, a| {
        let t = tensor_arg(&a, 1, "zero")?;
        fill_value(&t, 0.0, "zero")?;
        receiver(&a)
    })?;
    add(lua, tensor, "clone", |lua, a| {
        let t = tensor_arg(&a, 1, "clone")?;
        // On the current device, as cutorch's clone: the documented way to move a tensor.
        let c = new_like(&t, true, "clone")?;
        copy::on_device(&c, &t).named("clone")?;
        one(Cuda::push_tensor(lua, c)?)
    })?;
    add(lua, tensor, "contiguous", |lua, a| {
        let t = tensor_arg(&a, 1, "contiguous")?;
        if t.is_contiguous() {
            return receiver(&a);
        }
        let c = copy::contiguous(&t).named("contiguous")?;
        one(Cuda::push_tensor(lua, c)?)
    })?;
    add(lua, tensor, "getDevice", get_device)?;
    for name in [
        "uniform",
        "normal",
        "bernoulli",
        "cauchy",
        "logNormal",
        "exponential",
        "geometric",
        "random",
    ] {
        // calls: captures the distribution's name.
        tensor.raw_set(name, lua.create_function(move |_, a: Args| random_fill(&a, name))?)?;
    }
    add(lua, internal, "tensorIndex", tensor_index)?;
    add(lua, internal, "tensorNewIndex", tensor_newindex)?;
    add(lua, internal, "tostring", tostring)?;
    add(lua, internal, "dataAddress", data_address)?;
    add(lua, internal, "copyToHost", copy_to_host)?;
    add(lua, internal, "randperm", randperm)?;
    add(lua, internal, "multinomial", multinomial)?;
    // (kind, element type) of a device tensor or storage; nil otherwise.
    add(lua, internal, "classify", |lua, a| {
        let v = arg(&a, 1);
        let (kind, d) = match (Cuda::tensor_of(v), Cuda::storage_of(v)) {
            (Some(t), _) => ("tensor", t.dtype),
            (None, Some(s)) => ("storage", s.dtype()),
            _ => return none(),
        };
        debug_assert!(TYPES.contains(&d));
        Ok(MultiValue::from_vec(vec![
            Value::String(lua.create_string(kind)?),
            Value::String(lua.create_string(d.name())?),
        ]))
    })?;
    install_storage_methods(lua, storage, internal)
}
