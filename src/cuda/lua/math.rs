//! The device tensors' maths in the host's argument forms: every op of `torch::forms::table` whose
//! computation the device carries out (the elementwise ops and comparisons, the matrix products
//! and dot, the reductions, scans and sorts) becomes a method and a `torch.*` function of the device
//! family, bound by the same `forms::bind` (over `Cuda`) and run by device operations with every
//! operand explicit. The op list is the table's; what each computation is on the device (a
//! pointwise operation, a reduction, a cuBLAS call), and which it has none for, is here, once
//! (`op_of`).

use mlua::{Lua, MultiValue, Result, Table, Value};
use smallvec::SmallVec;

use super::args::{device_of_tensor, new_like, result_given};
use super::primitives::{BGEMM, BGEMM_SUM, GEMM, GEMV, GER, Product, check_integer_divisor, reduced_size, run_product};
use super::sort::results;
use crate::args::{self, Args, error, integer};
use crate::cuda::family::Cuda;
use crate::cuda::kernels::source::pointwise_op;
use crate::cuda::ops::{blas, elementwise, reduce};
use crate::error::Named;
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::family::Family;
use crate::torch::forms::bind::{Bound, Dest, Mode, bind};
use crate::torch::forms::computes::{Computes, Reduction};
use crate::torch::forms::table::{Entry, entries, find};
use crate::torch::kernels::linalg::Product as Shape;
use crate::torch::kernels::math::{Binary, Compare};
use crate::torch::methods::one;

/// A device elementwise operation and its operands beside the source: `y`, `z`, `v`, `w` of the
/// kernels' expressions (`cuda::kernels::source::operations`).
struct Pointwise<'a> {
    op: &'static str,
    y: Option<&'a Tensor>,
    z: Option<&'a Tensor>,
    v: f64,
    w: f64,
}

impl<'a> Pointwise<'a> {
    fn of(op: &'static str) -> Self {
        Pointwise {
            op,
            y: None,
            z: None,
            v: 0.0,
            w: 0.0,
        }
    }
}

/// The device operation of `op` with a tensor operand.
fn with_tensor(op: Binary) -> &'static str {
    match op {
        Binary::Add | Binary::Sub => "add",
        Binary::Mul => "cmul",
        Binary::Div => "cdiv",
        Binary::Pow => "cpow",
        Binary::Fmod => "cfmod",
        Binary::Remainder => "cremainder",
        Binary::Max => "cmax",
        Binary::Min => "cmin",
        Binary::Lshift => "clshift",
        Binary::Rshift => "crshift",
        Binary::BitAnd => "cbitand",
        Binary::BitOr => "cbitor",
        Binary::BitXor => "cbitxor",
    }
}

/// The device operation of `op` with a number.
fn with_value(op: Binary) -> &'static str {
    match op {
        Binary::Add | Binary::Sub => "add_n",
        Binary::Mul => "mul_n",
        Binary::Div => "div_n",
        Binary::Pow => "pow_n",
        Binary::Fmod => "fmod_n",
        Binary::Remainder => "remainder_n",
        Binary::Max => "max_n",
        Binary::Min => "min_n",
        Binary::Lshift => "lshift_n",
        Binary::Rshift => "rshift_n",
        Binary::BitAnd => "bitand_n",
        Binary::BitOr => "bitor_n",
        Binary::BitXor => "bitxor_n",
    }
}

fn compare(c: Compare, with_tensor: bool) -> &'static str {
    let (t, n) = match c {
        Compare::Lt => ("lt", "lt_n"),
        Compare::Le => ("le", "le_n"),
        Compare::Gt => ("gt", "gt_n"),
        Compare::Ge => ("ge", "ge_n"),
        Compare::Eq => ("eq", "eq_n"),
        Compare::Ne => ("ne", "ne_n"),
    };
    if with_tensor { t } else { n }
}

/// What the bound form `computes` is on the device.
fn pointwise_of<'a>(e: &Entry, computes: Computes, b: &'a Bound) -> Pointwise<'a> {
    let v = b.values();
    let n = |i: usize| v.get(i).copied().unwrap_or(0.0);
    let (y, z) = (b.tensor(0), b.tensor(1));

    match computes {
        Computes::Unary(_) => Pointwise::of(e.name),
        Computes::WithValue(op) => Pointwise {
            v: if op == Binary::Sub { -n(0) } else { n(0) },
            ..Pointwise::of(with_value(op))
        },
        Computes::WithTensor(op) => Pointwise {
            y,
            v: 1.0,
            ..Pointwise::of(with_tensor(op))
        },
        Computes::AddScaled { subtract } => Pointwise {
            y,
            v: if subtract { -n(0) } else { n(0) },
            ..Pointwise::of("add")
        },
        Computes::Pow => Pointwise {
            v: n(0),
            ..Pointwise::of("pow_n")
        },
        Computes::ValuePow => Pointwise {
            v: n(0),
            ..Pointwise::of("tpow_n")
        },
        Computes::Atan2 => Pointwise {
            y,
            ..Pointwise::of("atan2")
        },
        Computes::Lerp => Pointwise {
            y,
            v: n(0),
            ..Pointwise::of("lerp")
        },
        Computes::Clamp => Pointwise {
            v: n(0),
            w: n(1),
            ..Pointwise::of("clamp")
        },
        Computes::AddProduct { divide } => Pointwise {
            y,
            z,
            v: n(0),
            ..Pointwise::of(if divide { "addcdiv" } else { "addcmul" })
        },
        Computes::Compare(c) => Pointwise {
            y,
            v: n(0),
            ..Pointwise::of(compare(c, y.is_some()))
        },
        c => unreachable!("{}: {c:?} is not elementwise", e.name),
    }
}

/// An elementwise op or a comparison: `x:f(...)` in place, `res:f(src, ...)` into res,
/// `torch.f([res,] src, ...)`. A comparison's result has the source's type (there is no device
/// ByteTensor; cutorch's comparisons did the same).
fn elementwise(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let name = e.name;
    let b = bind::<Cuda>(&a, mode, e)?;
    let src = b.source().expect("every elementwise form has a source");
    let p = pointwise_of(e, b.computes(), &b);
    if src.dtype == DType::Long {
        check_integer_divisor(p.op, p.v, p.y, p.z, name)?;
    }
    let res = b.result();
    let dtype = res.map_or(src.dtype, |(_, t)| t.dtype);
    let (rv, r) = match res {
        Some(given) => result_given(lua, Some(given), dtype, &src.size, src, name)?,
        None => {
            let t = new_like(src, false, name)?;
            (Cuda::push_tensor(lua, t.clone())?, t)
        }
    };
    elementwise::pointwise(p.op, &r, Some(src), p.y, p.z, p.v, p.w).named(name)?;
    one(rv)
}

// ---------------------------------------------------------------------------------------------
// Reductions.

fn dim_of(v: f64, x: &Tensor, name: &str) -> Result<usize> {
    args::check_dim(integer(v, name, "dimension")?, x.dim(), name)
}

fn number(v: f64) -> Result<MultiValue> {
    one(Value::Number(v))
}

/// The device reduction of the p-norm.
fn norm_op(p: f64) -> &'static str {
    match p {
        0.0 => "norm0",
        1.0 => "norm1",
        2.0 => "norm2",
        p if p == f64::INFINITY => "norminf",
        _ => "normp",
    }
}

/// The device reduction of `r` (`p`: the norm's), where the device has one: var and std are
/// built in lua/cutorch/Tensor.lua on sum and mean.
fn reduce_op(r: Reduction, p: f64) -> Option<&'static str> {
    Some(match r {
        Reduction::Sum => "sum",
        Reduction::Prod => "prod",
        Reduction::Mean => "mean",
        Reduction::Max => "max",
        Reduction::Min => "min",
        Reduction::Norm => norm_op(p),
        Reduction::Var | Reduction::Std => return None,
    })
}

/// A reduction along the dimension of a bound call into its result: `op` with `p`.
fn along(lua: &Lua, b: &Bound, x: &Tensor, op: &str, dim: usize, p: f64, name: &str) -> Result<MultiValue> {
    let (rv, r) = result_given(lua, b.result(), x.dtype, &reduced_size(x, dim), x, name)?;
    reduce::reduce_dim(op, &r, x, dim, p).named(name)?;
    one(rv)
}

/// sum, prod, mean, max, min, norm: of every element (a number) or along a dimension; cumsum,
/// cumprod: a scan along a dimension.
fn reduction(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let name = e.name;
    let b = bind::<Cuda>(&a, mode, e)?;
    let x = b.source().expect("every reduction form has a source");
    // The norm's p comes first, and its dimension after.
    let (p, at) = match b.computes() {
        Computes::Whole(Reduction::Norm) | Computes::Along(Reduction::Norm) => {
            (b.number(0).expect("p or its default"), 1)
        }
        _ => (0.0, 0),
    };
    let op = |r| reduce_op(r, p).expect("installed for the reductions it has");
    match b.computes() {
        Computes::Whole(r) => {
            if x.numel() == 0 && matches!(r, Reduction::Max | Reduction::Min) {
                return Err(error(name, "the tensor is empty"));
            }
            number(reduce::reduce_all(op(r), x, p).named(name)?)
        }
        Computes::Along(r @ (Reduction::Max | Reduction::Min)) => {
            let dim = dim_of(b.number(0).expect("a dimension"), x, name)?;
            let size = reduced_size(x, dim);
            let (v, i) = results(&b, x, name)?;
            let (vv, values) = result_given(lua, v, x.dtype, &size, x, name)?;
            let (iv, indices) = result_given(lua, i, DType::Long, &size, x, name)?;
            reduce::arg_reduce_dim(r == Reduction::Min, &values, &indices, x, dim).named(name)?;
            Ok(MultiValue::from_vec(vec![vv, iv]))
        }
        Computes::Along(r) => {
            let dim = dim_of(b.number(at).expect("a dimension"), x, name)?;
            along(lua, &b, x, op(r), dim, p, name)
        }
        Computes::Scan { product } => {
            let dim = dim_of(b.number(0).unwrap_or(1.0), x, name)?;
            let (rv, r) = result_given(lua, b.result(), x.dtype, &x.size, x, name)?;
            reduce::scan_dim(product, &r, x, dim).named(name)?;
            one(rv)
        }
        c => unreachable!("{name}: {c:?} is not a device reduction"),
    }
}

// ---------------------------------------------------------------------------------------------
// Products (cuBLAS).

/// The cuBLAS call of a product's shape.
fn cublas(shape: Shape) -> &'static Product {
    match shape {
        Shape::Mm => &GEMM,
        Shape::Mv => &GEMV,
        Shape::Ger => &GER,
        Shape::Bmm => &BGEMM,
        Shape::AddBmm => &BGEMM_SUM,
    }
}

/// mm, mv, ger, bmm: `res:f(x, y)`, `torch.f([res,] x, y)`; the added products as on the host:
/// `torch.addmm([res,] [beta,] M, [alpha,] x, y)`, `res:addmm([M,] [alpha,] x, y)` and
/// `res:addmm(beta, [M,] alpha, x, y)`, M being res when left out.
fn product(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let name = e.name;
    let b = bind::<Cuda>(&a, mode, e)?;
    let Computes::Product { shape, adds } = b.computes() else {
        unreachable!("{name}: not a product")
    };
    let p = cublas(shape);
    let res = b.result();
    let ts: SmallVec<[&Tensor; 3]> = b.tensors().collect();
    let (x, y) = (ts[ts.len() - 2], ts[ts.len() - 1]);
    if !adds {
        return run_product(lua, p, res, 0.0, None, 1.0, x, y, name);
    }
    let m = match (ts.len(), res) {
        (3, _) => ts[0],
        (_, Some((_, r))) => r,
        _ => unreachable!("a form without M has a result"),
    };
    // beta only together with alpha; both default to 1.
    let (beta, alpha) = match b.values()[..] {
        [beta, alpha] => (beta, alpha),
        [alpha] => (1.0, alpha),
        _ => (1.0, 1.0),
    };
    run_product(lua, p, res, beta, Some(m), alpha, x, y, name)
}

/// `x:dot(y)`, `torch.dot(x, y)`: a number.
fn dot(_: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let name = e.name;
    let b = bind::<Cuda>(&a, mode, e)?;
    let (x, y) = (b.source().expect("x"), b.tensor(0).expect("y"));
    if x.dtype != y.dtype {
        return Err(error(name, "arguments of different types"));
    }
    let dev = device_of_tensor(x, name)?;
    one(Value::Number(blas::dot(&dev, x, y).named(name)?))
}

// ---------------------------------------------------------------------------------------------
// The table's ops on the device.

/// A device op: the Lua call, how it was called, and its entry in the table.
type Op = fn(&Lua, Args, Mode, &'static Entry) -> Result<MultiValue>;

/// The device function that carries out what a form computes, where the device has one.
fn op_of(c: Computes) -> Option<Op> {
    let native: Op = match c {
        // cutorch has no bitwise ops, and neither has the device family.
        Computes::WithValue(op) if pointwise_op(with_value(op)).is_none() => return None,
        Computes::WithTensor(op) if pointwise_op(with_tensor(op)).is_none() => return None,
        // (The norm has a device reduction whatever its p.)
        Computes::Whole(r) | Computes::Along(r) => {
            reduce_op(r, 2.0)?;
            reduction
        }
        Computes::Scan { .. } => reduction,
        Computes::Order(_) => super::sort::order,
        Computes::Product { .. } => product,
        Computes::Dot => dot,
        // Built in lua/cutorch/Tensor.lua on the ops here.
        Computes::Equal
        | Computes::EqualNumbers
        | Computes::Dist
        | Computes::Logical { .. }
        | Computes::Renorm
        | Computes::Trace
        | Computes::Cross
        | Computes::Diag
        | Computes::Triangle { .. } => return None,
        // Not on the device.
        Computes::Histogram { .. } | Computes::Lapack(_) | Computes::Convolution { .. } => return None,
        // The elementwise maths and the comparisons (`Computes::is_elementwise`; a comparison's
        // result has the source's type).
        c => {
            debug_assert!(c.is_elementwise(), "{c:?}");
            elementwise
        }
    };
    Some(native)
}

/// The device function of the op `e`, when the device carries out every form of it.
fn device_op(e: &Entry) -> Option<Op> {
    let every = e
        .forms
        .iter()
        .chain(e.method_forms)
        .all(|f| op_of(f.computes).is_some());
    if every { op_of(e.forms[0].computes) } else { None }
}

/// `bindForms(name, isMethod, ...)`: the call bound by the table's forms of `name` over the
/// device family, for the ops lua/cutorch/Tensor.lua builds from others: the result (nil when
/// not given), the source, a list of the other tensors, a list of the numbers (their defaults
/// filled in; nil where an optional dimension was left out) and a list of the booleans.
fn bind_forms(lua: &Lua, a: Args) -> Result<MultiValue> {
    let name = match a.first() {
        Some(Value::String(s)) => s.to_string_lossy(),
        _ => return Err(mlua::Error::runtime("bindForms: internal error: op name expected")),
    };
    let e =
        find(&name).ok_or_else(|| mlua::Error::runtime(format!("bindForms: internal error: no forms for {name}")))?;
    let mode = match a.get(1) {
        Some(Value::Boolean(true)) => Mode::Method,
        _ => Mode::Function,
    };
    let b = bind::<Cuda>(a.get(2..).unwrap_or(&[]), mode, e)?;
    let value = |d: Option<&Dest>| d.map_or(Value::Nil, |(v, _)| v.clone());
    let tensors = lua.create_sequence_from(b.tensor_args().map(|(v, _)| v.clone()))?;
    let numbers = lua.create_table()?;
    for (i, n) in b.numbers().enumerate() {
        if let Some(x) = n {
            numbers.raw_set(i + 1, x)?;
        }
    }
    let booleans = lua.create_sequence_from(b.booleans())?;
    Ok(MultiValue::from_vec(vec![
        value(b.result()),
        value(b.source_arg()),
        Value::Table(tensors),
        Value::Table(numbers),
        Value::Table(booleans),
    ]))
}

fn set(lua: &Lua, t: &Table, e: &'static Entry, mode: Mode, op: Op) -> Result<()> {
    // calls: captures the table entry and calling mode it binds, one function per op.
    t.raw_set(e.name, lua.create_function(move |lua, a: Args| op(lua, a, mode, e))?)
}

/// `libcutorch.maths`: { methods = ..., functions = ... } of every op of the table the device
/// carries out, which lua/cutorch/Tensor.lua installs beside the ones it builds.
pub fn install(lua: &Lua, m: &Table) -> Result<()> {
    let (methods, functions) = (lua.create_table()?, lua.create_table()?);
    for e in entries() {
        if let Some(op) = device_op(e) {
            set(lua, &methods, e, Mode::Method, op)?;
            set(lua, &functions, e, Mode::Function, op)?;
        }
    }
    let t = lua.create_table()?;
    t.set("methods", methods)?;
    t.set("functions", functions)?;
    m.set("maths", t)?;
    crate::calls::add(lua, m, "bindForms", bind_forms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_device_installs_the_ops_it_has_operations_for() {
        let native: Vec<&str> = entries().filter(|e| device_op(e).is_some()).map(|e| e.name).collect();
        for name in [
            "add", "csub", "cmul", "pow", "clamp", "addcdiv", "lt", "ne", "sum", "prod", "mean", "max", "min", "norm",
            "cumsum", "cumprod", "sort", "topk", "kthvalue", "median", "mode", "mm", "mv", "ger", "bmm", "addmm",
            "addmv", "addr", "addbmm", "baddbmm", "dot",
        ] {
            assert!(native.contains(&name), "{name} is not installed");
        }
        // No bitwise operations; the rest built in Lua, or not on the device.
        for name in [
            "bitand", "cbitxor", "lshift", "var", "std", "dist", "all", "any", "equal", "trace", "cross", "diag",
            "tril", "triu", "renorm", "histc", "bhistc", "gesv", "svd", "conv2", "xcorr3",
        ] {
            assert!(!native.contains(&name), "{name} is installed");
        }
    }
}
