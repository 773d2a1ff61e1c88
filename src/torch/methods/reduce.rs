//! Reductions (sum, prod, mean, max, min, var, std, norm, dist, all, any), cumulative ops (cumsum,
//! cumprod), renorm, histograms (histc, bhistc), and the order statistics (sort, topk, kthvalue,
//! median, mode): tensor methods and `torch.*` functions with Torch7's argument forms (as its
//! cwrap declarations resolve them) and results.
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
//! The forms are in `forms::table`; the loops are `kernels::reduce`.

use mlua::{Lua, MultiValue, Result, Table, Value};

use super::convention::{add, one, receiver};
use super::copy::{clone_tensor, copy_into};
use crate::dispatch_math;
use crate::error::Named;
use crate::torch::args::{self, Args, error};
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::construct;
use crate::torch::forms::bind::{Bound, Dest, Mode, bind};
use crate::torch::forms::table::entry;
use crate::torch::kernels::reduce::along::{self, SumKind};
use crate::torch::kernels::reduce::histogram;
use crate::torch::kernels::reduce::sort::{self, Pick};
use crate::torch::kernels::reduce::{extreme, whole};
use crate::torch::userdata::{Host, push_tensor, set_view};

use crate::torch::args::integer;

// ------------------------------------------------------------------------------------------------
// Arguments

/// The call bound to a form of `method` (these methods never work in place on their receiver:
/// `x:f(...)` is `torch.f(x, ...)`), and its source tensor.
fn parse(a: &Args, method: &str) -> Result<Bound> {
    bind::<Host>(a, Mode::Function, entry(method))
}

/// The source tensor of a bound reduction.
fn src(b: &Bound) -> &Tensor {
    b.source().expect("every reduction form has a source")
}

/// The number parameter `i` of the bound form (given, or its default).
fn num(b: &Bound, i: usize) -> Option<f64> {
    b.number(i)
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
fn pair_dests<'a>(
    mut results: impl Iterator<Item = &'a Dest>,
    dtype: DType,
    method: &str,
) -> Result<(Option<&'a Dest>, Option<&'a Dest>)> {
    let (v, i) = match (results.next(), results.next()) {
        (None, _) => (None, None),
        // One result tensor: the values if it has x's type, else the indices.
        (Some(d), None) if d.1.dtype == dtype => (Some(d), None),
        (Some(d), None) => (None, Some(d)),
        (Some(v), Some(i)) => (Some(v), Some(i)),
    };
    check_type(v, dtype, method, "the values result")?;
    check_type(i, DType::Long, method, "the indices result")?;
    Ok((v, i))
}

fn two(lua: &Lua, b: &Bound, x: &Tensor, (vals, idx): (Tensor, Tensor), method: &str) -> Result<MultiValue> {
    let (dv, di) = pair_dests(b.results(), x.dtype, method)?;
    let v = deliver(lua, dv, vals, method)?;
    let i = deliver(lua, di, idx, method)?;
    Ok(MultiValue::from_vec(vec![v, i]))
}

fn number(v: f64) -> Result<MultiValue> {
    one(Value::Number(v))
}

/// The dimension at number parameter `i`, or the last one when it is left out.
fn dim_or_last(b: &Bound, i: usize, x: &Tensor, method: &str) -> Result<usize> {
    match num(b, i) {
        Some(d) => dim_of(d, x, method),
        None => last_dim(x, method),
    }
}

// ------------------------------------------------------------------------------------------------
// Methods

fn sum_like(lua: &Lua, a: Args, method: &str, kind: SumKind) -> Result<MultiValue> {
    let b = parse(&a, method)?;
    let x = src(&b);
    if kind == SumKind::Mean {
        float_only(x, method)?;
    }
    if b.form == 0 {
        let v = dispatch_math!(x.dtype, T => match kind {
            SumKind::Prod => whole::sum_all::<T>(x, true).named(method)?,
            SumKind::Sum => whole::sum_all::<T>(x, false).named(method)?,
            SumKind::Mean => {
                if x.numel() == 0 {
                    return Err(error(method, "empty tensor"));
                }
                whole::sum_all::<T>(x, false).named(method)? / x.numel() as f64
            }
        }, half => return Err(crate::torch::base::dtype::no_half_math().named(method)));
        return number(v);
    }
    let dest = b.result();
    check_type(dest, x.dtype, method, "the result")?;
    let dim = dim_of(num(&b, 0).expect("a dimension"), x, method)?;
    let r = dispatch_math!(x.dtype, T => along::sum_dim::<T>(x, dim, kind).named(method)?, half => return Err(crate::torch::base::dtype::no_half_math().named(method)));
    one(deliver(lua, dest, r, method)?)
}

fn extreme(lua: &Lua, a: Args, method: &str, max: bool) -> Result<MultiValue> {
    let b = parse(&a, method)?;
    let x = src(&b);
    if b.form == 0 {
        return number(dispatch_math!(x.dtype, T => if max {
            extreme::extreme_all::<T, true>(x).named(method)?
        } else {
            extreme::extreme_all::<T, false>(x).named(method)?
        }, half => return Err(crate::torch::base::dtype::no_half_math().named(method))));
    }
    pair_dests(b.results(), x.dtype, method)?;
    let dim = dim_of(num(&b, 0).expect("a dimension"), x, method)?;
    let r = dispatch_math!(x.dtype, T => if max {
        extreme::extreme_dim::<T, true>(x, dim).named(method)?
    } else {
        extreme::extreme_dim::<T, false>(x, dim).named(method)?
    }, half => return Err(crate::torch::base::dtype::no_half_math().named(method)));
    two(lua, &b, x, r, method)
}

fn var_like(lua: &Lua, a: Args, method: &str, std: bool) -> Result<MultiValue> {
    let b = parse(&a, method)?;
    let x = src(&b);
    float_only(x, method)?;
    let biased = b.boolean(0);
    if b.form == 0 {
        let v = dispatch_math!(x.dtype, T => whole::var_all::<T>(x, biased).named(method)?, half => return Err(crate::torch::base::dtype::no_half_math().named(method)));
        return number(if std { v.sqrt() } else { v });
    }
    let dest = b.result();
    check_type(dest, x.dtype, method, "the result")?;
    let dim = dim_of(num(&b, 0).expect("a dimension"), x, method)?;
    let r = dispatch_math!(x.dtype, T => along::var_dim::<T>(x, dim, biased, std).named(method)?, half => return Err(crate::torch::base::dtype::no_half_math().named(method)));
    one(deliver(lua, dest, r, method)?)
}

fn norm(lua: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "norm";
    let b = parse(&a, METHOD)?;
    let x = src(&b);
    float_only(x, METHOD)?;
    let p = num(&b, 0).expect("p or its default");
    if b.form == 0 {
        return number(
            dispatch_math!(x.dtype, T => whole::norm_all::<T>(x, p).named(METHOD)?, half => return Err(crate::torch::base::dtype::no_half_math().named(METHOD))),
        );
    }
    let dest = b.result();
    check_type(dest, x.dtype, METHOD, "the result")?;
    let dim = dim_of(num(&b, 1).expect("a dimension"), x, METHOD)?;
    let r = dispatch_math!(x.dtype, T => along::norm_dim::<T>(x, p, dim).named(METHOD)?, half => return Err(crate::torch::base::dtype::no_half_math().named(METHOD)));
    one(deliver(lua, dest, r, METHOD)?)
}

fn dist_method(_: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "dist";
    let b = parse(&a, METHOD)?;
    let x = src(&b);
    let y = b.tensor(0).expect("the other tensor");
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
    let p = num(&b, 0).expect("p or its default");
    number(
        dispatch_math!(x.dtype, T => whole::dist::<T>(x, y, p).named(METHOD)?, half => return Err(crate::torch::base::dtype::no_half_math().named(METHOD))),
    )
}

fn logical(a: Args, method: &str, any: bool) -> Result<MultiValue> {
    let b = parse(&a, method)?;
    let x = src(&b);
    if x.dtype != DType::Byte {
        return Err(error(
            method,
            format!("only defined for torch.ByteTensor, got a {}", x.dtype.tensor_typename()),
        ));
    }
    one(Value::Boolean(whole::logical_all(x, any).named(method)?))
}

fn cumulative(lua: &Lua, a: Args, method: &str, prod: bool) -> Result<MultiValue> {
    let b = parse(&a, method)?;
    let x = src(&b);
    let dest = b.result();
    check_type(dest, x.dtype, method, "the result")?;
    let dim = dim_of(num(&b, 0).unwrap_or(1.0), x, method)?;
    let r = dispatch_math!(x.dtype, T => along::cumulate::<T>(x, dim, prod).named(method)?, half => return Err(crate::torch::base::dtype::no_half_math().named(method)));
    one(deliver(lua, dest, r, method)?)
}

/// `torch.histc([res,] x [, nbins [, min, max]])` and `torch.bhistc(...)` (one histogram per
/// row of a matrix), Float and Double only as in Torch.
fn histogram(lua: &Lua, a: Args, method: &str, rows: bool) -> Result<MultiValue> {
    let b = parse(&a, method)?;
    let x = src(&b);
    float_only(x, method)?;
    let dest = b.result();
    check_type(dest, x.dtype, method, "the result")?;
    let (n, lo, hi) = (
        num(&b, 0).unwrap_or(100.0),
        num(&b, 1).unwrap_or(0.0),
        num(&b, 2).unwrap_or(0.0),
    );
    let r = match (x.dtype, rows) {
        (DType::Float, false) => histogram::histc::<f32>(x, n, lo, hi),
        (DType::Float, true) => histogram::bhistc::<f32>(x, n, lo, hi),
        (_, false) => histogram::histc::<f64>(x, n, lo, hi),
        (_, true) => histogram::bhistc::<f64>(x, n, lo, hi),
    }
    .named(method)?;
    one(deliver(lua, dest, r, method)?)
}

fn sort_method(lua: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "sort";
    let b = parse(&a, METHOD)?;
    let x = src(&b);
    pair_dests(b.results(), x.dtype, METHOD)?;
    let dim = dim_or_last(&b, 0, x, METHOD)?;
    let desc = b.boolean(0);
    let r = dispatch_math!(x.dtype, T => sort::per_lane::<T>(x, dim, x.size[dim], desc, Pick::Sort).named(METHOD)?, half => return Err(crate::torch::base::dtype::no_half_math().named(METHOD)));
    two(lua, &b, x, r, METHOD)
}

fn topk_method(lua: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "topk";
    let b = parse(&a, METHOD)?;
    let x = src(&b);
    pair_dests(b.results(), x.dtype, METHOD)?;
    let k = integer(num(&b, 0).expect("k or its default"), METHOD, "k")?;
    let dim = dim_or_last(&b, 1, x, METHOD)?;
    if k < 1 || k as usize > x.size[dim] {
        return Err(error(
            METHOD,
            format!("k ({k}) out of range for a dimension of size {}", x.size[dim]),
        ));
    }
    let largest = b.boolean(0);
    let k = k as usize;
    let r = dispatch_math!(x.dtype, T => sort::per_lane::<T>(x, dim, k, largest, Pick::First(k)).named(METHOD)?, half => return Err(crate::torch::base::dtype::no_half_math().named("topk")));
    two(lua, &b, x, r, METHOD)
}

fn kthvalue_method(lua: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "kthvalue";
    let b = parse(&a, METHOD)?;
    let x = src(&b);
    pair_dests(b.results(), x.dtype, METHOD)?;
    let k = integer(num(&b, 0).expect("k"), METHOD, "k")?;
    let dim = dim_or_last(&b, 1, x, METHOD)?;
    if k < 1 || k as usize > x.size[dim] {
        return Err(error(
            METHOD,
            format!("k ({k}) out of range for a dimension of size {}", x.size[dim]),
        ));
    }
    let k = k as usize;
    let r = dispatch_math!(x.dtype, T => sort::per_lane::<T>(x, dim, 1, false, Pick::Kth(k)).named(METHOD)?, half => return Err(crate::torch::base::dtype::no_half_math().named("kthvalue")));
    two(lua, &b, x, r, METHOD)
}

fn median_mode(lua: &Lua, a: Args, method: &str, is_mode: bool) -> Result<MultiValue> {
    let b = parse(&a, method)?;
    let x = src(&b);
    pair_dests(b.results(), x.dtype, method)?;
    let dim = dim_or_last(&b, 0, x, method)?;
    if x.size[dim] == 0 {
        return Err(error(method, "cannot reduce a dimension of size 0"));
    }
    // The median is the lower one: element (n+1)/2 of the sorted lane.
    let pick = if is_mode {
        Pick::Mode
    } else {
        Pick::Kth(x.size[dim].div_ceil(2))
    };
    let r = dispatch_math!(x.dtype, T => sort::per_lane::<T>(x, dim, 1, false, pick).named(method)?, half => return Err(crate::torch::base::dtype::no_half_math().named(method)));
    two(lua, &b, x, r, method)
}

/// `renorm` arguments: `[result,] tensor, p, dim, maxnorm` -> (result, source, dim, p, maxnorm).
fn renorm_args(a: &Args) -> Result<(Option<Dest>, Tensor, usize, f64, f64)> {
    const METHOD: &str = "renorm";
    let b = parse(a, METHOD)?;
    let x = src(&b);
    float_only(x, METHOD)?;
    let dest = b.result();
    check_type(dest, x.dtype, METHOD, "the result")?;
    let nums = b.values();
    let p = nums[0];
    if p.is_nan() || p <= 0.0 {
        return Err(error(METHOD, format!("non-positive norm not supported (p = {p})")));
    }
    if x.dim() < 2 {
        return Err(error(
            METHOD,
            format!("need at least 2 dimensions, got {} dimensions", x.dim()),
        ));
    }
    let dim = dim_of(nums[1], x, METHOD)?;
    Ok((dest.cloned(), x.clone(), dim, p, nums[2]))
}

/// `x:renorm(p, dim, maxnorm)` works on x; `res:renorm(x, p, dim, maxnorm)` writes into res.
fn renorm_method(lua: &Lua, a: Args) -> Result<MultiValue> {
    let (dest, x, dim, p, maxnorm) = renorm_args(&a)?;
    if dest.is_none() {
        dispatch_math!(x.dtype, T => along::renorm::<T>(&x, p, dim, maxnorm).named("renorm")?, half => return Err(crate::torch::base::dtype::no_half_math().named("renorm")));
        return receiver(&a);
    }
    let fresh = clone_tensor(&x)?;
    dispatch_math!(x.dtype, T => along::renorm::<T>(&fresh, p, dim, maxnorm).named("renorm")?, half => return Err(crate::torch::base::dtype::no_half_math().named("renorm")));
    one(deliver(lua, dest.as_ref(), fresh, "renorm")?)
}

/// `torch.renorm([res,] x, p, dim, maxnorm)`: a new tensor unless res is given.
fn renorm_function(lua: &Lua, a: Args) -> Result<MultiValue> {
    let (dest, x, dim, p, maxnorm) = renorm_args(&a)?;
    let fresh = clone_tensor(&x)?;
    dispatch_math!(x.dtype, T => along::renorm::<T>(&fresh, p, dim, maxnorm).named("renorm")?, half => return Err(crate::torch::base::dtype::no_half_math().named("renorm")));
    one(deliver(lua, dest.as_ref(), fresh, "renorm")?)
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
        add(lua, t, "histc", |lua, a| histogram(lua, a, "histc", false))?;
        add(lua, t, "bhistc", |lua, a| histogram(lua, a, "bhistc", true))?;
    }
    add(lua, tensor, "renorm", renorm_method)?;
    add(lua, functions, "renorm", renorm_function)?;
    Ok(())
}
