//! The device tensors' and storages' native methods (the view methods come from
//! `torch::methods::shape`, shared with the host tensors), and the primitives that
//! `lua/cutorch/Tensor.lua` builds the maths on: its argument forms resolved, the Lua side calls
//! one of `pointwise`, `reduceAll`, `reduceDim`, `argReduceDim`, `sortLanes` (sort.rs), `gemm`, `bgemm`, `bgemmSum`, `gemv`, `ger`, `dot`
//! with every operand explicit (a nil result: make a new tensor).

use mlua::{LightUserData, Lua, MultiValue, Result, Table, Value};

use super::family::{Cuda, TYPES};
use super::lua::{lerr, with_generator};
use super::memory::{self, device_of};
use super::{blas, device, ops};
use crate::torch::args::{self, Args, arg, dim_arg, error, int_arg, number, number_arg, opt_number, type_name};
use crate::torch::construct;
use crate::torch::dtype::DType;
use crate::torch::family::Family;
use crate::torch::layout::Tensor;
use crate::torch::methods::access::{self, Target, resolve};
use crate::torch::methods::{add, none, one, random, receiver};
use crate::torch::print;
use crate::torch::storage::Storage;
use crate::torch::userdata::{storage_of, tensor_of};

/// A Lua error from an operation's message, named after `method` if it is not already.
pub(super) fn fail(method: &str, e: String) -> mlua::Error {
    if e.starts_with(method) {
        lerr(e)
    } else {
        error(method, e)
    }
}

pub(super) fn tensor_arg(a: &Args, pos: usize, method: &str) -> Result<Tensor> {
    Cuda::tensor_arg(a, pos, method)
}

/// A device tensor of type `dtype` at `pos`, or None for nil.
fn opt_tensor(a: &Args, pos: usize, dtype: DType, method: &str) -> Result<Option<Tensor>> {
    match arg(a, pos) {
        Value::Nil => Ok(None),
        v => match Cuda::tensor_of(v) {
            Some(t) if t.dtype == dtype => Ok(Some(t)),
            // Positions are the primitive's, not the caller's: the types say what was wrong.
            _ => Err(error(
                method,
                format!(
                    "expected a {} (all tensors of one type), got a {}",
                    ops::tensor_typename(dtype),
                    type_name(v)
                ),
            )),
        },
    }
}

/// The ordinal of the device of a tensor's memory (the current device for a tensor with none).
fn ordinal_of(t: &Tensor) -> usize {
    t.storage.as_ref().and_then(device_of).unwrap_or_else(device::current)
}

/// The device of a tensor's memory (the current device for a tensor with none), opened.
pub(super) fn device_of_tensor(t: &Tensor, method: &str) -> Result<std::sync::Arc<device::Device>> {
    let ordinal = ordinal_of(t);
    device::get(ordinal, method).map_err(lerr)
}

/// The result tensor at `pos` resized to `size`, or when nil (or `pos` is 0) a new one on the
/// device of the operand `on`: its value and view.
pub(super) fn result(
    lua: &Lua,
    a: &Args,
    pos: usize,
    dtype: DType,
    size: &[usize],
    on: &Tensor,
    method: &str,
) -> Result<(Value, Tensor)> {
    let given = if pos == 0 {
        None
    } else {
        opt_tensor(a, pos, dtype, method)?
    };
    match given {
        Some(mut t) => {
            let v = arg(a, pos).clone();
            if t.size != size || t.storage.is_none() {
                args::lift_in(method, construct::resize_in::<Cuda>(&mut t, size))?;
                Cuda::set_view(&v, t.clone())?;
            }
            Ok((v, t))
        }
        None => {
            let t = ops::empty_like(&*result_device(on, method)?, dtype, size).map_err(|e| fail(method, e))?;
            Ok((Cuda::push_tensor(lua, t.clone())?, t))
        }
    }
}

/// Where a new result of an operation on `on` goes: `on`'s device, where the work runs (cutorch
/// refused operands off the current device; running them where they are is kinder), or, once
/// kernels may reach other devices, the current device, which then does the work (as cutorch).
fn result_device(on: &Tensor, method: &str) -> Result<std::sync::Arc<device::Device>> {
    match super::peer::kernel_access() {
        true => device::current_device(method).map_err(lerr),
        false => device_of_tensor(on, method),
    }
}

/// A new device tensor shaped like `like` (no storage when it has no dimension), on `like`'s
/// device (`here` false) or the current one.
fn new_like(like: &Tensor, here: bool, method: &str) -> Result<Tensor> {
    if like.dim() == 0 {
        return Ok(Tensor::empty(like.dtype));
    }
    let dev = match here {
        true => device::current_device(method).map_err(lerr)?,
        false => result_device(like, method)?,
    };
    ops::empty_like(&dev, like.dtype, &like.size).map_err(|e| fail(method, e))
}

/// `pointwise(name, op, res, src, b, c, v, w)`: `res = op(src, b, c, v, w)` elementwise, res
/// resized as src (a new tensor when nil; when src is nil, res alone, as for fill).
fn pointwise(lua: &Lua, a: Args) -> Result<MultiValue> {
    let name = args_str(&a, 1)?;
    let op = args_str(&a, 2)?;
    let (src, res_given) = (Cuda::tensor_of(arg(&a, 4)), !arg(&a, 3).is_nil());
    let dtype = match (&src, Cuda::tensor_of(arg(&a, 3))) {
        (Some(s), _) => s.dtype,
        (None, Some(r)) => r.dtype,
        _ => return Err(error(&name, "bad argument (a CUDA tensor expected)")),
    };
    let b = opt_tensor(&a, 5, dtype, &name)?;
    let c = opt_tensor(&a, 6, dtype, &name)?;
    let v = opt_number(&a, 7, &name, 0.0)?;
    let w = opt_number(&a, 8, &name, 0.0)?;
    if dtype == DType::Long {
        check_integer_divisor(&op, v, b.as_ref(), c.as_ref(), &name)?;
    }
    let (rv, r) = match &src {
        Some(s) if res_given => result(lua, &a, 3, dtype, &s.size, s, &name)?,
        Some(s) => {
            let t = new_like(s, false, &name)?;
            (Cuda::push_tensor(lua, t.clone())?, t)
        }
        None => (arg(&a, 3).clone(), tensor_arg(&a, 3, &name)?),
    };
    ops::pointwise(&op, &r, src.as_ref(), b.as_ref(), c.as_ref(), v, w, &name).map_err(|e| fail(&name, e))?;
    one(rv)
}

/// Integer division by zero is an error, as on the host, raised before anything changes.
fn check_integer_divisor(op: &str, v: f64, b: Option<&Tensor>, c: Option<&Tensor>, name: &str) -> Result<()> {
    let zero = match op {
        "div_n" | "fmod_n" | "remainder_n" => v as i64 == 0,
        "cdiv" | "cfmod" | "cremainder" => b.map(|t| ops::has_zero(t, name)).transpose().map_err(lerr)? == Some(true),
        "addcdiv" => c.map(|t| ops::has_zero(t, name)).transpose().map_err(lerr)? == Some(true),
        _ => false,
    };
    if zero {
        return Err(error(name, "division by zero"));
    }
    Ok(())
}

fn args_str(a: &Args, pos: usize) -> Result<String> {
    match arg(a, pos) {
        Value::String(s) => Ok(s.to_string_lossy()),
        _ => Err(mlua::Error::runtime("internal error: operation name expected")),
    }
}

/// `reduceAll(name, op, t, p)`: a number.
fn reduce_all(_: &Lua, a: Args) -> Result<MultiValue> {
    let name = args_str(&a, 1)?;
    let op = args_str(&a, 2)?;
    let t = tensor_arg(&a, 3, &name)?;
    let p = opt_number(&a, 4, &name, 0.0)?;
    if t.numel() == 0 && matches!(op.as_str(), "max" | "min") {
        return Err(error(&name, "the tensor is empty"));
    }
    let v = ops::reduce_all(&op, &t, p, &name).map_err(|e| fail(&name, e))?;
    one(Value::Number(v))
}

/// The size of a reduction along `dim`.
fn reduced_size(t: &Tensor, dim: usize) -> Vec<usize> {
    let mut size = t.size.clone();
    size[dim] = 1;
    size
}

/// `reduceDim(name, op, res, t, dim, p)`: res (sized as t with dim of size 1).
fn reduce_dim(lua: &Lua, a: Args) -> Result<MultiValue> {
    let name = args_str(&a, 1)?;
    let op = args_str(&a, 2)?;
    let t = tensor_arg(&a, 4, &name)?;
    let dim = dim_arg(&a, 5, &t, &name)?;
    let p = opt_number(&a, 6, &name, 0.0)?;
    let (rv, r) = result(lua, &a, 3, t.dtype, &reduced_size(&t, dim), &t, &name)?;
    ops::reduce_dim(&op, &r, &t, dim, p, &name).map_err(|e| fail(&name, e))?;
    one(rv)
}

/// `argReduceDim(name, isMin, values, indices, t, dim)`: values and (1-based, CudaLongTensor)
/// indices of the max or min along dim.
fn arg_reduce_dim(lua: &Lua, a: Args) -> Result<MultiValue> {
    let name = args_str(&a, 1)?;
    let is_min = matches!(arg(&a, 2), Value::Boolean(true));
    let t = tensor_arg(&a, 5, &name)?;
    let dim = dim_arg(&a, 6, &t, &name)?;
    let size = reduced_size(&t, dim);
    let (vv, values) = result(lua, &a, 3, t.dtype, &size, &t, &name)?;
    let (iv, indices) = result(lua, &a, 4, DType::Long, &size, &t, &name)?;
    ops::arg_reduce_dim(is_min, &values, &indices, &t, dim, &name).map_err(|e| fail(&name, e))?;
    Ok(MultiValue::from_vec(vec![vv, iv]))
}

/// The two operands of a product, checked: same type, on one device, of the dimensions given.
fn operands(a: &Args, pos: usize, dims: [usize; 2], name: &str) -> Result<(Tensor, Tensor)> {
    let x = tensor_arg(a, pos, name)?;
    let y = tensor_arg(a, pos + 1, name)?;
    if y.dtype != x.dtype {
        return Err(error(
            name,
            format!(
                "arguments of different types ({} and {})",
                ops::tensor_typename(x.dtype),
                ops::tensor_typename(y.dtype)
            ),
        ));
    }
    if x.dim() != dims[0] || y.dim() != dims[1] {
        return Err(error(
            name,
            format!(
                "expected {}D and {}D tensors, got {}D and {}D",
                dims[0],
                dims[1],
                x.dim(),
                y.dim()
            ),
        ));
    }
    Ok((x, y))
}

/// The result of an added product (`addmm`, `addmv`, `addr`, and `mm`/`mv`/`ger` with no M):
/// res resized to `size`, holding M when beta is not zero.
fn added_result(lua: &Lua, a: &Args, x: &Tensor, size: &[usize], beta: f64, name: &str) -> Result<(Value, Tensor)> {
    let dtype = x.dtype;
    let m = opt_tensor(a, 4, dtype, name)?;
    if let Some(m) = &m
        && m.size != size
    {
        return Err(error(
            name,
            format!("the added tensor has size {:?}, the product {:?}", m.size, size),
        ));
    }
    let (rv, r) = result(lua, a, 2, dtype, size, x, name)?;
    if let Some(m) = m {
        let same = matches!((&m.storage, &r.storage), (Some(x), Some(y)) if x.same(y))
            && m.offset == r.offset
            && m.stride == r.stride;
        if !same && beta != 0.0 {
            ops::copy_device(&r, &m, name).map_err(|e| fail(name, e))?;
        }
    }
    Ok((rv, r))
}

/// A cuBLAS product of `blas`: (device, res, beta, alpha, x, y, name).
type Product = fn(&device::Device, &Tensor, f64, f64, &Tensor, &Tensor, &str) -> std::result::Result<(), String>;

/// One of the added products, `name(res, beta, M, alpha, x, y)`: res = beta*M + alpha*(x . y),
/// for operands of `dims` dimensions giving a result of `size(x, y)`.
fn product(
    lua: &Lua,
    a: Args,
    dims: [usize; 2],
    size: fn(&Tensor, &Tensor) -> Vec<usize>,
    run: Product,
) -> Result<MultiValue> {
    let name = args_str(&a, 1)?;
    let (x, y) = operands(&a, 6, dims, &name)?;
    let (beta, alpha) = (number_arg(&a, 3, &name)?, number_arg(&a, 5, &name)?);
    let (rv, r) = added_result(lua, &a, &x, &size(&x, &y), beta, &name)?;
    let dev = device_of_tensor(&x, &name)?;
    run(&dev, &r, beta, alpha, &x, &y, &name).map_err(|e| fail(&name, e))?;
    one(rv)
}

/// `gemm(name, res, beta, M, alpha, a, b)`: res = beta*M + alpha*(a @ b).
fn gemm(lua: &Lua, a: Args) -> Result<MultiValue> {
    product(lua, a, [2, 2], |x, y| vec![x.size[0], y.size[1]], blas::gemm)
}

/// `bgemm(name, res, beta, M, alpha, a, b)`: res[i] = beta*M[i] + alpha*(a[i] @ b[i]) (bmm,
/// baddbmm).
fn bgemm(lua: &Lua, a: Args) -> Result<MultiValue> {
    product(
        lua,
        a,
        [3, 3],
        |x, y| vec![x.size[0], x.size[1], y.size[2]],
        blas::gemm_batched,
    )
}

/// `bgemmSum(name, res, beta, M, alpha, a, b)`: res = beta*M + alpha * sum over i of a[i] @ b[i]
/// (addbmm).
fn bgemm_sum(lua: &Lua, a: Args) -> Result<MultiValue> {
    product(lua, a, [3, 3], |x, y| vec![x.size[1], y.size[2]], blas::gemm_summed)
}

/// `scanDim(name, prod, res, src, dim)`: res (nil: a new tensor) = the inclusive sums (prod
/// false) or products of src along dim (1-based).
fn scan_dim(lua: &Lua, a: Args) -> Result<MultiValue> {
    let name = args_str(&a, 1)?;
    let prod = matches!(arg(&a, 2), Value::Boolean(true));
    let src = tensor_arg(&a, 4, &name)?;
    let dim = dim_arg(&a, 5, &src, &name)?;
    let (rv, r) = result(lua, &a, 3, src.dtype, &src.size, &src, &name)?;
    ops::scan_dim(prod, &r, &src, dim, &name).map_err(|e| fail(&name, e))?;
    one(rv)
}

/// `gemv(name, res, beta, v, alpha, m, x)`: res = beta*v + alpha*(m @ x).
fn gemv(lua: &Lua, a: Args) -> Result<MultiValue> {
    product(lua, a, [2, 1], |m, _| vec![m.size[0]], blas::gemv)
}

/// `ger(name, res, beta, M, alpha, x, y)`: res = beta*M + alpha * x y^T.
fn ger(lua: &Lua, a: Args) -> Result<MultiValue> {
    product(lua, a, [1, 1], |x, y| vec![x.size[0], y.size[0]], blas::ger)
}

/// `x:dot(y)`: a number.
fn dot(_: &Lua, a: Args) -> Result<MultiValue> {
    let x = tensor_arg(&a, 1, "dot")?;
    let y = tensor_arg(&a, 2, "dot")?;
    if x.dtype != y.dtype {
        return Err(error("dot", "arguments of different types"));
    }
    let dev = device_of_tensor(&x, "dot")?;
    one(Value::Number(
        blas::dot(&dev, &x, &y, "dot").map_err(|e| fail("dot", e))?,
    ))
}

/// `dst:copy(src)` for a device destination: from a device tensor of any of the three types or
/// from any host tensor.
fn copy(_: &Lua, a: Args) -> Result<MultiValue> {
    let dst = tensor_arg(&a, 1, "copy")?;
    let src = arg(&a, 2);
    let r = if let Some(s) = Cuda::tensor_of(src) {
        ops::copy_device(&dst, &s, "copy")
    } else if let Some(s) = tensor_of(src) {
        ops::copy_from_host(&dst, &s, "copy")
    } else {
        return Err(error(
            "copy",
            format!("bad argument #2 (tensor expected, got {})", type_name(src)),
        ));
    };
    r.map_err(|e| fail("copy", e))?;
    receiver(&a)
}

/// `copyToHost(dst, src)`: a host destination's copy from a device tensor (what the host
/// classes' `copy` calls for device sources).
fn copy_to_host(_: &Lua, a: Args) -> Result<MultiValue> {
    let dst = tensor_of(arg(&a, 1)).ok_or_else(|| error("copy", "bad argument #1 (host tensor expected)"))?;
    let src = tensor_arg(&a, 2, "copy")?;
    ops::copy_to_host(&dst, &src, "copy").map_err(|e| fail("copy", e))?;
    receiver(&a)
}

fn fill_value(t: &Tensor, v: f64, method: &str) -> Result<()> {
    ops::pointwise("fill", t, None, None, None, v, 0.0, method).map_err(|e| fail(method, e))
}

/// `x:name(args...)` for a random distribution (see `torch::methods::random`): drawn on the host
/// from the generator of the tensor's device, as a host tensor would draw, then copied up.
fn random_fill(a: &Args, method: &str) -> Result<MultiValue> {
    let t = tensor_arg(a, 1, method)?;
    let ordinal = ordinal_of(&t);
    let host = args::lift_in(method, Tensor::zeros(t.dtype, &t.size))?;
    with_generator(ordinal, |g| random::fill_like_method(method, &host, g, a, 2)).map_err(lerr)??;
    if t.numel() > 0 {
        ops::copy_from_host(&t, &host, method).map_err(|e| fail(method, e))?;
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
        .map_err(lerr)?
        .into_iter()
        .map(|v| v + 1)
        .collect();
    let (rv, r) = result(lua, &a, 1, like.dtype, &[n as usize], &like, M)?;
    let values = ops::host_longs(&values, &[n as usize]).map_err(|e| fail(M, e))?;
    ops::copy_from_host(&r, &values, M).map_err(|e| fail(M, e))?;
    one(rv)
}

/// `multinomial(res, probs, n [, replacement])`: categories drawn from each row of probs by the
/// generator of its device, into res (nil: a new CudaLongTensor).
fn multinomial(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "multinomial";
    let probs = tensor_arg(&a, 2, M)?;
    let host = ops::to_host(&probs, M).map_err(|e| fail(M, e))?;
    let ordinal = ordinal_of(&probs);
    let (size, values) = with_generator(ordinal, |g| random::multinomial_draws(g, &host, &a, 3, M)).map_err(lerr)??;
    let (rv, r) = result(lua, &a, 1, DType::Long, &size, &probs, M)?;
    let draws = ops::host_longs(&values, &size).map_err(|e| fail(M, e))?;
    ops::copy_from_host(&r, &draws, M).map_err(|e| fail(M, e))?;
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
        Some(Target::Element(s, off)) => one(Value::Number(memory::read(&s, off).map_err(lerr)?)),
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
                memory::write(&s, off, x).map_err(lerr)?;
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
        ops::copy_device(&target, &s, M)
    } else if let Some(s) = tensor_of(value) {
        ops::copy_from_host(&target, &s, M)
    } else {
        return Err(error(M, "expected a number or a tensor"));
    };
    r.map_err(|e| fail(M, e))?;
    none()
}

/// The class name of a device tensor or storage value.
fn class_of(v: &Value) -> Option<&'static str> {
    if let Some(t) = Cuda::tensor_of(v) {
        return Some(ops::tensor_typename(t.dtype));
    }
    Cuda::storage_of(v).map(|s| ops::storage_typename(s.dtype()))
}

fn tostring(lua: &Lua, a: Args) -> Result<MultiValue> {
    let v = arg(&a, 1);
    let name = class_of(v).ok_or_else(|| error("tostring", "expected a CUDA tensor or storage"))?;
    let text = if let Some(t) = Cuda::tensor_of(v) {
        let host = ops::to_host(&t, "tostring").map_err(lerr)?;
        print::tensor_to_string_named(&host, name)
    } else {
        let s = Cuda::storage_of(v).expect("classified as a storage");
        print::storage_to_string_named(&memory::to_host(&s).map_err(lerr)?, name)
    };
    one(Value::String(lua.create_string(text)?))
}

/// The address of a tensor's first element or a storage's memory, for FFI (`t:data()`).
fn data_address(_: &Lua, a: Args) -> Result<MultiValue> {
    let v = arg(&a, 1);
    let addr = if let Some(t) = Cuda::tensor_of(v) {
        match &t.storage {
            Some(s) if t.numel() > 0 => memory::addr_of(s, t.offset).map_err(lerr)?,
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
    let method = ops::storage_typename(dtype);
    device::available(method).map_err(lerr)?;
    let first = arg(a, 1);
    let s = match first {
        Value::Nil => Cuda::new_storage(dtype, 0).map_err(|e| fail(method, e))?,
        _ if args::is_number(first) => {
            let n = int_arg(a, 1, method)?;
            if n < 0 {
                return Err(error(method, format!("invalid size {n}")));
            }
            Cuda::new_storage(dtype, n as usize).map_err(|e| fail(method, e))?
        }
        Value::Table(_) => {
            let host = construct::new_tensor(dtype, &Args::from_iter([first.clone()]))?;
            let host = host.storage.unwrap_or(args::lift(Storage::new(dtype, 0))?);
            memory::from_host(&host).map_err(|e| fail(method, e))?
        }
        _ => {
            let src = Cuda::storage_of(first)
                .filter(|s| s.dtype() == dtype)
                .ok_or_else(|| error(method, format!("invalid arguments ({})", type_name(first))))?;
            let offset = if arg(a, 2).is_nil() { 1 } else { int_arg(a, 2, method)? };
            let size = if arg(a, 3).is_nil() {
                src.len() as i64 - offset + 1
            } else {
                int_arg(a, 3, method)?
            };
            if offset < 1 || size < 0 || (offset - 1 + size) as usize > src.len() {
                return Err(error(method, "offset and size out of range of the source storage"));
            }
            memory::view(&src, offset as usize - 1, size as usize).map_err(|e| fail(method, e))?
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
        Cuda::resize_storage(&s, n as usize).map_err(|e| fail("resize", e))?;
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
            ops::copy_device(&whole(&s), &whole(&o), "copy")
        } else if let Some(o) = storage_of(src) {
            ops::copy_from_host(&whole(&s), &whole(&o), "copy")
        } else {
            return Err(error(
                "copy",
                format!("bad argument #2 (storage expected, got {})", type_name(src)),
            ));
        };
        r.map_err(|e| fail("copy", e))?;
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
            memory::to_host(&s).map_err(lerr)?,
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
        ops::copy_device(&c, &t, "clone").map_err(|e| fail("clone", e))?;
        one(Cuda::push_tensor(lua, c)?)
    })?;
    add(lua, tensor, "contiguous", |lua, a| {
        let t = tensor_arg(&a, 1, "contiguous")?;
        if t.is_contiguous() {
            return receiver(&a);
        }
        let c = ops::contiguous(&t, "contiguous").map_err(|e| fail("contiguous", e))?;
        one(Cuda::push_tensor(lua, c)?)
    })?;
    add(lua, tensor, "getDevice", get_device)?;
    add(lua, tensor, "dot", dot)?;
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
        tensor.raw_set(name, lua.create_function(move |_, a: Args| random_fill(&a, name))?)?;
    }
    super::gather::install(lua, tensor)?;
    add(lua, internal, "tensorIndex", tensor_index)?;
    add(lua, internal, "tensorNewIndex", tensor_newindex)?;
    add(lua, internal, "tostring", tostring)?;
    add(lua, internal, "dataAddress", data_address)?;
    add(lua, internal, "copyToHost", copy_to_host)?;
    add(lua, internal, "pointwise", pointwise)?;
    add(lua, internal, "reduceAll", reduce_all)?;
    add(lua, internal, "reduceDim", reduce_dim)?;
    add(lua, internal, "argReduceDim", arg_reduce_dim)?;
    add(lua, internal, "sortLanes", super::sort::sort_lanes)?;
    add(lua, internal, "gemm", gemm)?;
    add(lua, internal, "bgemm", bgemm)?;
    add(lua, internal, "scanDim", scan_dim)?;
    add(lua, internal, "randperm", randperm)?;
    add(lua, internal, "multinomial", multinomial)?;
    add(lua, internal, "bgemmSum", bgemm_sum)?;
    add(lua, internal, "gemv", gemv)?;
    add(lua, internal, "ger", ger)?;
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
