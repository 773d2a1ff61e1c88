//! Linear algebra: mm, mv, bmm, addmm, addmv, addr, addbmm, baddbmm, dot, ger, cross, trace, diag,
//! tril, triu, and torch.setnumthreads/getnumthreads.
//!
//! Float and Double products go through OpenBLAS (`kernels::blas`): a strided matrix is handed to BLAS
//! as it is whenever a leading dimension and a transpose flag describe it (a transposed or
//! narrowed matrix costs no copy); only matrices BLAS cannot describe (both strides > 1, or
//! expanded with stride 0) are copied to a contiguous buffer first. Integer types, and floats
//! when no OpenBLAS is installed, use plain Rust loops with the same semantics (integer arithmetic
//! wraps, as Torch's C does).
//!
//! Argument forms (in `forms::table`) follow Torch's cwrap declarations:
//! - `torch.addmm([res,] [beta,] M, [alpha,] m1, m2)`; `res:addmm([M,] [alpha,] m1, m2)` and
//!   `res:addmm(beta, [M,] alpha, m1, m2)` (M defaults to res). The same for addmv, addr, addbmm
//!   and baddbmm.
//! - `torch.mm([res,] m1, m2)` and `res:mm(m1, m2)`; the same for mv, ger and bmm.
//! - `torch.cross([res,] a, b [, dim])`, `torch.diag([res,] x [, k])`, `torch.tril/triu([res,] x
//!   [, k])`: the method forms are the same functions, so `x:diag()` returns a new tensor and
//!   `res:diag(x)` writes into res.
//! - `x:dot(y)`, `x:trace()`: numbers.

use mlua::{Lua, MultiValue, Result, Table, Value};

use super::convention::{add, none, one};
use super::copy::copy_into;
use crate::dispatch;
use crate::error::Named;
use crate::torch::args::{Args, error, int_arg, integer};
use crate::torch::base::dtype::{DType, Element};
use crate::torch::base::tensor::Tensor;
use crate::torch::construct;
use crate::torch::forms::bind::{Bound, Mode, bind};
use crate::torch::forms::table::entry;
use crate::torch::kernels::blas::openblas;
use crate::torch::kernels::linalg::{self as kernel, Product, accumulate_product, check_added, detach, product_size};
use crate::torch::userdata::{Host, push_tensor, set_view, tensor_of};

// ---------------------------------------------------------------------------------------------
// Arguments

/// Every tensor argument must have the type of the first one (cwrap's typed overloads).
fn check_types(name: &str, a: &Args) -> Result<()> {
    let mut want: Option<DType> = None;
    for (i, v) in a.iter().enumerate() {
        if let Some(t) = tensor_of(v) {
            match want {
                None => want = Some(t.dtype),
                Some(d) if d != t.dtype => {
                    return Err(error(
                        name,
                        format!(
                            "bad argument #{} ({} expected, got {})",
                            i + 1,
                            d.tensor_typename(),
                            t.dtype.tensor_typename()
                        ),
                    ));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// The call of `name` bound to one of its forms.
fn parse(a: &Args, mode: Mode, name: &str) -> Result<Bound> {
    bind::<Host>(a, mode, entry(name))
}

struct Spec {
    name: &'static str,
    op: Product,
}

const ADDMV: Spec = Spec {
    name: "addmv",
    op: Product::Mv,
};
const ADDMM: Spec = Spec {
    name: "addmm",
    op: Product::Mm,
};
const ADDR: Spec = Spec {
    name: "addr",
    op: Product::Ger,
};
const BADDBMM: Spec = Spec {
    name: "baddbmm",
    op: Product::Bmm,
};
const ADDBMM: Spec = Spec {
    name: "addbmm",
    op: Product::AddBmm,
};
const MV: Spec = Spec {
    name: "mv",
    op: Product::Mv,
};
const MM: Spec = Spec {
    name: "mm",
    op: Product::Mm,
};
const GER: Spec = Spec {
    name: "ger",
    op: Product::Ger,
};
const BMM: Spec = Spec {
    name: "bmm",
    op: Product::Bmm,
};

/// Finishes a result: resizes `res` (its userdata gets the new view) or makes a new tensor.
fn result_tensor(res: Option<&(Value, Tensor)>, dtype: DType, size: &[usize], name: &str) -> Result<Tensor> {
    match res {
        Some((v, t)) => {
            let mut t = t.clone();
            construct::resize(&mut t, size).named(name)?;
            set_view(v, t.clone())?;
            Ok(t)
        }
        None => Tensor::zeros(dtype, size).named(name),
    }
}

fn returned(lua: &Lua, res: Option<(Value, Tensor)>, out: Tensor) -> Result<MultiValue> {
    match res {
        Some((v, _)) => one(v),
        None => one(push_tensor(lua, out)?),
    }
}

/// addmm, addmv, addr, addbmm, baddbmm in both forms.
fn add_product(lua: &Lua, a: Args, mode: Mode, s: &Spec) -> Result<MultiValue> {
    let name = s.name;
    let b = parse(&a, mode, name)?;
    let res = b.result().cloned();
    // The function's forms give M; the method's may leave it out, and then it is res.
    let mut ts: Vec<Tensor> = b.tensors().cloned().collect();
    let y = ts.pop().expect("y");
    let x = ts.pop().expect("x");
    let m = match (ts.pop(), &res) {
        (Some(m), _) => m,
        (None, Some((_, r))) => r.clone(),
        (None, None) => unreachable!("a form without M has a result"),
    };
    // beta only together with alpha; both default to 1.
    let nums = b.values();
    let (beta, alpha) = match nums[..] {
        [beta, alpha] => (beta, alpha),
        [alpha] => (1.0, alpha),
        _ => (1.0, 1.0),
    };
    check_types(name, &a)?;
    let size = product_size(s.op, &x, &y).named(name)?;
    check_added(s.op, &m, &x, &y, &size).named(name)?;

    let dtype = m.dtype;
    let beta_zero = dispatch!(dtype, T => T::from_f64(beta) == T::zero());
    let (x, y, m) = match &res {
        Some((_, r)) => {
            let m = if m.same_view(r) {
                m
            } else {
                detach(m, r).named("clone")?
            };
            (detach(x, r).named("clone")?, detach(y, r).named("clone")?, m)
        }
        None => (x, y, m),
    };
    let out = match &res {
        Some((_, r)) if r.same_view(&m) => r.clone(),
        _ => {
            let out = result_tensor(res.as_ref(), dtype, &size, name)?;
            if !beta_zero {
                copy_into(&out, &m, name)?;
            }
            out
        }
    };
    accumulate_product(s.op, &out, beta, alpha, &x, &y).named(name)?;
    returned(lua, res, out)
}

/// mm, mv, ger, bmm: `torch.f([res,] x, y)`, `res:f(x, y)`.
fn product(lua: &Lua, a: Args, mode: Mode, s: &Spec) -> Result<MultiValue> {
    let name = s.name;
    let b = parse(&a, mode, name)?;
    let res = b.result().cloned();
    let mut ts: Vec<Tensor> = b.tensors().cloned().collect();
    let y = ts.pop().expect("y");
    let x = ts.pop().expect("x");
    check_types(name, &a)?;
    let size = product_size(s.op, &x, &y).named(name)?;
    let (x, y) = match &res {
        Some((_, r)) => (detach(x, r).named("clone")?, detach(y, r).named("clone")?),
        None => (x, y),
    };
    let out = result_tensor(res.as_ref(), x.dtype, &size, name)?;
    accumulate_product(s.op, &out, 0.0, 1.0, &x, &y).named(name)?;
    returned(lua, res, out)
}

macro_rules! forms {
    ($lua:expr, $tensor:expr, $functions:expr, $f:ident, $spec:expr, $name:literal) => {
        add($lua, $tensor, $name, |lua, a| $f(lua, a, Mode::Method, &$spec))?;
        add($lua, $functions, $name, |lua, a| $f(lua, a, Mode::Function, &$spec))?;
    };
}

// ---------------------------------------------------------------------------------------------
// dot, trace, cross, diag, tril, triu

fn dot(_: &Lua, a: Args) -> Result<MultiValue> {
    let b = parse(&a, Mode::Function, "dot")?;
    let (x, y) = (b.source().expect("x"), b.tensor(0).expect("y"));
    check_types("dot", &a)?;
    one(Value::Number(kernel::dot(x, y).named("dot")?))
}

fn trace(_: &Lua, a: Args) -> Result<MultiValue> {
    let b = parse(&a, Mode::Function, "trace")?;
    one(Value::Number(kernel::trace(b.source().expect("x")).named("trace")?))
}

/// `([res,] x, [y,] [number])`: the result given, the source, the other tensor, the number (or
/// its default); the tensors' types checked.
#[allow(clippy::type_complexity)]
fn res_tensors_number(a: &Args, name: &str) -> Result<(Option<(Value, Tensor)>, Tensor, Option<Tensor>, Option<f64>)> {
    let b = parse(a, Mode::Function, name)?;
    check_types(name, a)?;
    let other = b.tensor(0).cloned();
    Ok((b.result().cloned(), b.source().expect("x").clone(), other, b.number(0)))
}

fn cross(lua: &Lua, a: Args) -> Result<MultiValue> {
    let (res, x, y, dim) = res_tensors_number(&a, "cross")?;
    let (x, y) = (&x, &y.expect("b"));
    kernel::check_cross_operands(x, y).named("cross")?;
    let requested = match dim {
        Some(v) => Some(integer(v, "cross", "dimension")?),
        None => None,
    };
    let d = kernel::cross_dimension(x, requested).named("cross")?;
    let (x, y) = match &res {
        Some((_, r)) if !r.same_view(x) && !r.same_view(y) => (
            detach(x.clone(), r).named("clone")?,
            detach(y.clone(), r).named("clone")?,
        ),
        _ => (x.clone(), y.clone()),
    };
    let out = result_tensor(res.as_ref(), x.dtype, &x.size, "cross")?;
    kernel::cross(&out, &x, &y, d).named("cross")?;
    returned(lua, res, out)
}

fn diag(lua: &Lua, a: Args) -> Result<MultiValue> {
    let (res, x, _, k) = res_tensors_number(&a, "diag")?;
    let k = integer(k.unwrap_or(0.0), "diag", "k")?;
    let x = match &res {
        Some((_, r)) => detach(x, r).named("clone")?,
        None => x,
    };
    let size = kernel::diag_size(&x, k).named("diag")?;
    let out = result_tensor(res.as_ref(), x.dtype, &size, "diag")?;
    kernel::diag(&out, &x, k).named("diag")?;
    returned(lua, res, out)
}

/// tril (`lower`) and triu: keep the elements on and below (above) diagonal k, zero the rest.
fn triangle(lua: &Lua, a: Args, lower: bool) -> Result<MultiValue> {
    let name = if lower { "tril" } else { "triu" };
    let (res, x, _, k) = res_tensors_number(&a, name)?;
    let k = integer(k.unwrap_or(0.0), name, "k")?;
    kernel::expect_matrix(&x).named(name)?;
    let in_place = matches!(&res, Some((_, r)) if r.same_view(&x));
    let x = match &res {
        Some((_, r)) if !in_place => detach(x, r).named("clone")?,
        _ => x,
    };
    let out = if in_place {
        x.clone()
    } else {
        result_tensor(res.as_ref(), x.dtype, &x.size, name)?
    };
    kernel::triangle(&out, &x, k, lower).named(name)?;
    returned(lua, res, out)
}

fn tril(lua: &Lua, a: Args) -> Result<MultiValue> {
    triangle(lua, a, true)
}

fn triu(lua: &Lua, a: Args) -> Result<MultiValue> {
    triangle(lua, a, false)
}

fn setnumthreads(_: &Lua, a: Args) -> Result<MultiValue> {
    let n = int_arg(&a, 1, "setnumthreads")?;
    if n < 1 {
        return Err(error(
            "setnumthreads",
            format!("number of threads must be at least 1, got {n}"),
        ));
    }
    openblas::set_num_threads(n as usize);
    none()
}

fn getnumthreads(_: &Lua, _: Args) -> Result<MultiValue> {
    one(Value::Number(openblas::num_threads() as f64))
}

pub fn install(lua: &Lua, tensor: &Table, functions: &Table) -> Result<()> {
    forms!(lua, tensor, functions, add_product, ADDMM, "addmm");
    forms!(lua, tensor, functions, add_product, ADDMV, "addmv");
    forms!(lua, tensor, functions, add_product, ADDR, "addr");
    forms!(lua, tensor, functions, add_product, ADDBMM, "addbmm");
    forms!(lua, tensor, functions, add_product, BADDBMM, "baddbmm");
    forms!(lua, tensor, functions, product, MM, "mm");
    forms!(lua, tensor, functions, product, MV, "mv");
    forms!(lua, tensor, functions, product, GER, "ger");
    forms!(lua, tensor, functions, product, BMM, "bmm");
    for table in [tensor, functions] {
        add(lua, table, "dot", dot)?;
        add(lua, table, "trace", trace)?;
        add(lua, table, "cross", cross)?;
        add(lua, table, "diag", diag)?;
        add(lua, table, "tril", tril)?;
        add(lua, table, "triu", triu)?;
    }
    add(lua, functions, "setnumthreads", setnumthreads)?;
    add(lua, functions, "getnumthreads", getnumthreads)?;
    Ok(())
}
