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
//! Argument forms follow Torch's cwrap declarations:
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
use super::reduce::integer;
use crate::dispatch;
use crate::error::Named;
use crate::torch::args::{Args, error, int_arg, number, type_name};
use crate::torch::construct;
use crate::torch::dtype::{DType, Element};
use crate::torch::kernels::blas::openblas;
use crate::torch::kernels::linalg::{self as kernel, Product, accumulate_product, check_added, detach, product_size};
use crate::torch::tensor::Tensor;
use crate::torch::userdata::{push_tensor, set_view, tensor_of};

// ---------------------------------------------------------------------------------------------
// Arguments

enum Tok {
    T(Value, Tensor),
    N(f64),
    Other,
}

/// The arguments, classified; trailing nils dropped (an optional argument passed as nil is absent).
fn tokens(a: &Args) -> Vec<Tok> {
    let mut n = a.len();
    while n > 0 && matches!(a[n - 1], Value::Nil) {
        n -= 1;
    }
    a.iter()
        .take(n)
        .map(|v| match tensor_of(v) {
            Some(t) => Tok::T(v.clone(), t),
            None => match number(v) {
                Some(x) => Tok::N(x),
                None => Tok::Other,
            },
        })
        .collect()
}

fn invalid(name: &str, a: &Args, usage: &str) -> mlua::Error {
    let got: Vec<String> = a.iter().map(type_name).collect();
    error(
        name,
        format!("invalid arguments ({}); expected {usage}", got.join(", ")),
    )
}

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

#[derive(Clone, Copy, PartialEq)]
enum Form {
    Method,
    Function,
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
fn add_product(lua: &Lua, a: Args, form: Form, s: &Spec) -> Result<MultiValue> {
    let name = s.name;
    let usage = match form {
        Form::Function => format!("torch.{name}([res,] [beta,] M, [alpha,] x, y)"),
        Form::Method => format!("res:{name}([M,] [alpha,] x, y) or res:{name}(beta, [M,] alpha, x, y)"),
    };
    let mut toks = tokens(&a);
    let bad = || invalid(name, &a, &usage);
    // Read from the end: y, x, [alpha], M, [beta], [res].
    let take_t = |toks: &mut Vec<Tok>| match toks.last() {
        Some(Tok::T(..)) => match toks.pop() {
            Some(Tok::T(v, t)) => Some((v, t)),
            _ => None,
        },
        _ => None,
    };
    let take_n = |toks: &mut Vec<Tok>| match toks.last() {
        Some(Tok::N(x)) => {
            let x = *x;
            toks.pop();
            Some(x)
        }
        _ => None,
    };
    let res = if form == Form::Method {
        if toks.is_empty() || !matches!(toks[0], Tok::T(..)) {
            return Err(bad());
        }
        match toks.remove(0) {
            Tok::T(v, t) => Some((v, t)),
            _ => None,
        }
    } else {
        None
    };
    let (y, x) = match (take_t(&mut toks), take_t(&mut toks)) {
        (Some(y), Some(x)) => (y.1, x.1),
        _ => return Err(bad()),
    };
    let alpha = take_n(&mut toks);
    let m = take_t(&mut toks);
    let beta = take_n(&mut toks);
    let (res, m) = match form {
        Form::Method => {
            // cwrap's method forms: beta only together with alpha; M defaults to res.
            if !toks.is_empty() || (beta.is_some() && alpha.is_none()) {
                return Err(bad());
            }
            let res = res.expect("method form has a receiver");
            let m = m.map(|m| m.1).unwrap_or_else(|| res.1.clone());
            (Some(res), m)
        }
        Form::Function => {
            let Some(m) = m else { return Err(bad()) };
            let res = take_t(&mut toks);
            if !toks.is_empty() {
                return Err(bad());
            }
            (res, m.1)
        }
    };
    check_types(name, &a)?;
    let (beta, alpha) = (beta.unwrap_or(1.0), alpha.unwrap_or(1.0));
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
fn product(lua: &Lua, a: Args, form: Form, s: &Spec) -> Result<MultiValue> {
    let name = s.name;
    let usage = match form {
        Form::Function => format!("torch.{name}([res,] x, y)"),
        Form::Method => format!("res:{name}(x, y)"),
    };
    let toks = tokens(&a);
    let mut ts = Vec::new();
    for t in toks {
        match t {
            Tok::T(v, t) => ts.push((v, t)),
            _ => return Err(invalid(name, &a, &usage)),
        }
    }
    let (res, x, y) = match (form, ts.len()) {
        (Form::Function, 2) => {
            let y = ts.pop().expect("two").1;
            (None, ts.pop().expect("one").1, y)
        }
        (_, 3) => {
            let y = ts.pop().expect("three").1;
            let x = ts.pop().expect("two").1;
            (ts.pop(), x, y)
        }
        _ => return Err(invalid(name, &a, &usage)),
    };
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
        add($lua, $tensor, $name, |lua, a| $f(lua, a, Form::Method, &$spec))?;
        add($lua, $functions, $name, |lua, a| $f(lua, a, Form::Function, &$spec))?;
    };
}

// ---------------------------------------------------------------------------------------------
// dot, trace, cross, diag, tril, triu

fn dot(_: &Lua, a: Args) -> Result<MultiValue> {
    let toks = tokens(&a);
    let (x, y) = match toks.as_slice() {
        [Tok::T(_, x), Tok::T(_, y)] => (x.clone(), y.clone()),
        _ => return Err(invalid("dot", &a, "x:dot(y) or torch.dot(x, y)")),
    };
    check_types("dot", &a)?;
    one(Value::Number(kernel::dot(&x, &y).named("dot")?))
}

fn trace(_: &Lua, a: Args) -> Result<MultiValue> {
    let toks = tokens(&a);
    let t = match toks.as_slice() {
        [Tok::T(_, t)] => t.clone(),
        _ => return Err(invalid("trace", &a, "x:trace() or torch.trace(x)")),
    };
    one(Value::Number(kernel::trace(&t).named("trace")?))
}

/// `([res,] t1, ..., tn [, number])`: the optional result, the n tensors, the optional number.
#[allow(clippy::type_complexity)]
fn res_tensors_number(
    a: &Args,
    n: usize,
    name: &str,
    usage: &str,
) -> Result<(Option<(Value, Tensor)>, Vec<Tensor>, Option<f64>)> {
    let mut toks = tokens(a);
    let num = match toks.last() {
        Some(Tok::N(x)) => {
            let x = *x;
            toks.pop();
            Some(x)
        }
        _ => None,
    };
    let mut ts = Vec::new();
    for t in toks {
        match t {
            Tok::T(v, t) => ts.push((v, t)),
            _ => return Err(invalid(name, a, usage)),
        }
    }
    let res = if ts.len() == n + 1 {
        Some(ts.remove(0))
    } else if ts.len() == n {
        None
    } else {
        return Err(invalid(name, a, usage));
    };
    check_types(name, a)?;
    Ok((res, ts.into_iter().map(|(_, t)| t).collect(), num))
}

fn cross(lua: &Lua, a: Args) -> Result<MultiValue> {
    let (res, ts, dim) = res_tensors_number(&a, 2, "cross", "torch.cross([res,] a, b [, dim]) or a:cross(b [, dim])")?;
    let (x, y) = (&ts[0], &ts[1]);
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
    let (res, ts, k) = res_tensors_number(&a, 1, "diag", "torch.diag([res,] x [, k]) or x:diag([k])")?;
    let k = integer(k.unwrap_or(0.0), "diag", "k")?;
    let x = ts.into_iter().next().expect("one tensor");
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
    let usage = format!("torch.{name}([res,] x [, k]) or x:{name}([k])");
    let (res, ts, k) = res_tensors_number(&a, 1, name, &usage)?;
    let k = integer(k.unwrap_or(0.0), name, "k")?;
    let x = ts.into_iter().next().expect("one tensor");
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
