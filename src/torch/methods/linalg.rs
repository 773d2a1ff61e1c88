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
//! Argument forms (in `forms::table`, which names each product's shape) follow Torch's cwrap
//! declarations; `methods::ops` installs these functions for what the forms compute:
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
use crate::args::{Args, error, int_arg, integer};
use crate::dispatch;
use crate::error::Named;
use crate::torch::base::dtype::{DType, Element};
use crate::torch::base::tensor::Tensor;
use crate::torch::construct;
use crate::torch::forms::bind::{Bound, Mode, bind};
use crate::torch::forms::computes::Computes;
use crate::torch::forms::table::Entry;
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

/// A product, in the shape the bound form names: mm, mv, ger, bmm (`torch.f([res,] x, y)`,
/// `res:f(x, y)`), or one added to M, addmm, addmv, addr, addbmm, baddbmm, in both forms.
pub(super) fn product(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let b = bind::<Host>(&a, mode, e)?;
    let Computes::Product { shape, adds } = b.computes() else {
        unreachable!("{}: not a product", e.name)
    };
    if adds {
        add_product(lua, &a, &b, shape, e.name)
    } else {
        plain_product(lua, &a, &b, shape, e.name)
    }
}

/// `beta * M + alpha * (x . y)`.
fn add_product(lua: &Lua, a: &Args, b: &Bound, shape: Product, name: &str) -> Result<MultiValue> {
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
    check_types(name, a)?;
    let size = product_size(shape, &x, &y).named(name)?;
    check_added(shape, &m, &x, &y, &size).named(name)?;

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
    accumulate_product(shape, &out, beta, alpha, &x, &y).named(name)?;
    returned(lua, res, out)
}

/// `x . y` alone.
fn plain_product(lua: &Lua, a: &Args, b: &Bound, shape: Product, name: &str) -> Result<MultiValue> {
    let res = b.result().cloned();
    let mut ts: Vec<Tensor> = b.tensors().cloned().collect();
    let y = ts.pop().expect("y");
    let x = ts.pop().expect("x");
    check_types(name, a)?;
    let size = product_size(shape, &x, &y).named(name)?;
    let (x, y) = match &res {
        Some((_, r)) => (detach(x, r).named("clone")?, detach(y, r).named("clone")?),
        None => (x, y),
    };
    let out = result_tensor(res.as_ref(), x.dtype, &size, name)?;
    accumulate_product(shape, &out, 0.0, 1.0, &x, &y).named(name)?;
    returned(lua, res, out)
}

// ---------------------------------------------------------------------------------------------
// dot, trace, cross, diag, tril, triu

pub(super) fn dot(_: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let b = bind::<Host>(&a, mode, e)?;
    let (x, y) = (b.source().expect("x"), b.tensor(0).expect("y"));
    check_types(e.name, &a)?;
    one(Value::Number(kernel::dot(x, y).named(e.name)?))
}

pub(super) fn trace(_: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let b = bind::<Host>(&a, mode, e)?;
    one(Value::Number(kernel::trace(b.source().expect("x")).named(e.name)?))
}

/// A bound call of `([res,] x, [y,] [number])`, the tensors' types checked.
fn checked(a: &Args, mode: Mode, e: &Entry) -> Result<Bound> {
    let b = bind::<Host>(a, mode, e)?;
    check_types(e.name, a)?;
    Ok(b)
}

/// The result given and the source of a bound call.
fn res_source(b: &Bound) -> (Option<(Value, Tensor)>, Tensor) {
    (b.result().cloned(), b.source().expect("x").clone())
}

pub(super) fn cross(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let name = e.name;
    let b = checked(&a, mode, e)?;
    let (res, x) = res_source(&b);
    let (x, y) = (&x, b.tensor(0).expect("b"));
    kernel::check_cross_operands(x, y).named(name)?;
    let requested = match b.number(0) {
        Some(v) => Some(integer(v, name, "dimension")?),
        None => None,
    };
    let d = kernel::cross_dimension(x, requested).named(name)?;
    let (x, y) = match &res {
        Some((_, r)) if !r.same_view(x) && !r.same_view(y) => (
            detach(x.clone(), r).named("clone")?,
            detach(y.clone(), r).named("clone")?,
        ),
        _ => (x.clone(), y.clone()),
    };
    let out = result_tensor(res.as_ref(), x.dtype, &x.size, name)?;
    kernel::cross(&out, &x, &y, d).named(name)?;
    returned(lua, res, out)
}

pub(super) fn diag(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let name = e.name;
    let b = checked(&a, mode, e)?;
    let (res, x) = res_source(&b);
    let k = integer(b.number(0).unwrap_or(0.0), name, "k")?;
    let x = match &res {
        Some((_, r)) => detach(x, r).named("clone")?,
        None => x,
    };
    let size = kernel::diag_size(&x, k).named(name)?;
    let out = result_tensor(res.as_ref(), x.dtype, &size, name)?;
    kernel::diag(&out, &x, k).named(name)?;
    returned(lua, res, out)
}

/// tril (`lower`) and triu: keep the elements on and below (above) diagonal k, zero the rest.
pub(super) fn triangle(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let name = e.name;
    let b = checked(&a, mode, e)?;
    let Computes::Triangle { lower } = b.computes() else {
        unreachable!("{name}: not tril or triu")
    };
    let (res, x) = res_source(&b);
    let k = integer(b.number(0).unwrap_or(0.0), name, "k")?;
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

/// The functions of no tensor op, which the table of forms does not list.
pub fn install(lua: &Lua, functions: &Table) -> Result<()> {
    add(lua, functions, "setnumthreads", setnumthreads)?;
    add(lua, functions, "getnumthreads", getnumthreads)?;
    Ok(())
}
