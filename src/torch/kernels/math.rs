//! Elementwise maths and comparisons on tensors of the same element count (their shapes may
//! differ: elements pair up in logical order). Each kernel writes into a result tensor `r` the
//! caller has shaped, and is monomorphised per element type and per operation, so that the hot
//! loops (`elementwise::run*`) contain no dispatch.

use super::arith::{Arith, Float};
use super::elementwise::{run1, run2, run3};
use super::strided::runs;
use crate::error::{Error, Result};
use crate::torch::base::dtype::{DType, Element};
use crate::torch::base::tensor::Tensor;
use crate::{dispatch, dispatch_math};

/// Unary functions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Unary {
    Sqrt,
    Rsqrt,
    Exp,
    Log,
    Log1p,
    Cinv,
    Floor,
    Ceil,
    Round,
    Trunc,
    Frac,
    Tanh,
    Sinh,
    Cosh,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sigmoid,
    Abs,
    Sign,
    Neg,
}

/// Binary functions, applied with a number or elementwise with a tensor.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Fmod,
    Remainder,
    Pow,
    Max,
    Min,
    /// Integers shift their bits; Float and Double multiply (divide) by a power of two.
    Lshift,
    Rshift,
    /// The integer types only.
    BitAnd,
    BitOr,
    BitXor,
}

impl Binary {
    /// Whether it exists for the integer types only (bitand, bitor, bitxor and their c- forms).
    pub fn integer_only(self) -> bool {
        matches!(self, Binary::BitAnd | Binary::BitOr | Binary::BitXor)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Compare {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Unary {
    /// Whether the integer types have it (the others are Float and Double only).
    pub fn integer_ok(self) -> bool {
        matches!(self, Unary::Abs | Unary::Sign | Unary::Neg)
    }

    /// The function on a Lua number.
    pub fn of_number(self, x: f64) -> f64 {
        float_unary(self, x)
    }
}

/// The operand after the source: a number or a tensor.
pub enum Operand<'a> {
    Value(f64),
    Tensor(&'a Tensor),
}

/// "inconsistent tensor size" unless `a` and `b` have the same number of elements.
pub fn check_numel(a: &Tensor, b: &Tensor) -> Result<()> {
    if a.numel() != b.numel() {
        return Err(Error::shape(format!(
            "inconsistent tensor size: sizes {} and {} have {} and {} elements",
            size_text(a),
            size_text(b),
            a.numel(),
            b.numel()
        )));
    }
    Ok(())
}

fn size_text(t: &Tensor) -> String {
    if t.dim() == 0 {
        return "empty".into();
    }
    t.size.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("x")
}

/// The error of an integer-only operation (the bitwise ones) on Float or Double.
pub fn not_integer(d: DType) -> Error {
    Error::dtype(format!(
        "only supported for integer type tensors, not {}",
        d.tensor_typename()
    ))
}

/// The error of a Float/Double-only operation on another type.
pub fn not_floating(d: DType) -> Error {
    Error::dtype(format!(
        "not supported for {} (only torch.FloatTensor and torch.DoubleTensor)",
        d.tensor_typename()
    ))
}

/// The element pointer of a view, checked to lie inside its storage.
fn data<T: Element>(t: &Tensor) -> Result<*mut T> {
    if t.numel() == 0 {
        return Ok(std::ptr::NonNull::dangling().as_ptr());
    }
    Ok(t.storage_checked()?.ptr::<T>())
}

/// `r = f(a)` elementwise.
fn map1<A: Element, R: Element>(r: &Tensor, a: &Tensor, f: impl Fn(A) -> R) -> Result<()> {
    let (rp, ap) = (data::<R>(r)?, data::<A>(a)?);
    // SAFETY: both views are checked against their storages; runs stay inside the views.
    runs([r, a], |n, o, s| unsafe {
        run1(n, rp.add(o[0]), s[0], ap.add(o[1]), s[1], &f)
    });
    Ok(())
}

/// `r = f(a, b)` elementwise.
fn map2<A: Element, R: Element>(r: &Tensor, a: &Tensor, b: &Tensor, f: impl Fn(A, A) -> R) -> Result<()> {
    let (rp, ap, bp) = (data::<R>(r)?, data::<A>(a)?, data::<A>(b)?);
    // SAFETY: as in map1.
    runs([r, a, b], |n, o, s| unsafe {
        run2(n, rp.add(o[0]), s[0], ap.add(o[1]), s[1], bp.add(o[2]), s[2], &f)
    });
    Ok(())
}

/// `r = f(a, b, c)` elementwise.
fn map3<T: Element>(r: &Tensor, a: &Tensor, b: &Tensor, c: &Tensor, f: impl Fn(T, T, T) -> T) -> Result<()> {
    let (rp, ap, bp, cp) = (data::<T>(r)?, data::<T>(a)?, data::<T>(b)?, data::<T>(c)?);
    // SAFETY: as in map1.
    runs([r, a, b, c], |n, o, s| unsafe {
        run3(
            n,
            rp.add(o[0]),
            s[0],
            ap.add(o[1]),
            s[1],
            bp.add(o[2]),
            s[2],
            cp.add(o[3]),
            s[3],
            &f,
        )
    });
    Ok(())
}

/// Integer division by zero would trap in C; here it is an error, raised before any element
/// changes.
fn check_divisor_value<T: Arith>(v: f64) -> Result<()> {
    if T::DTYPE.is_floating() || !T::from_lua(v).is_zero() {
        return Ok(());
    }
    Err(Error::argument("division by zero"))
}

fn check_divisor_tensor<T: Arith>(t: &Tensor) -> Result<()> {
    if T::DTYPE.is_floating() || t.numel() == 0 {
        return Ok(());
    }
    let p = data::<T>(t)?;
    let mut zero = false;
    runs([t], |n, o, s| {
        for i in 0..n {
            // SAFETY: offsets of a checked view.
            zero |= unsafe { *p.add(o[0] + i * s[0]) }.is_zero();
        }
    });
    if zero {
        return Err(Error::argument("division by zero"));
    }
    Ok(())
}

#[inline(always)]
fn float_unary<T: Float>(u: Unary, x: T) -> T {
    match u {
        Unary::Sqrt => x.sqrt(),
        Unary::Rsqrt => x.rsqrt(),
        Unary::Exp => x.exp(),
        Unary::Log => x.log(),
        Unary::Log1p => x.log1p(),
        Unary::Cinv => x.cinv(),
        Unary::Floor => x.floor(),
        Unary::Ceil => x.ceil(),
        Unary::Round => x.round(),
        Unary::Trunc => x.trunc(),
        Unary::Frac => x.frac(),
        Unary::Tanh => x.tanh(),
        Unary::Sinh => x.sinh(),
        Unary::Cosh => x.cosh(),
        Unary::Sin => x.sin(),
        Unary::Cos => x.cos(),
        Unary::Tan => x.tan(),
        Unary::Asin => x.asin(),
        Unary::Acos => x.acos(),
        Unary::Atan => x.atan(),
        Unary::Sigmoid => x.sigmoid(),
        Unary::Abs => x.abs(),
        Unary::Sign => x.sign(),
        Unary::Neg => x.neg(),
    }
}

/// The unary functions on Float/Double: one monomorphic loop per function.
fn unary_float<T: Float>(u: Unary, r: &Tensor, a: &Tensor) -> Result<()> {
    macro_rules! each {
        ($($v:ident),*) => {
            match u {
                $(Unary::$v => map1(r, a, |x: T| float_unary(Unary::$v, x)),)*
            }
        };
    }
    each!(
        Sqrt, Rsqrt, Exp, Log, Log1p, Cinv, Floor, Ceil, Round, Trunc, Frac, Tanh, Sinh, Cosh, Sin, Cos, Tan, Asin,
        Acos, Atan, Sigmoid, Abs, Sign, Neg
    )
}

fn unary_int<T: Arith>(u: Unary, r: &Tensor, a: &Tensor) -> Result<()> {
    match u {
        Unary::Abs => map1(r, a, |x: T| x.abs()),
        Unary::Sign => map1(r, a, |x: T| x.sign()),
        Unary::Neg => map1(r, a, |x: T| x.neg()),
        _ => Err(not_floating(T::DTYPE)),
    }
}

/// `r = u(a)`.
pub fn unary(u: Unary, r: &Tensor, a: &Tensor) -> Result<()> {
    match a.dtype {
        DType::Float => unary_float::<f32>(u, r, a),
        DType::Double => unary_float::<f64>(u, r, a),
        d => dispatch_math!(d, T => unary_int::<T>(u, r, a), half => Err(crate::torch::base::dtype::no_half_math())),
    }
}

#[inline(always)]
fn binary<T: Arith>(b: Binary, x: T, y: T) -> T {
    match b {
        Binary::Add => x.add(y),
        Binary::Sub => x.sub(y),
        Binary::Mul => x.mul(y),
        Binary::Div => x.div(y),
        Binary::Fmod => x.fmod(y),
        Binary::Remainder => x.remainder(y),
        Binary::Pow => x.pow(y),
        Binary::Max => x.max_of(y),
        Binary::Min => x.min_of(y),
        Binary::Lshift => x.shl(y),
        Binary::Rshift => x.shr(y),
        Binary::BitAnd => x.bit_and(y),
        Binary::BitOr => x.bit_or(y),
        Binary::BitXor => x.bit_xor(y),
    }
}

/// Runs `$body` with `$op` a constant of the binary function `$b`, so that each function gets a
/// loop of its own.
macro_rules! each_binary {
    ($b:expr, |$op:ident| $body:expr) => {
        match $b {
            Binary::Add => {
                const $op: Binary = Binary::Add;
                $body
            }
            Binary::Sub => {
                const $op: Binary = Binary::Sub;
                $body
            }
            Binary::Mul => {
                const $op: Binary = Binary::Mul;
                $body
            }
            Binary::Div => {
                const $op: Binary = Binary::Div;
                $body
            }
            Binary::Fmod => {
                const $op: Binary = Binary::Fmod;
                $body
            }
            Binary::Remainder => {
                const $op: Binary = Binary::Remainder;
                $body
            }
            Binary::Pow => {
                const $op: Binary = Binary::Pow;
                $body
            }
            Binary::Max => {
                const $op: Binary = Binary::Max;
                $body
            }
            Binary::Min => {
                const $op: Binary = Binary::Min;
                $body
            }
            Binary::Lshift => {
                const $op: Binary = Binary::Lshift;
                $body
            }
            Binary::Rshift => {
                const $op: Binary = Binary::Rshift;
                $body
            }
            Binary::BitAnd => {
                const $op: Binary = Binary::BitAnd;
                $body
            }
            Binary::BitOr => {
                const $op: Binary = Binary::BitOr;
                $body
            }
            Binary::BitXor => {
                const $op: Binary = Binary::BitXor;
                $body
            }
        }
    };
}

fn is_division(b: Binary) -> bool {
    matches!(b, Binary::Div | Binary::Fmod | Binary::Remainder)
}

fn with_value_typed<T: Arith>(b: Binary, r: &Tensor, a: &Tensor, v: f64) -> Result<()> {
    if b.integer_only() && T::DTYPE.is_floating() {
        return Err(not_integer(T::DTYPE));
    }
    if is_division(b) {
        check_divisor_value::<T>(v)?;
    }
    let v = T::from_lua(v);
    each_binary!(b, |OP| map1(r, a, |x: T| binary(OP, x, v)))
}

/// `r = a (op) v`.
pub fn with_value(b: Binary, r: &Tensor, a: &Tensor, v: f64) -> Result<()> {
    dispatch_math!(a.dtype, T => with_value_typed::<T>(b, r, a, v), half => Err(crate::torch::base::dtype::no_half_math()))
}

fn with_tensor_typed<T: Arith>(b: Binary, r: &Tensor, a: &Tensor, t: &Tensor) -> Result<()> {
    if b.integer_only() && T::DTYPE.is_floating() {
        return Err(not_integer(T::DTYPE));
    }
    if is_division(b) {
        check_divisor_tensor::<T>(t)?;
    }
    each_binary!(b, |OP| map2(r, a, t, |x: T, y: T| binary(OP, x, y)))
}

/// `r = a (op) t` elementwise.
pub fn with_tensor(b: Binary, r: &Tensor, a: &Tensor, t: &Tensor) -> Result<()> {
    dispatch_math!(a.dtype, T => with_tensor_typed::<T>(b, r, a, t), half => Err(crate::torch::base::dtype::no_half_math()))
}

fn add_scaled_typed<T: Arith>(subtract: bool, r: &Tensor, a: &Tensor, v: f64, t: &Tensor) -> Result<()> {
    let v = T::from_lua(v);
    match (subtract, v == T::one()) {
        (false, true) => map2(r, a, t, |x: T, y: T| x.add(y)),
        (true, true) => map2(r, a, t, |x: T, y: T| x.sub(y)),
        (false, false) => map2(r, a, t, |x: T, y: T| x.add(v.mul(y))),
        (true, false) => map2(r, a, t, |x: T, y: T| x.sub(v.mul(y))),
    }
}

/// `r = a + v * t` (or minus): Torch's cadd and csub.
pub fn add_scaled(subtract: bool, r: &Tensor, a: &Tensor, v: f64, t: &Tensor) -> Result<()> {
    dispatch_math!(a.dtype, T => add_scaled_typed::<T>(subtract, r, a, v, t), half => Err(crate::torch::base::dtype::no_half_math()))
}

/// `src^v` for floats, with Torch's shortcuts for the common powers (exactly its results).
fn pow_float<T: Float>(r: &Tensor, a: &Tensor, v: f64) -> Result<()> {
    let e = T::from_lua(v);
    let e64 = e.to_f64();
    if e64 == 1.0 {
        map1(r, a, |x: T| x)
    } else if e64 == 2.0 {
        map1(r, a, |x: T| x.mul(x))
    } else if e64 == 3.0 {
        map1(r, a, |x: T| x.mul(x).mul(x))
    } else if e64 == 0.5 {
        map1(r, a, |x: T| x.sqrt())
    } else if e64 == -0.5 {
        map1(r, a, |x: T| x.rsqrt())
    } else if e64 == -1.0 {
        map1(r, a, |x: T| x.cinv())
    } else if e64 == -2.0 {
        map1(r, a, |x: T| x.mul(x).cinv())
    } else {
        map1(r, a, |x: T| x.pow(e))
    }
}

/// `r = a ^ v`.
pub fn pow(r: &Tensor, a: &Tensor, v: f64) -> Result<()> {
    match a.dtype {
        DType::Float => pow_float::<f32>(r, a, v),
        DType::Double => pow_float::<f64>(r, a, v),
        _ => with_value(Binary::Pow, r, a, v),
    }
}

fn value_pow_typed<T: Arith>(r: &Tensor, a: &Tensor, v: f64) -> Result<()> {
    let base = T::from_lua(v);
    map1(r, a, |x: T| base.pow(x))
}

/// `r = v ^ a` (Torch's tpow).
pub fn value_pow(r: &Tensor, a: &Tensor, v: f64) -> Result<()> {
    dispatch_math!(a.dtype, T => value_pow_typed::<T>(r, a, v), half => Err(crate::torch::base::dtype::no_half_math()))
}

/// `r = atan2(a, b)`, a being y.
pub fn atan2(r: &Tensor, a: &Tensor, b: &Tensor) -> Result<()> {
    match a.dtype {
        DType::Float => map2(r, a, b, |y: f32, x: f32| y.atan2(x)),
        DType::Double => map2(r, a, b, |y: f64, x: f64| y.atan2(x)),
        d => Err(not_floating(d)),
    }
}

fn lerp_typed<T: Float>(r: &Tensor, a: &Tensor, b: &Tensor, w: f64) -> Result<()> {
    let w = T::from_lua(w);
    map2(r, a, b, |x: T, y: T| x.lerp(y, w))
}

/// `r = a + w * (b - a)`.
pub fn lerp(r: &Tensor, a: &Tensor, b: &Tensor, w: f64) -> Result<()> {
    match a.dtype {
        DType::Float => lerp_typed::<f32>(r, a, b, w),
        DType::Double => lerp_typed::<f64>(r, a, b, w),
        d => Err(not_floating(d)),
    }
}

fn clamp_typed<T: Arith>(r: &Tensor, a: &Tensor, lo: f64, hi: f64) -> Result<()> {
    let (lo, hi) = (T::from_lua(lo), T::from_lua(hi));
    map1(r, a, |x: T| {
        if x < lo {
            lo
        } else if x > hi {
            hi
        } else {
            x
        }
    })
}

/// `r = a` clamped to `[lo, hi]`.
pub fn clamp(r: &Tensor, a: &Tensor, lo: f64, hi: f64) -> Result<()> {
    dispatch_math!(a.dtype, T => clamp_typed::<T>(r, a, lo, hi), half => Err(crate::torch::base::dtype::no_half_math()))
}

fn add_product_typed<T: Arith>(divide: bool, r: &Tensor, a: &Tensor, v: f64, b: &Tensor, c: &Tensor) -> Result<()> {
    let v = T::from_lua(v);
    if divide {
        check_divisor_tensor::<T>(c)?;
        map3(r, a, b, c, |x: T, y: T, z: T| x.add(v.mul(y).div(z)))
    } else {
        map3(r, a, b, c, |x: T, y: T, z: T| x.add(v.mul(y).mul(z)))
    }
}

/// addcmul (`r = a + v * b * c`) and addcdiv (`r = a + v * b / c`), evaluated left to right as C.
pub fn add_product(divide: bool, r: &Tensor, a: &Tensor, v: f64, b: &Tensor, c: &Tensor) -> Result<()> {
    dispatch_math!(a.dtype, T => add_product_typed::<T>(divide, r, a, v, b, c), half => Err(crate::torch::base::dtype::no_half_math()))
}

#[inline(always)]
fn compare<T: PartialOrd>(c: Compare, x: T, y: T) -> bool {
    match c {
        Compare::Lt => x < y,
        Compare::Le => x <= y,
        Compare::Gt => x > y,
        Compare::Ge => x >= y,
        Compare::Eq => x == y,
        Compare::Ne => x != y,
    }
}

/// As `each_binary`, for comparisons.
macro_rules! each_compare {
    ($c:expr, |$op:ident| $body:expr) => {
        match $c {
            Compare::Lt => {
                const $op: Compare = Compare::Lt;
                $body
            }
            Compare::Le => {
                const $op: Compare = Compare::Le;
                $body
            }
            Compare::Gt => {
                const $op: Compare = Compare::Gt;
                $body
            }
            Compare::Ge => {
                const $op: Compare = Compare::Ge;
                $body
            }
            Compare::Eq => {
                const $op: Compare = Compare::Eq;
                $body
            }
            Compare::Ne => {
                const $op: Compare = Compare::Ne;
                $body
            }
        }
    };
}

fn compare_typed<T: Arith, R: Arith>(c: Compare, r: &Tensor, a: &Tensor, other: &Operand) -> Result<()> {
    match other {
        Operand::Value(v) => {
            let v = T::from_lua(*v);
            each_compare!(c, |OP| map1(r, a, |x: T| R::from_bool(compare(OP, x, v))))
        }
        Operand::Tensor(t) => each_compare!(c, |OP| map2(r, a, t, |x: T, y: T| R::from_bool(compare(OP, x, y)))),
    }
}

/// `r = (a (c) other)` as 1 or 0; `r` is a ByteTensor or of `a`'s type.
pub fn compare_into(c: Compare, r: &Tensor, a: &Tensor, other: &Operand) -> Result<()> {
    if r.dtype == DType::Byte {
        dispatch_math!(a.dtype, T => compare_typed::<T, u8>(c, r, a, other), half => Err(crate::torch::base::dtype::no_half_math()))
    } else {
        dispatch_math!(a.dtype, T => compare_typed::<T, T>(c, r, a, other), half => Err(crate::torch::base::dtype::no_half_math()))
    }
}

fn equal_values<T: Element>(a: &Tensor, b: &Tensor) -> Result<bool> {
    let (ap, bp) = (data::<T>(a)?, data::<T>(b)?);
    let mut same = true;
    runs([a, b], |n, o, s| {
        if !same {
            return;
        }
        for i in 0..n {
            // SAFETY: offsets of checked views.
            if unsafe { *ap.add(o[0] + i * s[0]) != *bp.add(o[1] + i * s[1]) } {
                same = false;
                return;
            }
        }
    });
    Ok(same)
}

/// Whether two tensors of one type have the same size and the same values.
pub fn equal(a: &Tensor, b: &Tensor) -> Result<bool> {
    Ok(a.size == b.size && dispatch!(a.dtype, T => equal_values::<T>(a, b))?)
}
