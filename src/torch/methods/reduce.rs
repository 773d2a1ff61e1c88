//! Reductions (sum, prod, mean, max, min, var, std, norm, dist, all, any), cumulative ops (cumsum,
//! cumprod), renorm, and the order statistics (sort, topk, kthvalue, median, mode): tensor methods
//! and `torch.*` functions with Torch7's argument forms (as its cwrap declarations resolve them)
//! and results.
//!
//! Results, as in Torch:
//! - With no dimension, sum/prod/mean/var/std/norm/dist return a Lua number accumulated in Torch's
//!   `accreal`: double for Float and Double, a 64-bit integer for the integer types (wrapping on
//!   overflow, as C's `long` does in practice). max/min return the element itself as a number;
//!   all/any (ByteTensor only, as in Torch) return a boolean.
//! - Along a dimension the result has the input's type and keeps the dimension with size 1; max,
//!   min, kthvalue, median and mode also return a LongTensor of 1-based indices. Integer results
//!   along a dimension are the `accreal` total cast back (a ByteTensor sum wraps modulo 256).
//! - mean, var, std, norm, renorm and dist exist for Float and Double tensors only, as in Torch;
//!   on the integer types they raise an error naming the method.
//! - `median` is the lower median (element (n+1)/2 in sorted order); `sort` is stable; `topk` with
//!   no `sort` flag still returns its k elements in sorted order (Torch leaves that order
//!   unspecified). NaN counts as larger than every number: sort puts NaNs last (first when
//!   descending) and max/min return NaN when a NaN is present, with the index of the first NaN.
//! - var/std use a two-pass (mean, then squared deviations) sum, more accurate than Torch's
//!   sum-of-squares formula; the unbiased estimate of one element is NaN, as in Torch.
//! - `norm(0)` counts the non-zero elements, `norm(math.huge)` is the largest absolute value;
//!   `dist(a, b, p)` is `norm(a - b, p)`.
//!
//!
//! The loops are `kernels::reduce`.

use mlua::{Lua, MultiValue, Result, Table, Value};

use super::convention::{add, one, receiver};
use super::copy::{clone_tensor, copy_into};
use crate::dispatch;
use crate::error::Named;
use crate::torch::args::{self, Args, error};
use crate::torch::construct;
use crate::torch::dtype::DType;
use crate::torch::kernels::reduce::along::{self, SumKind};
use crate::torch::kernels::reduce::sort::{self, Pick};
use crate::torch::kernels::reduce::{extreme, whole};
use crate::torch::tensor::Tensor;
use crate::torch::userdata::{push_tensor, set_view, tensor_of};

// ------------------------------------------------------------------------------------------------
// Arguments

/// A tensor argument: the Lua value and its view.
type Dest = (Value, Tensor);

/// The Lua arguments as cwrap classifies them: leading tensors (with their Lua values), then
/// numbers, then booleans. Trailing nils are ignored.
pub(crate) struct Classified<T> {
    pub tensors: Vec<(Value, T)>,
    pub nums: Vec<f64>,
    pub bools: Vec<bool>,
}

type Call = Classified<Tensor>;

impl Call {
    fn shape(&self) -> (usize, usize, usize) {
        (self.tensors.len(), self.nums.len(), self.bools.len())
    }

    /// The source tensor: the last tensor argument.
    fn x(&self) -> &Tensor {
        &self.tensors[self.tensors.len() - 1].1
    }

    fn dest(&self, i: usize) -> Option<&Dest> {
        (i + 1 < self.tensors.len()).then(|| &self.tensors[i])
    }
}

/// The error of a call whose arguments fit none of `forms`.
pub(crate) fn invalid(a: &[Value], method: &str, forms: &str) -> mlua::Error {
    let got: Vec<String> = a[..given(a)].iter().map(args::type_name).collect();
    error(
        method,
        format!("invalid arguments ({}); expected {forms}", got.join(", ")),
    )
}

/// How many arguments there are, trailing nils left out.
fn given(a: &[Value]) -> usize {
    let mut n = a.len();
    while n > 0 && matches!(a[n - 1], Value::Nil) {
        n -= 1;
    }
    n
}

/// `a` classified, the tensors being what `tensor_of` recognizes (a tensor family's own); an
/// invalid-arguments error naming `method` and its `forms` when they come out of that order.
pub(crate) fn classify<T>(
    a: &[Value],
    method: &str,
    forms: &str,
    tensor_of: impl Fn(&Value) -> Option<T>,
) -> Result<Classified<T>> {
    let mut c = Classified {
        tensors: Vec::new(),
        nums: Vec::new(),
        bools: Vec::new(),
    };
    for v in &a[..given(a)] {
        if let Some(t) = tensor_of(v) {
            if c.nums.is_empty() && c.bools.is_empty() {
                c.tensors.push((v.clone(), t));
                continue;
            }
        } else if let Some(x) = args::number(v) {
            if c.bools.is_empty() {
                c.nums.push(x);
                continue;
            }
        } else if let Value::Boolean(b) = v {
            c.bools.push(*b);
            continue;
        }
        return Err(invalid(a, method, forms));
    }
    Ok(c)
}

fn parse(a: &Args, method: &str, forms: &str) -> Result<Call> {
    let c = classify(a, method, forms, tensor_of)?;
    if c.tensors.is_empty() {
        return Err(invalid(a, method, forms));
    }
    Ok(c)
}

/// An integer argument (`what` of `method`).
pub(crate) fn integer(v: f64, method: &str, what: &str) -> Result<i64> {
    if v.fract() != 0.0 || !v.is_finite() {
        return Err(error(method, format!("{what} must be an integer, got {v}")));
    }
    Ok(v as i64)
}

fn dim_of(v: f64, x: &Tensor, method: &str) -> Result<usize> {
    args::check_dim(integer(v, method, "dimension")?, x.dim(), method)
}

/// The default dimension of sort, topk, kthvalue, median and mode: the last one.
fn last_dim(x: &Tensor, method: &str) -> Result<usize> {
    match x.dim() {
        0 => Err(error(method, "empty tensor")),
        d => Ok(d - 1),
    }
}

fn float_only(x: &Tensor, method: &str) -> Result<()> {
    if x.dtype.is_floating() {
        return Ok(());
    }
    Err(error(
        method,
        format!(
            "not implemented for {} (Torch defines it for FloatTensor and DoubleTensor only)",
            x.dtype.tensor_typename()
        ),
    ))
}

fn check_type(dest: Option<&Dest>, want: DType, method: &str, what: &str) -> Result<()> {
    match dest {
        Some((_, t)) if t.dtype != want => Err(error(
            method,
            format!(
                "{what} must be a {}, got a {}",
                want.tensor_typename(),
                t.dtype.tensor_typename()
            ),
        )),
        _ => Ok(()),
    }
}

/// Hands a computed result back: a new tensor, or copied into the caller's result tensor
/// (resized to it), which is returned.
fn deliver(lua: &Lua, dest: Option<&Dest>, fresh: Tensor, method: &str) -> Result<Value> {
    match dest {
        None => push_tensor(lua, fresh),
        Some((v, t)) => {
            let mut r = t.clone();
            construct::resize(&mut r, &fresh.size).named(method)?;
            set_view(v, r.clone())?;
            copy_into(&r, &fresh, method)?;
            Ok(v.clone())
        }
    }
}

/// The result tensors of a values-and-indices method: `[resval,] [resind,] x`.
fn pair_dests<'a>(c: &'a Call, method: &str) -> Result<(Option<&'a Dest>, Option<&'a Dest>)> {
    let dtype = c.x().dtype;
    let (v, i) = match c.tensors.len() {
        1 => (None, None),
        2 => {
            let d = &c.tensors[0];
            // One result tensor: the values if it has x's type, else the indices.
            if d.1.dtype == dtype {
                (Some(d), None)
            } else {
                (None, Some(d))
            }
        }
        3 => (Some(&c.tensors[0]), Some(&c.tensors[1])),
        _ => return Err(error(method, "too many tensor arguments")),
    };
    check_type(v, dtype, method, "the values result")?;
    check_type(i, DType::Long, method, "the indices result")?;
    Ok((v, i))
}

fn two(lua: &Lua, c: &Call, (vals, idx): (Tensor, Tensor), method: &str) -> Result<MultiValue> {
    let (dv, di) = pair_dests(c, method)?;
    let v = deliver(lua, dv, vals, method)?;
    let i = deliver(lua, di, idx, method)?;
    Ok(MultiValue::from_vec(vec![v, i]))
}

fn number(v: f64) -> Result<MultiValue> {
    one(Value::Number(v))
}

// ------------------------------------------------------------------------------------------------
// Methods

fn sum_like(lua: &Lua, a: Args, method: &str, kind: SumKind) -> Result<MultiValue> {
    const FORMS: &str = "(tensor) | ([result,] tensor, dim)";
    let c = parse(&a, method, FORMS)?;
    let x = c.x();
    if kind == SumKind::Mean {
        float_only(x, method)?;
    }
    match c.shape() {
        (1, 0, 0) => {
            let v = dispatch!(x.dtype, T => match kind {
                SumKind::Prod => whole::sum_all::<T>(x, true).named(method)?,
                SumKind::Sum => whole::sum_all::<T>(x, false).named(method)?,
                SumKind::Mean => {
                    if x.numel() == 0 {
                        return Err(error(method, "empty tensor"));
                    }
                    whole::sum_all::<T>(x, false).named(method)? / x.numel() as f64
                }
            });
            number(v)
        }
        (1 | 2, 1, 0) => {
            let dest = c.dest(0);
            check_type(dest, x.dtype, method, "the result")?;
            let dim = dim_of(c.nums[0], x, method)?;
            let r = dispatch!(x.dtype, T => along::sum_dim::<T>(x, dim, kind).named(method)?);
            one(deliver(lua, dest, r, method)?)
        }
        _ => Err(invalid(&a, method, FORMS)),
    }
}

fn extreme(lua: &Lua, a: Args, method: &str, max: bool) -> Result<MultiValue> {
    const FORMS: &str = "(tensor) | ([resval, resind,] tensor, dim)";
    let c = parse(&a, method, FORMS)?;
    let x = c.x();
    match c.shape() {
        (1, 0, 0) => number(dispatch!(x.dtype, T => if max {
            extreme::extreme_all::<T, true>(x).named(method)?
        } else {
            extreme::extreme_all::<T, false>(x).named(method)?
        })),
        (1..=3, 1, 0) => {
            pair_dests(&c, method)?;
            let dim = dim_of(c.nums[0], x, method)?;
            let r = dispatch!(x.dtype, T => if max {
                extreme::extreme_dim::<T, true>(x, dim).named(method)?
            } else {
                extreme::extreme_dim::<T, false>(x, dim).named(method)?
            });
            two(lua, &c, r, method)
        }
        _ => Err(invalid(&a, method, FORMS)),
    }
}

fn var_like(lua: &Lua, a: Args, method: &str, std: bool) -> Result<MultiValue> {
    const FORMS: &str = "(tensor [, biased]) | ([result,] tensor, dim [, biased])";
    let c = parse(&a, method, FORMS)?;
    let x = c.x();
    float_only(x, method)?;
    let biased = c.bools.first().copied().unwrap_or(false);
    match c.shape() {
        (1, 0, 0 | 1) => {
            let v = dispatch!(x.dtype, T => whole::var_all::<T>(x, biased).named(method)?);
            number(if std { v.sqrt() } else { v })
        }
        (1 | 2, 1, 0 | 1) => {
            let dest = c.dest(0);
            check_type(dest, x.dtype, method, "the result")?;
            let dim = dim_of(c.nums[0], x, method)?;
            let r = dispatch!(x.dtype, T => along::var_dim::<T>(x, dim, biased, std).named(method)?);
            one(deliver(lua, dest, r, method)?)
        }
        _ => Err(invalid(&a, method, FORMS)),
    }
}

fn norm(lua: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "norm";
    const FORMS: &str = "(tensor [, p]) | ([result,] tensor, p, dim)";
    let c = parse(&a, METHOD, FORMS)?;
    let x = c.x();
    float_only(x, METHOD)?;
    match c.shape() {
        (1, 0 | 1, 0) => {
            let p = c.nums.first().copied().unwrap_or(2.0);
            number(dispatch!(x.dtype, T => whole::norm_all::<T>(x, p).named(METHOD)?))
        }
        (1 | 2, 2, 0) => {
            let dest = c.dest(0);
            check_type(dest, x.dtype, METHOD, "the result")?;
            let dim = dim_of(c.nums[1], x, METHOD)?;
            let r = dispatch!(x.dtype, T => along::norm_dim::<T>(x, c.nums[0], dim).named(METHOD)?);
            one(deliver(lua, dest, r, METHOD)?)
        }
        _ => Err(invalid(&a, METHOD, FORMS)),
    }
}

fn dist_method(_: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "dist";
    const FORMS: &str = "(tensor, tensor [, p])";
    let c = parse(&a, METHOD, FORMS)?;
    let (2, 0 | 1, 0) = c.shape() else {
        return Err(invalid(&a, METHOD, FORMS));
    };
    let (x, y) = (&c.tensors[0].1, &c.tensors[1].1);
    float_only(x, METHOD)?;
    if y.dtype != x.dtype {
        return Err(error(
            METHOD,
            format!(
                "expected a {}, got a {}",
                x.dtype.tensor_typename(),
                y.dtype.tensor_typename()
            ),
        ));
    }
    let p = c.nums.first().copied().unwrap_or(2.0);
    number(dispatch!(x.dtype, T => whole::dist::<T>(x, y, p).named(METHOD)?))
}

fn logical(a: Args, method: &str, any: bool) -> Result<MultiValue> {
    let c = parse(&a, method, "(ByteTensor)")?;
    if c.shape() != (1, 0, 0) {
        return Err(invalid(&a, method, "(ByteTensor)"));
    }
    let x = c.x();
    if x.dtype != DType::Byte {
        return Err(error(
            method,
            format!("only defined for torch.ByteTensor, got a {}", x.dtype.tensor_typename()),
        ));
    }
    one(Value::Boolean(whole::logical_all(x, any).named(method)?))
}

fn cumulative(lua: &Lua, a: Args, method: &str, prod: bool) -> Result<MultiValue> {
    const FORMS: &str = "([result,] tensor [, dim])";
    let c = parse(&a, method, FORMS)?;
    let x = c.x();
    let (1 | 2, 0 | 1, 0) = c.shape() else {
        return Err(invalid(&a, method, FORMS));
    };
    let dest = c.dest(0);
    check_type(dest, x.dtype, method, "the result")?;
    let dim = dim_of(c.nums.first().copied().unwrap_or(1.0), x, method)?;
    let r = dispatch!(x.dtype, T => along::cumulate::<T>(x, dim, prod).named(method)?);
    one(deliver(lua, dest, r, method)?)
}

fn sort_method(lua: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "sort";
    const FORMS: &str = "([resval, resind,] tensor [, dim] [, descending])";
    let c = parse(&a, METHOD, FORMS)?;
    let (1..=3, 0 | 1, 0 | 1) = c.shape() else {
        return Err(invalid(&a, METHOD, FORMS));
    };
    let x = c.x();
    pair_dests(&c, METHOD)?;
    let dim = match c.nums.first() {
        Some(&d) => dim_of(d, x, METHOD)?,
        None => last_dim(x, METHOD)?,
    };
    let desc = c.bools.first().copied().unwrap_or(false);
    let r = dispatch!(x.dtype, T => sort::per_lane::<T>(x, dim, x.size[dim], desc, Pick::Sort).named(METHOD)?);
    two(lua, &c, r, METHOD)
}

fn topk_method(lua: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "topk";
    const FORMS: &str = "([resval, resind,] tensor [, k] [, dim] [, dir] [, sort])";
    let c = parse(&a, METHOD, FORMS)?;
    let (1..=3, 0..=2, 0..=2) = c.shape() else {
        return Err(invalid(&a, METHOD, FORMS));
    };
    let x = c.x();
    pair_dests(&c, METHOD)?;
    let k = integer(c.nums.first().copied().unwrap_or(1.0), METHOD, "k")?;
    let dim = match c.nums.get(1) {
        Some(&d) => dim_of(d, x, METHOD)?,
        None => last_dim(x, METHOD)?,
    };
    if k < 1 || k as usize > x.size[dim] {
        return Err(error(
            METHOD,
            format!("k ({k}) out of range for a dimension of size {}", x.size[dim]),
        ));
    }
    let largest = c.bools.first().copied().unwrap_or(false);
    let k = k as usize;
    let r = dispatch!(x.dtype, T => sort::per_lane::<T>(x, dim, k, largest, Pick::First(k)).named(METHOD)?);
    two(lua, &c, r, METHOD)
}

fn kthvalue_method(lua: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "kthvalue";
    const FORMS: &str = "([resval, resind,] tensor, k [, dim])";
    let c = parse(&a, METHOD, FORMS)?;
    let (1..=3, 1 | 2, 0) = c.shape() else {
        return Err(invalid(&a, METHOD, FORMS));
    };
    let x = c.x();
    pair_dests(&c, METHOD)?;
    let k = integer(c.nums[0], METHOD, "k")?;
    let dim = match c.nums.get(1) {
        Some(&d) => dim_of(d, x, METHOD)?,
        None => last_dim(x, METHOD)?,
    };
    if k < 1 || k as usize > x.size[dim] {
        return Err(error(
            METHOD,
            format!("k ({k}) out of range for a dimension of size {}", x.size[dim]),
        ));
    }
    let k = k as usize;
    let r = dispatch!(x.dtype, T => sort::per_lane::<T>(x, dim, 1, false, Pick::Kth(k)).named(METHOD)?);
    two(lua, &c, r, METHOD)
}

fn median_mode(lua: &Lua, a: Args, method: &str, is_mode: bool) -> Result<MultiValue> {
    const FORMS: &str = "([resval, resind,] tensor [, dim])";
    let c = parse(&a, method, FORMS)?;
    let (1..=3, 0 | 1, 0) = c.shape() else {
        return Err(invalid(&a, method, FORMS));
    };
    let x = c.x();
    pair_dests(&c, method)?;
    let dim = match c.nums.first() {
        Some(&d) => dim_of(d, x, method)?,
        None => last_dim(x, method)?,
    };
    if x.size[dim] == 0 {
        return Err(error(method, "cannot reduce a dimension of size 0"));
    }
    // The median is the lower one: element (n+1)/2 of the sorted lane.
    let pick = if is_mode {
        Pick::Mode
    } else {
        Pick::Kth(x.size[dim].div_ceil(2))
    };
    let r = dispatch!(x.dtype, T => sort::per_lane::<T>(x, dim, 1, false, pick).named(method)?);
    two(lua, &c, r, method)
}

/// `renorm` arguments: `[result,] tensor, p, dim, maxnorm` -> (result, source, p, dim, maxnorm).
fn renorm_args<'a>(c: &'a Call, a: &Args) -> Result<(Option<&'a Dest>, usize, f64, f64)> {
    const METHOD: &str = "renorm";
    const FORMS: &str = "([result,] tensor, p, dim, maxnorm)";
    let (1 | 2, 3, 0) = c.shape() else {
        return Err(invalid(a, METHOD, FORMS));
    };
    let x = c.x();
    float_only(x, METHOD)?;
    let dest = c.dest(0);
    check_type(dest, x.dtype, METHOD, "the result")?;
    let p = c.nums[0];
    if p.is_nan() || p <= 0.0 {
        return Err(error(METHOD, format!("non-positive norm not supported (p = {p})")));
    }
    if x.dim() < 2 {
        return Err(error(
            METHOD,
            format!("need at least 2 dimensions, got {} dimensions", x.dim()),
        ));
    }
    let dim = dim_of(c.nums[1], x, METHOD)?;
    Ok((dest, dim, p, c.nums[2]))
}

/// `x:renorm(p, dim, maxnorm)` works on x; `res:renorm(x, p, dim, maxnorm)` writes into res.
fn renorm_method(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = parse(&a, "renorm", "([result,] tensor, p, dim, maxnorm)")?;
    let (dest, dim, p, maxnorm) = renorm_args(&c, &a)?;
    let x = c.x();
    if dest.is_none() {
        dispatch!(x.dtype, T => along::renorm::<T>(x, p, dim, maxnorm).named("renorm")?);
        return receiver(&a);
    }
    let fresh = clone_tensor(x)?;
    dispatch!(x.dtype, T => along::renorm::<T>(&fresh, p, dim, maxnorm).named("renorm")?);
    one(deliver(lua, dest, fresh, "renorm")?)
}

/// `torch.renorm([res,] x, p, dim, maxnorm)`: a new tensor unless res is given.
fn renorm_function(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = parse(&a, "renorm", "([result,] tensor, p, dim, maxnorm)")?;
    let (dest, dim, p, maxnorm) = renorm_args(&c, &a)?;
    let x = c.x();
    let fresh = clone_tensor(x)?;
    dispatch!(x.dtype, T => along::renorm::<T>(&fresh, p, dim, maxnorm).named("renorm")?);
    one(deliver(lua, dest, fresh, "renorm")?)
}

pub fn install(lua: &Lua, tensor: &Table, functions: &Table) -> Result<()> {
    // The same argument forms serve `x:f(...)` and `torch.f(...)`: these methods never work in
    // place on their receiver.
    for t in [tensor, functions] {
        add(lua, t, "sum", |lua, a| sum_like(lua, a, "sum", SumKind::Sum))?;
        add(lua, t, "prod", |lua, a| sum_like(lua, a, "prod", SumKind::Prod))?;
        add(lua, t, "mean", |lua, a| sum_like(lua, a, "mean", SumKind::Mean))?;
        add(lua, t, "max", |lua, a| extreme(lua, a, "max", true))?;
        add(lua, t, "min", |lua, a| extreme(lua, a, "min", false))?;
        add(lua, t, "var", |lua, a| var_like(lua, a, "var", false))?;
        add(lua, t, "std", |lua, a| var_like(lua, a, "std", true))?;
        add(lua, t, "norm", norm)?;
        add(lua, t, "dist", dist_method)?;
        add(lua, t, "all", |_, a| logical(a, "all", false))?;
        add(lua, t, "any", |_, a| logical(a, "any", true))?;
        add(lua, t, "cumsum", |lua, a| cumulative(lua, a, "cumsum", false))?;
        add(lua, t, "cumprod", |lua, a| cumulative(lua, a, "cumprod", true))?;
        add(lua, t, "sort", sort_method)?;
        add(lua, t, "topk", topk_method)?;
        add(lua, t, "kthvalue", kthvalue_method)?;
        add(lua, t, "median", |lua, a| median_mode(lua, a, "median", false))?;
        add(lua, t, "mode", |lua, a| median_mode(lua, a, "mode", true))?;
    }
    add(lua, tensor, "renorm", renorm_method)?;
    add(lua, functions, "renorm", renorm_function)?;
    Ok(())
}
