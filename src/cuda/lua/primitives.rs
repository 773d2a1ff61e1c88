//! The primitives that `lua/cutorch/Tensor.lua` builds the device maths on (Lua glue): its argument
//! forms resolved, the Lua side calls one of `pointwise`, `reduceAll`, `reduceDim`, `argReduceDim`,
//! `scanDim`, `gemm`, `bgemm`, `bgemmSum`, `gemv`, `ger` with every operand explicit (a nil
//! result: make a new tensor) and the Lua function's name first.

use mlua::{Lua, MultiValue, Result, Table, Value};

use super::args::{device_of_tensor, new_like, op_name, opt_tensor, result, result_given, tensor_arg};
use crate::args::{Args, arg, error, number_arg, opt_number};
use crate::calls;
use crate::cuda::device::Device;
use crate::cuda::family::Cuda;
use crate::cuda::ops::operands::tensor_typename;
use crate::cuda::ops::{blas, copy, elementwise, reduce};
use crate::error::Named;
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::family::Family;
use crate::torch::methods::one;
use crate::torch::tensor_args::dim_arg;

/// `pointwise(name, op, res, src, b, c, v, w)`: `res = op(src, b, c, v, w)` elementwise, res
/// resized as src (a new tensor when nil; when src is nil, res alone, as for fill).
fn pointwise(lua: &Lua, a: Args) -> Result<MultiValue> {
    let name = op_name(&a, 1)?;
    let op = op_name(&a, 2)?;
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
    elementwise::pointwise(&op, &r, src.as_ref(), b.as_ref(), c.as_ref(), v, w).named(&name)?;
    one(rv)
}

/// Integer division by zero is an error, as on the host, raised before anything changes.
pub(super) fn check_integer_divisor(
    op: &str,
    v: f64,
    b: Option<&Tensor>,
    c: Option<&Tensor>,
    name: &str,
) -> Result<()> {
    let zero = match op {
        "div_n" | "fmod_n" | "remainder_n" => v as i64 == 0,
        "cdiv" | "cfmod" | "cremainder" => b.map(reduce::has_zero).transpose().named(name)? == Some(true),
        "addcdiv" => c.map(reduce::has_zero).transpose().named(name)? == Some(true),
        _ => false,
    };
    if zero {
        return Err(error(name, "division by zero"));
    }
    Ok(())
}

/// `reduceAll(name, op, t, p)`: a number.
fn reduce_all(_: &Lua, a: Args) -> Result<MultiValue> {
    let name = op_name(&a, 1)?;
    let op = op_name(&a, 2)?;
    let t = tensor_arg(&a, 3, &name)?;
    let p = opt_number(&a, 4, &name, 0.0)?;
    if t.numel() == 0 && matches!(op.as_str(), "max" | "min") {
        return Err(error(&name, "the tensor is empty"));
    }
    let v = reduce::reduce_all(&op, &t, p).named(&name)?;
    one(Value::Number(v))
}

/// The size of a reduction along `dim`.
pub(super) fn reduced_size(t: &Tensor, dim: usize) -> Vec<usize> {
    let mut size = t.size.clone();
    size[dim] = 1;
    size
}

/// `reduceDim(name, op, res, t, dim, p)`: res (sized as t with dim of size 1).
fn reduce_dim(lua: &Lua, a: Args) -> Result<MultiValue> {
    let name = op_name(&a, 1)?;
    let op = op_name(&a, 2)?;
    let t = tensor_arg(&a, 4, &name)?;
    let dim = dim_arg(&a, 5, &t, &name)?;
    let p = opt_number(&a, 6, &name, 0.0)?;
    let (rv, r) = result(lua, &a, 3, t.dtype, &reduced_size(&t, dim), &t, &name)?;
    reduce::reduce_dim(&op, &r, &t, dim, p).named(&name)?;
    one(rv)
}

/// `argReduceDim(name, isMin, values, indices, t, dim)`: values and (1-based, CudaLongTensor)
/// indices of the max or min along dim.
fn arg_reduce_dim(lua: &Lua, a: Args) -> Result<MultiValue> {
    let name = op_name(&a, 1)?;
    let is_min = matches!(arg(&a, 2), Value::Boolean(true));
    let t = tensor_arg(&a, 5, &name)?;
    let dim = dim_arg(&a, 6, &t, &name)?;
    let size = reduced_size(&t, dim);
    let (vv, values) = result(lua, &a, 3, t.dtype, &size, &t, &name)?;
    let (iv, indices) = result(lua, &a, 4, DType::Long, &size, &t, &name)?;
    reduce::arg_reduce_dim(is_min, &values, &indices, &t, dim).named(&name)?;
    Ok(MultiValue::from_vec(vec![vv, iv]))
}

/// The two operands of a product, checked: same type, of the dimensions given.
pub(super) fn check_operands(x: &Tensor, y: &Tensor, dims: [usize; 2], name: &str) -> Result<()> {
    if y.dtype != x.dtype {
        return Err(error(
            name,
            format!(
                "arguments of different types ({} and {})",
                tensor_typename(x.dtype),
                tensor_typename(y.dtype)
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
    Ok(())
}

/// The result of a product: res (None: a new tensor) resized to `size`, holding M when beta is
/// not zero (M None: nothing added).
fn added_result(
    lua: &Lua,
    res: Option<&(Value, Tensor)>,
    m: Option<&Tensor>,
    x: &Tensor,
    size: &[usize],
    beta: f64,
    name: &str,
) -> Result<(Value, Tensor)> {
    if let Some(m) = m {
        if m.dtype != x.dtype {
            return Err(error(
                name,
                format!(
                    "the added tensor is a {}, the operands {}",
                    tensor_typename(m.dtype),
                    tensor_typename(x.dtype)
                ),
            ));
        }
        if m.size != size {
            return Err(error(
                name,
                format!("the added tensor has size {:?}, the product {:?}", m.size, size),
            ));
        }
    }
    let (rv, r) = result_given(lua, res, x.dtype, size, x, name)?;
    if let Some(m) = m {
        let same = matches!((&m.storage, &r.storage), (Some(x), Some(y)) if x.same(y))
            && m.offset == r.offset
            && m.stride == r.stride;
        if !same && beta != 0.0 {
            copy::on_device(&r, m).named(name)?;
        }
    }
    Ok((rv, r))
}

/// A cuBLAS product of `blas`: (device, res, beta, alpha, x, y).
type Run = fn(&Device, &Tensor, f64, f64, &Tensor, &Tensor) -> crate::error::Result<()>;

/// A product's shape: the operands' dimensions, the result's size, and the cuBLAS call.
pub(super) struct Product {
    dims: [usize; 2],
    size: fn(&Tensor, &Tensor) -> Vec<usize>,
    run: Run,
}

pub(super) const GEMM: Product = Product {
    dims: [2, 2],
    size: |x, y| vec![x.size[0], y.size[1]],
    run: blas::gemm,
};
pub(super) const GEMV: Product = Product {
    dims: [2, 1],
    size: |m, _| vec![m.size[0]],
    run: blas::gemv,
};
pub(super) const GER: Product = Product {
    dims: [1, 1],
    size: |x, y| vec![x.size[0], y.size[0]],
    run: blas::ger,
};
/// res[i] = beta*M[i] + alpha*(a[i] @ b[i]) (bmm, baddbmm).
pub(super) const BGEMM: Product = Product {
    dims: [3, 3],
    size: |x, y| vec![x.size[0], x.size[1], y.size[2]],
    run: blas::gemm_batched,
};
/// res = beta*M + alpha * sum over i of a[i] @ b[i] (addbmm).
pub(super) const BGEMM_SUM: Product = Product {
    dims: [3, 3],
    size: |x, y| vec![x.size[1], y.size[2]],
    run: blas::gemm_summed,
};

/// res = beta*M + alpha*(x . y), res a new tensor when None, nothing added when M is None.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_product(
    lua: &Lua,
    p: &Product,
    res: Option<&(Value, Tensor)>,
    beta: f64,
    m: Option<&Tensor>,
    alpha: f64,
    x: &Tensor,
    y: &Tensor,
    name: &str,
) -> Result<MultiValue> {
    check_operands(x, y, p.dims, name)?;
    let (rv, r) = added_result(lua, res, m, x, &(p.size)(x, y), beta, name)?;
    let dev = device_of_tensor(x, name)?;
    (p.run)(&dev, &r, beta, alpha, x, y).named(name)?;
    one(rv)
}

/// One of the added products, `name(res, beta, M, alpha, x, y)` with every operand explicit.
fn product(lua: &Lua, a: Args, p: &Product) -> Result<MultiValue> {
    let name = op_name(&a, 1)?;
    let (x, y) = (tensor_arg(&a, 6, &name)?, tensor_arg(&a, 7, &name)?);
    let (beta, alpha) = (number_arg(&a, 3, &name)?, number_arg(&a, 5, &name)?);
    let res = opt_tensor(&a, 2, x.dtype, &name)?.map(|t| (arg(&a, 2).clone(), t));
    let m = opt_tensor(&a, 4, x.dtype, &name)?;
    run_product(lua, p, res.as_ref(), beta, m.as_ref(), alpha, &x, &y, &name)
}

/// `gemm(name, res, beta, M, alpha, a, b)`: res = beta*M + alpha*(a @ b).
fn gemm(lua: &Lua, a: Args) -> Result<MultiValue> {
    product(lua, a, &GEMM)
}

/// `bgemm(name, res, beta, M, alpha, a, b)`: res[i] = beta*M[i] + alpha*(a[i] @ b[i]) (bmm,
/// baddbmm).
fn bgemm(lua: &Lua, a: Args) -> Result<MultiValue> {
    product(lua, a, &BGEMM)
}

/// `bgemmSum(name, res, beta, M, alpha, a, b)`: res = beta*M + alpha * sum over i of a[i] @ b[i]
/// (addbmm).
fn bgemm_sum(lua: &Lua, a: Args) -> Result<MultiValue> {
    product(lua, a, &BGEMM_SUM)
}

/// `scanDim(name, prod, res, src, dim)`: res (nil: a new tensor) = the inclusive sums (prod
/// false) or products of src along dim (1-based).
fn scan_dim(lua: &Lua, a: Args) -> Result<MultiValue> {
    let name = op_name(&a, 1)?;
    let prod = matches!(arg(&a, 2), Value::Boolean(true));
    let src = tensor_arg(&a, 4, &name)?;
    let dim = dim_arg(&a, 5, &src, &name)?;
    let (rv, r) = result(lua, &a, 3, src.dtype, &src.size, &src, &name)?;
    reduce::scan_dim(prod, &r, &src, dim).named(&name)?;
    one(rv)
}

/// `gemv(name, res, beta, v, alpha, m, x)`: res = beta*v + alpha*(m @ x).
fn gemv(lua: &Lua, a: Args) -> Result<MultiValue> {
    product(lua, a, &GEMV)
}

/// `ger(name, res, beta, M, alpha, x, y)`: res = beta*M + alpha * x y^T.
fn ger(lua: &Lua, a: Args) -> Result<MultiValue> {
    product(lua, a, &GER)
}

/// Sets the primitives in `libcutorch`'s table `m`.
pub fn install(lua: &Lua, m: &Table) -> Result<()> {
    calls::add(lua, m, "pointwise", pointwise)?;
    calls::add(lua, m, "reduceAll", reduce_all)?;
    calls::add(lua, m, "reduceDim", reduce_dim)?;
    calls::add(lua, m, "argReduceDim", arg_reduce_dim)?;
    calls::add(lua, m, "gemm", gemm)?;
    calls::add(lua, m, "bgemm", bgemm)?;
    calls::add(lua, m, "scanDim", scan_dim)?;
    calls::add(lua, m, "bgemmSum", bgemm_sum)?;
    calls::add(lua, m, "gemv", gemv)?;
    calls::add(lua, m, "ger", ger)
}
