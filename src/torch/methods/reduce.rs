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
//! The forms, and what each computes, are in `forms::table`; `methods::ops` installs these
//! functions for what they compute; the loops are `kernels::reduce`.

use mlua::{Lua, MultiValue, Result, Value};

use super::convention::{one, receiver};
use super::copy::{clone_tensor, copy_into};
use crate::args::{self, Args, error};
use crate::dispatch_math;
use crate::error::Named;
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::construct;
use crate::torch::forms::bind::{Bound, Dest, Mode, bind};
use crate::torch::forms::computes::{Computes, Order, Reduction};
use crate::torch::forms::table::Entry;
use crate::torch::kernels::reduce::along::{self, SumKind};
use crate::torch::kernels::reduce::histogram;
use crate::torch::kernels::reduce::sort::{self, Pick};
use crate::torch::kernels::reduce::{extreme, whole};
use crate::torch::userdata::{Host, push_tensor, set_view};

use crate::args::integer;

// ------------------------------------------------------------------------------------------------
// Arguments

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
// Methods: each binds the call (these never work in place on their receiver: `x:f(...)` is
// `torch.f(x, ...)`, renorm's method apart) and does what the bound form computes.

/// The half types have no maths.
fn no_half(method: &str) -> mlua::Error {
    crate::torch::base::dtype::no_half_math().named(method)
}

/// sum, prod, mean, max, min, var, std, norm: of the whole tensor (a number) or along a dimension.
pub(super) fn reduction(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let method = e.name;
    let b = bind::<Host>(&a, mode, e)?;
    match b.computes() {
        Computes::Whole(r) => number(whole_tensor(&b, r, method)?),
        Computes::Along(r) => along_dim(lua, &b, r, method),
        c => unreachable!("{method}: {c:?} is not a reduction"),
    }
}

/// Reduction `r` of every element of the bound call's source.
fn whole_tensor(b: &Bound, r: Reduction, method: &str) -> Result<f64> {
    let x = src(b);
    Ok(match r {
        Reduction::Sum | Reduction::Prod => {
            let prod = r == Reduction::Prod;
            dispatch_math!(x.dtype, T => whole::sum_all::<T>(x, prod).named(method)?, half => return Err(no_half(method)))
        }
        Reduction::Mean => {
            float_only(x, method)?;
            if x.numel() == 0 {
                return Err(error(method, "empty tensor"));
            }
            let total = dispatch_math!(x.dtype, T => whole::sum_all::<T>(x, false).named(method)?, half => return Err(no_half(method)));
            total / x.numel() as f64
        }
        Reduction::Max => {
            dispatch_math!(x.dtype, T => extreme::extreme_all::<T, true>(x).named(method)?, half => return Err(no_half(method)))
        }
        Reduction::Min => {
            dispatch_math!(x.dtype, T => extreme::extreme_all::<T, false>(x).named(method)?, half => return Err(no_half(method)))
        }
        Reduction::Var | Reduction::Std => {
            float_only(x, method)?;
            let biased = b.boolean(0);
            let v = dispatch_math!(x.dtype, T => whole::var_all::<T>(x, biased).named(method)?, half => return Err(no_half(method)));
            if r == Reduction::Std { v.sqrt() } else { v }
        }
        Reduction::Norm => {
            float_only(x, method)?;
            let p = num(b, 0).expect("p or its default");
            dispatch_math!(x.dtype, T => whole::norm_all::<T>(x, p).named(method)?, half => return Err(no_half(method)))
        }
    })
}

/// Reduction `r` of the bound call's source along its dimension, into the result given or a new
/// tensor (max and min: the values and the indices).
fn along_dim(lua: &Lua, b: &Bound, r: Reduction, method: &str) -> Result<MultiValue> {
    let x = src(b);
    if matches!(r, Reduction::Mean | Reduction::Var | Reduction::Std | Reduction::Norm) {
        float_only(x, method)?;
    }
    if let Reduction::Max | Reduction::Min = r {
        pair_dests(b.results(), x.dtype, method)?;
        let dim = dim_of(num(b, 0).expect("a dimension"), x, method)?;
        let values = dispatch_math!(x.dtype, T => if r == Reduction::Max {
            extreme::extreme_dim::<T, true>(x, dim).named(method)?
        } else {
            extreme::extreme_dim::<T, false>(x, dim).named(method)?
        }, half => return Err(no_half(method)));
        return two(lua, b, x, values, method);
    }
    let dest = b.result();
    check_type(dest, x.dtype, method, "the result")?;
    // The norm's p comes before its dimension.
    let (p, at) = match r {
        Reduction::Norm => (num(b, 0).expect("p or its default"), 1),
        _ => (0.0, 0),
    };
    let dim = dim_of(num(b, at).expect("a dimension"), x, method)?;
    let out = dispatch_math!(x.dtype, T => match r {
        Reduction::Sum => along::sum_dim::<T>(x, dim, SumKind::Sum),
        Reduction::Prod => along::sum_dim::<T>(x, dim, SumKind::Prod),
        Reduction::Mean => along::sum_dim::<T>(x, dim, SumKind::Mean),
        Reduction::Var | Reduction::Std => along::var_dim::<T>(x, dim, b.boolean(0), r == Reduction::Std),
        Reduction::Norm => along::norm_dim::<T>(x, p, dim),
        Reduction::Max | Reduction::Min => unreachable!("with the indices above"),
    }.named(method)?, half => return Err(no_half(method)));
    one(deliver(lua, dest, out, method)?)
}

/// dist: the p-norm of the difference of two tensors.
pub(super) fn dist(_: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let method = e.name;
    let b = bind::<Host>(&a, mode, e)?;
    let x = src(&b);
    let y = b.tensor(0).expect("the other tensor");
    float_only(x, method)?;
    if y.dtype != x.dtype {
        return Err(error(
            method,
            format!(
                "expected a {}, got a {}",
                x.dtype.tensor_typename(),
                y.dtype.tensor_typename()
            ),
        ));
    }
    let p = num(&b, 0).expect("p or its default");
    number(dispatch_math!(x.dtype, T => whole::dist::<T>(x, y, p).named(method)?, half => return Err(no_half(method))))
}

/// all, any: of a ByteTensor, as in Torch.
pub(super) fn logical(_: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let method = e.name;
    let b = bind::<Host>(&a, mode, e)?;
    let Computes::Logical { any } = b.computes() else {
        unreachable!("{method}: not all or any")
    };
    let x = src(&b);
    if x.dtype != DType::Byte {
        return Err(error(
            method,
            format!("only defined for torch.ByteTensor, got a {}", x.dtype.tensor_typename()),
        ));
    }
    one(Value::Boolean(whole::logical_all(x, any).named(method)?))
}

/// cumsum, cumprod: along a dimension, the first by default.
pub(super) fn scan(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let method = e.name;
    let b = bind::<Host>(&a, mode, e)?;
    let Computes::Scan { product } = b.computes() else {
        unreachable!("{method}: not a scan")
    };
    let x = src(&b);
    let dest = b.result();
    check_type(dest, x.dtype, method, "the result")?;
    let dim = dim_of(num(&b, 0).unwrap_or(1.0), x, method)?;
    let r = dispatch_math!(x.dtype, T => along::cumulate::<T>(x, dim, product).named(method)?, half => return Err(no_half(method)));
    one(deliver(lua, dest, r, method)?)
}

/// `torch.histc([res,] x [, nbins [, min, max]])` and `torch.bhistc(...)` (one histogram per
/// row of a matrix), Float and Double only as in Torch.
pub(super) fn histogram(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let method = e.name;
    let b = bind::<Host>(&a, mode, e)?;
    let Computes::Histogram { rows } = b.computes() else {
        unreachable!("{method}: not a histogram")
    };
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

/// k within a dimension of `len`.
fn k_within(k: i64, len: usize, method: &str) -> Result<usize> {
    if k < 1 || k as usize > len {
        return Err(error(
            method,
            format!("k ({k}) out of range for a dimension of size {len}"),
        ));
    }
    Ok(k as usize)
}

/// sort, topk, kthvalue, median, mode: the values and the indices of each lane along a
/// dimension (the last by default).
pub(super) fn order(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let method = e.name;
    let b = bind::<Host>(&a, mode, e)?;
    let Computes::Order(order) = b.computes() else {
        unreachable!("{method}: not an order statistic")
    };
    let x = src(&b);
    pair_dests(b.results(), x.dtype, method)?;
    // The lane's dimension, its window (how many elements each lane keeps), whether in
    // decreasing order, and which elements.
    let (dim, window, desc, pick) = match order {
        Order::Sort => {
            let dim = dim_or_last(&b, 0, x, method)?;
            (dim, x.size[dim], b.boolean(0), Pick::Sort)
        }
        Order::TopK => {
            // k an integer before the dimension is read, then k within it.
            let k = integer(num(&b, 0).expect("k or its default"), method, "k")?;
            let dim = dim_or_last(&b, 1, x, method)?;
            let k = k_within(k, x.size[dim], method)?;
            (dim, k, b.boolean(0), Pick::First(k))
        }
        Order::KthValue => {
            let k = integer(num(&b, 0).expect("k"), method, "k")?;
            let dim = dim_or_last(&b, 1, x, method)?;
            let k = k_within(k, x.size[dim], method)?;
            (dim, 1, false, Pick::Kth(k))
        }
        Order::Median | Order::Mode => {
            let dim = dim_or_last(&b, 0, x, method)?;
            if x.size[dim] == 0 {
                return Err(error(method, "cannot reduce a dimension of size 0"));
            }
            // The median is the lower one: element (n+1)/2 of the sorted lane.
            let pick = if order == Order::Mode {
                Pick::Mode
            } else {
                Pick::Kth(x.size[dim].div_ceil(2))
            };
            (dim, 1, false, pick)
        }
    };
    let r = dispatch_math!(x.dtype, T => sort::per_lane::<T>(x, dim, window, desc, pick).named(method)?, half => return Err(no_half(method)));
    two(lua, &b, x, r, method)
}

/// renorm: `x:renorm(p, dim, maxnorm)` works on x; `res:renorm(x, p, dim, maxnorm)` writes into
/// res, and `torch.renorm([res,] x, p, dim, maxnorm)` into res or a new tensor.
pub(super) fn renorm(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let method = e.name;
    let b = bind::<Host>(&a, mode, e)?;
    let x = src(&b);
    float_only(x, method)?;
    let dest = b.result();
    check_type(dest, x.dtype, method, "the result")?;
    let nums = b.values();
    let p = nums[0];
    if p.is_nan() || p <= 0.0 {
        return Err(error(method, format!("non-positive norm not supported (p = {p})")));
    }
    if x.dim() < 2 {
        return Err(error(
            method,
            format!("need at least 2 dimensions, got {} dimensions", x.dim()),
        ));
    }
    let (dim, maxnorm) = (dim_of(nums[1], x, method)?, nums[2]);
    if mode == Mode::Method && dest.is_none() {
        dispatch_math!(x.dtype, T => along::renorm::<T>(x, p, dim, maxnorm).named(method)?, half => return Err(no_half(method)));
        return receiver(&a);
    }
    let fresh = clone_tensor(x)?;
    dispatch_math!(x.dtype, T => along::renorm::<T>(&fresh, p, dim, maxnorm).named(method)?, half => return Err(no_half(method)));
    one(deliver(lua, dest, fresh, method)?)
}
