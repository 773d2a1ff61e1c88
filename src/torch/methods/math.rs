//! Elementwise maths and comparisons, in Torch's three calling forms: `x:f(...)` works in place on
//! x, `res:f(x, ...)` writes into res, and `torch.f(...)` returns a new tensor (or writes into a
//! leading result tensor). The forms, and what each computes, are in `forms::table`, and
//! `methods::ops` installs these functions for what they compute; the operators
//! (`+`, `*`, ...) are in `lua/torch/math.lua`, on top of these; the loops are `kernels::math`.

use mlua::{Lua, MultiValue, Result, Value};

use super::convention::one;
use crate::args::{Args, number};
use crate::error::Named;
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::construct;
use crate::torch::forms::bind::{Bound, Dest, Mode, bind};
use crate::torch::forms::computes::Computes;
use crate::torch::forms::table::Entry;
use crate::torch::kernels::arith::Float;
use crate::torch::kernels::math::{self as kernel, Operand, Unary};
use crate::torch::userdata::{Host, push_tensor, set_view};
use smallvec::SmallVec;
use std::borrow::Cow;

/// Whether it exists for Float and Double only.
fn float_only(c: Computes) -> bool {
    match c {
        Computes::Unary(u) => !u.integer_ok(),
        Computes::Atan2 | Computes::Lerp => true,
        _ => false,
    }
}

/// Whether it exists for the integer types only.
fn integer_only(c: Computes) -> bool {
    matches!(c, Computes::WithValue(b) | Computes::WithTensor(b) if b.integer_only())
}

/// The value of `torch.f(numbers...)` for the functions Torch also defines on numbers.
fn on_numbers(e: &Entry, x: &[f64]) -> Option<f64> {
    match (e.forms[0].computes, x) {
        (Computes::Unary(u), &[v]) if u != Unary::Sign && u != Unary::Neg => Some(u.of_number(v)),
        (Computes::Atan2, &[y, x]) => Some(y.atan2(x)),
        (Computes::Pow, &[b, e]) => Some(b.powf(e)),
        (Computes::Lerp, &[a, b, w]) => Some(Float::lerp(a, b, w)),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Results.

fn new_like(d: DType, like: &Tensor, name: &str) -> Result<Tensor> {
    if like.dim() == 0 {
        return Ok(Tensor::empty(d));
    }
    Tensor::zeros(d, &like.size).named(name)
}

/// The result tensor, shaped like `like`: the caller's, resized in place (Torch's resizeAs), or
/// a new one of type `d`.
/// The caller's tensor is lent when it already has the shape (the common in-place call).
fn result_tensor<'a>(res: Option<&'a Dest>, d: DType, like: &Tensor, name: &str) -> Result<Cow<'a, Tensor>> {
    let Some((v, t)) = res else {
        return Ok(Cow::Owned(new_like(d, like, name)?));
    };
    if t.size == like.size && t.storage.is_some() {
        return Ok(Cow::Borrowed(t));
    }
    let mut t = t.clone();
    construct::resize(&mut t, &like.size).named(name)?;
    set_view(v, t.clone())?;
    Ok(Cow::Owned(t))
}

/// The Lua result: the caller's result tensor, or the new one.
fn give(lua: &Lua, res: Option<&Dest>, t: Cow<Tensor>) -> Result<MultiValue> {
    match res {
        Some((v, _)) => one(v.clone()),
        None => one(push_tensor(lua, t.into_owned())?),
    }
}

/// Runs a bound call into its result tensor `r`.
fn exec(computes: Computes, b: &Bound, a: &Tensor, r: &Tensor) -> crate::error::Result<()> {
    let t: SmallVec<[&Tensor; 2]> = b.tensors().collect();
    let v = b.values();
    match computes {
        Computes::Unary(u) => kernel::unary(u, r, a),
        Computes::WithValue(op) => kernel::with_value(op, r, a, v[0]),
        Computes::WithTensor(op) => kernel::with_tensor(op, r, a, t[0]),
        Computes::AddScaled { subtract } => kernel::add_scaled(subtract, r, a, v[0], t[0]),
        Computes::Pow => kernel::pow(r, a, v[0]),
        Computes::ValuePow => kernel::value_pow(r, a, v[0]),
        Computes::Atan2 => kernel::atan2(r, a, t[0]),
        Computes::Lerp => kernel::lerp(r, a, t[0], v[0]),
        Computes::Clamp => kernel::clamp(r, a, v[0], v[1]),
        Computes::AddProduct { divide } => kernel::add_product(divide, r, a, v[0], t[0], t[1]),
        c => unreachable!("{c:?} is not elementwise"),
    }
}

/// The Lua entry point of an elementwise op.
pub(super) fn elementwise(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let name = e.name;
    if mode == Mode::Function && !a.is_empty() && a.iter().all(|v| number(v).is_some()) {
        let xs: Vec<f64> = a.iter().filter_map(number).collect();
        if let Some(v) = on_numbers(e, &xs) {
            return one(Value::Number(v));
        }
    }
    let b = bind::<Host>(&a, mode, e)?;
    let computes = b.computes();
    let src = b.source().expect("every elementwise form has a source");
    if float_only(computes) && !src.dtype.is_floating() {
        return Err(kernel::not_floating(src.dtype)).named(name);
    }
    if integer_only(computes) && src.dtype.is_floating() {
        return Err(kernel::not_integer(src.dtype)).named(name);
    }
    for t in b.tensors() {
        kernel::check_numel(src, t).named(name)?;
    }
    let res = b.result();
    let r = result_tensor(res, src.dtype, src, name)?;
    exec(computes, &b, src, &r).named(name)?;
    give(lua, res, r)
}

// ---------------------------------------------------------------------------------------------
// Comparisons and equality.

/// lt/le/gt/ge/eq/ne, the same in both modes: `(src, other)` gives a new ByteTensor and
/// `(res, src, other)` fills res, a ByteTensor or a tensor of src's type.
pub(super) fn comparison(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let name = e.name;
    let b = bind::<Host>(&a, mode, e)?;
    let Computes::Compare(c) = b.computes() else {
        unreachable!("a comparison form")
    };
    let src = b.source().expect("every comparison form has a source");
    let other = match (b.tensor(0), b.number(0)) {
        (Some(t), _) => Operand::Tensor(t),
        (None, Some(v)) => Operand::Value(v),
        (None, None) => unreachable!("a comparison has an operand"),
    };
    if let Operand::Tensor(t) = &other {
        kernel::check_numel(src, t).named(name)?;
    }
    let res = b.result();
    let rd = res.map_or(DType::Byte, |(_, t)| t.dtype);
    let r = result_tensor(res, rd, src, name)?;
    kernel::compare_into(c, &r, src, &other).named(name)?;
    give(lua, res, r)
}

/// `torch.equal(a, b)` / `a:equal(b)`: same size and the same values (or two equal numbers).
pub(super) fn equal(_: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let b = bind::<Host>(&a, mode, e)?;
    if b.computes() == Computes::EqualNumbers {
        let v = b.values();
        return one(Value::Boolean(v[0] == v[1]));
    }
    let (x, y) = (b.source().expect("a tensor"), b.tensor(0).expect("a tensor"));
    one(Value::Boolean(kernel::equal(x, y).named(e.name)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::forms::table::entry;

    #[test]
    fn number_forms() {
        assert_eq!(on_numbers(entry("sqrt"), &[4.0]), Some(2.0));
        assert_eq!(on_numbers(entry("abs"), &[-3.0]), Some(3.0));
        assert_eq!(on_numbers(entry("sign"), &[-3.0]), None);
        assert_eq!(on_numbers(entry("pow"), &[2.0, 10.0]), Some(1024.0));
        assert_eq!(on_numbers(entry("lerp"), &[1.0, 3.0, 0.5]), Some(2.0));
        assert_eq!(on_numbers(entry("mul"), &[1.0, 3.0]), None);
    }
}
