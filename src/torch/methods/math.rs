//! Elementwise maths and comparisons, in Torch's three calling forms: `x:f(...)` works in place on
//! x, `res:f(x, ...)` writes into res, and `torch.f(...)` returns a new tensor (or writes into a
//! leading result tensor). Overloads are resolved as Torch's cwrap does: by the number and types
//! of the arguments, trying each form in order. The operators (`+`, `*`, ...) are in
//! `lua/torch/math.lua`, on top of these.

mod kernel;
mod scalar;

use mlua::{Lua, MultiValue, Result, Table, Value};

use super::one;
use crate::dispatch;
use crate::torch::args::{self, Args, arg, error, number};
use crate::torch::construct;
use crate::torch::dtype::{DType, Element};
use crate::torch::layout::Tensor;
use crate::torch::userdata::{Object, classify, push_tensor, set_view, tensor_of};
use scalar::{Arith, Float};

/// Method (`x:f(...)`, the receiver is the result) or function (`torch.f(...)`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Method,
    Function,
}

/// One parameter of a calling form.
#[derive(Clone, Copy, PartialEq, Debug)]
enum P {
    /// The result tensor: the receiver of a method; optional (a new tensor) for a function.
    Res,
    /// The source tensor: optional for a method (the receiver), required for a function.
    Src,
    /// Another tensor operand.
    T,
    /// A number.
    N,
    /// A number with a default.
    OptN(f64),
}

/// The arguments of one call, bound to one of the op's forms.
struct Call {
    form: usize,
    dtype: DType,
    /// The caller's result tensor (None: a new one).
    res: Option<(Value, Tensor)>,
    src: Tensor,
    tensors: Vec<Tensor>,
    nums: Vec<f64>,
}

/// Unary functions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum U {
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
enum B {
    Add,
    Sub,
    Mul,
    Div,
    Fmod,
    Remainder,
    Pow,
    Max,
    Min,
}

/// What a Lua-visible name does.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Op {
    Unary(U),
    /// add and csub: `[res,] src, number` or `[res,] src, [number,] tensor`.
    AddLike(B),
    /// `[res,] src, number`.
    Scalar(B),
    /// `[res,] src, tensor`.
    Tensor(B),
    /// `[res,] src, tensor` or `[res,] src, number`.
    Either(B),
    Atan2,
    Clamp,
    Addcmul,
    Addcdiv,
    /// `[res,] src, number` (src^number) or `[res,] number, src` (number^src).
    Pow,
    Lerp,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

const UNARY: &[(&str, U)] = &[
    ("sqrt", U::Sqrt),
    ("rsqrt", U::Rsqrt),
    ("exp", U::Exp),
    ("log", U::Log),
    ("log1p", U::Log1p),
    ("cinv", U::Cinv),
    ("floor", U::Floor),
    ("ceil", U::Ceil),
    ("round", U::Round),
    ("trunc", U::Trunc),
    ("frac", U::Frac),
    ("tanh", U::Tanh),
    ("sinh", U::Sinh),
    ("cosh", U::Cosh),
    ("sin", U::Sin),
    ("cos", U::Cos),
    ("tan", U::Tan),
    ("asin", U::Asin),
    ("acos", U::Acos),
    ("atan", U::Atan),
    ("sigmoid", U::Sigmoid),
    ("abs", U::Abs),
    ("sign", U::Sign),
    ("neg", U::Neg),
];

const OPS: &[(&str, Op)] = &[
    ("add", Op::AddLike(B::Add)),
    ("csub", Op::AddLike(B::Sub)),
    ("mul", Op::Scalar(B::Mul)),
    ("div", Op::Scalar(B::Div)),
    ("cmul", Op::Tensor(B::Mul)),
    ("cdiv", Op::Tensor(B::Div)),
    ("cpow", Op::Tensor(B::Pow)),
    ("cfmod", Op::Tensor(B::Fmod)),
    ("cmod", Op::Tensor(B::Fmod)),
    ("cremainder", Op::Tensor(B::Remainder)),
    ("fmod", Op::Either(B::Fmod)),
    ("mod", Op::Either(B::Fmod)),
    ("remainder", Op::Either(B::Remainder)),
    ("cmax", Op::Either(B::Max)),
    ("cmin", Op::Either(B::Min)),
    ("atan2", Op::Atan2),
    ("clamp", Op::Clamp),
    ("addcmul", Op::Addcmul),
    ("addcdiv", Op::Addcdiv),
    ("pow", Op::Pow),
    ("lerp", Op::Lerp),
];

const CMP: &[(&str, Cmp)] = &[
    ("lt", Cmp::Lt),
    ("le", Cmp::Le),
    ("gt", Cmp::Gt),
    ("ge", Cmp::Ge),
    ("eq", Cmp::Eq),
    ("ne", Cmp::Ne),
];

impl U {
    fn integer_ok(self) -> bool {
        matches!(self, U::Abs | U::Sign | U::Neg)
    }
}

impl Op {
    fn forms(self) -> &'static [&'static [P]] {
        use P::*;
        match self {
            Op::Unary(_) => &[&[Res, Src]],
            Op::AddLike(_) => &[&[Res, Src, N], &[Res, Src, OptN(1.0), T]],
            Op::Scalar(_) => &[&[Res, Src, N]],
            Op::Tensor(_) | Op::Atan2 => &[&[Res, Src, T]],
            Op::Either(_) => &[&[Res, Src, T], &[Res, Src, N]],
            Op::Clamp => &[&[Res, Src, N, N]],
            Op::Addcmul | Op::Addcdiv => &[&[Res, Src, OptN(1.0), T, T]],
            Op::Pow => &[&[Res, Src, N], &[Res, N, Src]],
            Op::Lerp => &[&[Res, Src, T, N]],
        }
    }

    fn float_only(self) -> bool {
        match self {
            Op::Unary(u) => !u.integer_ok(),
            Op::Atan2 | Op::Lerp => true,
            _ => false,
        }
    }

    /// The value of `torch.f(numbers...)` for the functions Torch also defines on numbers.
    fn on_numbers(self, x: &[f64]) -> Option<f64> {
        match (self, x) {
            (Op::Unary(u), &[v]) if u != U::Sign && u != U::Neg => Some(unary_value(u, v)),
            (Op::Atan2, &[y, x]) => Some(y.atan2(x)),
            (Op::Pow, &[b, e]) => Some(b.powf(e)),
            (Op::Lerp, &[a, b, w]) => Some(Float::lerp(a, b, w)),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Argument binding.

/// `DoubleTensor` for torch.DoubleTensor.
fn short_name(d: DType) -> &'static str {
    &d.tensor_typename()["torch.".len()..]
}

/// The tensor type a call works on: the receiver's for a method; for a function, that of the
/// first tensor argument (Torch's dispatch).
fn call_dtype(a: &Args, mode: Mode) -> Option<DType> {
    let dtype = |v: &Value| match classify(v) {
        Some(Object::Tensor(_, d)) => Some(d),
        _ => None,
    };
    match mode {
        Mode::Method => dtype(arg(a, 1)),
        Mode::Function => a.iter().find_map(dtype),
    }
}

/// A form's arguments: (result, source, other tensors, numbers).
type Bound = (Option<(Value, Tensor)>, Option<Tensor>, Vec<Tensor>, Vec<f64>);

/// A Lua argument, classified once per call.
enum Kind {
    Tensor(Tensor),
    Number(f64),
    Other,
}

impl Kind {
    fn tensor(&self) -> Option<Tensor> {
        match self {
            Kind::Tensor(t) => Some(t.clone()),
            _ => None,
        }
    }

    fn of(v: &Value) -> Kind {
        match (number(v), tensor_of(v)) {
            (Some(x), _) => Kind::Number(x),
            (None, Some(t)) => Kind::Tensor(t),
            (None, None) => Kind::Other,
        }
    }
}

fn bind_form(a: &Args, kinds: &[Kind], mode: Mode, form: &[P], d: DType) -> Option<Bound> {
    let optional = |p: P| match p {
        P::Src => mode == Mode::Method,
        P::Res => mode == Mode::Function,
        P::OptN(_) => true,
        _ => false,
    };
    let n_optional = form.iter().filter(|&&p| optional(p)).count();
    // Most arguments present first; the types then decide between equal counts.
    for mask in (0..1usize << n_optional).rev() {
        // For each parameter, the argument position it takes (None: absent, defaulted).
        let mut bit = 0;
        let mut pos = 0;
        let mut slots = [None; 8];
        for (i, &p) in form.iter().enumerate() {
            let present = !optional(p) || {
                bit += 1;
                mask & (1 << (bit - 1)) != 0
            };
            if present {
                slots[i] = Some(pos);
                pos += 1;
            }
        }
        if pos != a.len() {
            continue;
        }
        let fits = form
            .iter()
            .zip(slots)
            .all(|(&p, slot)| match (p, slot.map(|i| &kinds[i])) {
                (_, None) => true,
                (P::Res | P::Src | P::T, Some(Kind::Tensor(t))) => t.dtype == d,
                (P::N | P::OptN(_), Some(Kind::Number(_))) => true,
                _ => false,
            });
        if !fits {
            continue;
        }
        let (mut res, mut src, mut tensors, mut nums) = (None, None, Vec::new(), Vec::new());
        for (&p, slot) in form.iter().zip(slots) {
            match (p, slot) {
                (P::Src, None) => src = kinds.first().and_then(Kind::tensor),
                (P::OptN(v), None) => nums.push(v),
                (_, None) => {}
                (P::Res, Some(i)) => res = kinds[i].tensor().map(|t| (a[i].clone(), t)),
                (_, Some(i)) => match &kinds[i] {
                    Kind::Tensor(t) if p == P::Src => src = Some(t.clone()),
                    Kind::Tensor(t) => tensors.push(t.clone()),
                    Kind::Number(x) => nums.push(*x),
                    Kind::Other => {}
                },
            }
        }
        return Some((res, src, tensors, nums));
    }
    None
}

fn describe_args(a: &Args) -> String {
    let names: Vec<String> = a
        .iter()
        .map(|v| match tensor_of(v) {
            Some(t) => short_name(t.dtype).to_string(),
            None if number(v).is_some() => "number".to_string(),
            None => v.type_name().to_string(),
        })
        .collect();
    if names.is_empty() {
        "no arguments".into()
    } else {
        names.join(" ")
    }
}

fn describe_forms(forms: &[&[P]], mode: Mode, d: DType) -> String {
    let t = short_name(d);
    let form_text = |form: &[P]| -> String {
        let parts: Vec<String> = form
            .iter()
            .map(|p| match (p, mode) {
                (P::Res, Mode::Method) => format!("*{t}*"),
                (P::Res, Mode::Function) => format!("[*{t}*]"),
                (P::Src, Mode::Method) => format!("[{t}]"),
                (P::Src, Mode::Function) | (P::T, _) => t.to_string(),
                (P::N, _) => "number".to_string(),
                (P::OptN(_), _) => "[number]".to_string(),
            })
            .collect();
        parts.join(" ")
    };
    forms.iter().map(|f| form_text(f)).collect::<Vec<_>>().join(" | ")
}

/// Torch's message for arguments that match no form.
fn invalid(name: &str, a: &Args, expected: String) -> mlua::Error {
    error(
        name,
        format!(
            "invalid arguments: {}\nexpected arguments: {expected}",
            describe_args(a)
        ),
    )
}

fn bind(a: &Args, mode: Mode, forms: &[&[P]], name: &str) -> Result<Call> {
    let Some(d) = call_dtype(a, mode) else {
        if mode == Mode::Method {
            return Err(error(
                name,
                format!("bad argument #1 (tensor expected, got {})", args::type_name(arg(a, 1))),
            ));
        }
        return Err(invalid(name, a, describe_forms(forms, mode, DType::Double)));
    };
    let kinds: Vec<Kind> = a.iter().map(Kind::of).collect();
    for (form, f) in forms.iter().enumerate() {
        if let Some((res, src, tensors, nums)) = bind_form(a, &kinds, mode, f, d) {
            let res = match (res, mode) {
                (None, Mode::Method) => kinds[0].tensor().map(|t| (a[0].clone(), t)),
                (res, _) => res,
            };
            let src = src.ok_or_else(|| invalid(name, a, describe_forms(forms, mode, d)))?;
            return Ok(Call {
                form,
                dtype: d,
                res,
                src,
                tensors,
                nums,
            });
        }
    }
    Err(invalid(name, a, describe_forms(forms, mode, d)))
}

// ---------------------------------------------------------------------------------------------
// Results and checks.

fn size_text(t: &Tensor) -> String {
    if t.dim() == 0 {
        return "empty".into();
    }
    t.size.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("x")
}

fn check_numel(name: &str, a: &Tensor, b: &Tensor) -> Result<()> {
    if a.numel() != b.numel() {
        return Err(error(
            name,
            format!(
                "inconsistent tensor size: sizes {} and {} have {} and {} elements",
                size_text(a),
                size_text(b),
                a.numel(),
                b.numel()
            ),
        ));
    }
    Ok(())
}

fn not_floating(name: &str, d: DType) -> mlua::Error {
    error(
        name,
        format!(
            "not supported for {} (only torch.FloatTensor and torch.DoubleTensor)",
            d.tensor_typename()
        ),
    )
}

fn new_like(d: DType, like: &Tensor) -> Result<Tensor> {
    if like.dim() == 0 {
        return Ok(Tensor::empty(d));
    }
    args::lift(Tensor::zeros(d, &like.size))
}

/// The result tensor, shaped like `like`: the caller's, resized in place (Torch's resizeAs), or
/// a new one of type `d`.
fn result_tensor(res: &Option<(Value, Tensor)>, d: DType, like: &Tensor, name: &str) -> Result<Tensor> {
    let Some((v, t)) = res else { return new_like(d, like) };
    let mut t = t.clone();
    if t.size != like.size || t.storage.is_none() {
        args::lift_in(name, construct::resize(&mut t, &like.size))?;
        set_view(v, t.clone())?;
    }
    Ok(t)
}

/// The Lua result: the caller's result tensor, or the new one.
fn give(lua: &Lua, res: &Option<(Value, Tensor)>, t: Tensor) -> Result<MultiValue> {
    match res {
        Some((v, _)) => one(v.clone()),
        None => one(push_tensor(lua, t)?),
    }
}

/// Integer division by zero would trap in C; here it is an error, raised before any element
/// changes.
fn check_divisor_value<T: Arith>(name: &str, v: f64) -> Result<()> {
    if T::DTYPE.is_floating() || !T::from_lua(v).is_zero() {
        return Ok(());
    }
    Err(error(name, "division by zero"))
}

fn check_divisor_tensor<T: Arith>(name: &str, t: &Tensor) -> Result<()> {
    if T::DTYPE.is_floating() || t.numel() == 0 {
        return Ok(());
    }
    let p = data::<T>(t, name)?;
    let mut zero = false;
    kernel::runs([t], |n, o, s| {
        for i in 0..n {
            // SAFETY: offsets of a checked view.
            zero |= unsafe { *p.add(o[0] + i * s[0]) }.is_zero();
        }
    });
    if zero {
        return Err(error(name, "division by zero"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Kernels: typed loops over the runs of `kernel::runs`.

/// The element pointer of a view, checked to lie inside its storage.
fn data<T: Element>(t: &Tensor, name: &str) -> Result<*mut T> {
    if t.numel() == 0 {
        return Ok(std::ptr::NonNull::dangling().as_ptr());
    }
    Ok(args::lift_in(name, t.storage_checked())?.ptr::<T>())
}

/// `r = f(a)` elementwise.
fn map1<A: Element, R: Element>(r: &Tensor, a: &Tensor, name: &str, f: impl Fn(A) -> R) -> Result<()> {
    let (rp, ap) = (data::<R>(r, name)?, data::<A>(a, name)?);
    // SAFETY: both views are checked against their storages; runs stay inside the views.
    kernel::runs([r, a], |n, o, s| unsafe {
        kernel::run1(n, rp.add(o[0]), s[0], ap.add(o[1]), s[1], &f)
    });
    Ok(())
}

/// `r = f(a, b)` elementwise.
fn map2<A: Element, R: Element>(r: &Tensor, a: &Tensor, b: &Tensor, name: &str, f: impl Fn(A, A) -> R) -> Result<()> {
    let (rp, ap, bp) = (data::<R>(r, name)?, data::<A>(a, name)?, data::<A>(b, name)?);
    // SAFETY: as in map1.
    kernel::runs([r, a, b], |n, o, s| unsafe {
        kernel::run2(n, rp.add(o[0]), s[0], ap.add(o[1]), s[1], bp.add(o[2]), s[2], &f)
    });
    Ok(())
}

/// `r = f(a, b, c)` elementwise.
fn map3<T: Element>(
    r: &Tensor,
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
    name: &str,
    f: impl Fn(T, T, T) -> T,
) -> Result<()> {
    let (rp, ap, bp, cp) = (
        data::<T>(r, name)?,
        data::<T>(a, name)?,
        data::<T>(b, name)?,
        data::<T>(c, name)?,
    );
    // SAFETY: as in map1.
    kernel::runs([r, a, b, c], |n, o, s| unsafe {
        kernel::run3(
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

#[inline(always)]
fn float_unary<T: Float>(u: U, x: T) -> T {
    match u {
        U::Sqrt => x.sqrt(),
        U::Rsqrt => x.rsqrt(),
        U::Exp => x.exp(),
        U::Log => x.log(),
        U::Log1p => x.log1p(),
        U::Cinv => x.cinv(),
        U::Floor => x.floor(),
        U::Ceil => x.ceil(),
        U::Round => x.round(),
        U::Trunc => x.trunc(),
        U::Frac => x.frac(),
        U::Tanh => x.tanh(),
        U::Sinh => x.sinh(),
        U::Cosh => x.cosh(),
        U::Sin => x.sin(),
        U::Cos => x.cos(),
        U::Tan => x.tan(),
        U::Asin => x.asin(),
        U::Acos => x.acos(),
        U::Atan => x.atan(),
        U::Sigmoid => x.sigmoid(),
        U::Abs => x.abs(),
        U::Sign => x.sign(),
        U::Neg => x.neg(),
    }
}

fn unary_value(u: U, x: f64) -> f64 {
    float_unary(u, x)
}

/// The unary functions on Float/Double: one monomorphic loop per function.
fn unary_float<T: Float>(u: U, r: &Tensor, a: &Tensor, name: &str) -> Result<()> {
    macro_rules! each {
        ($($v:ident),*) => {
            match u {
                $(U::$v => map1(r, a, name, |x: T| float_unary(U::$v, x)),)*
            }
        };
    }
    each!(
        Sqrt, Rsqrt, Exp, Log, Log1p, Cinv, Floor, Ceil, Round, Trunc, Frac, Tanh, Sinh, Cosh, Sin, Cos, Tan, Asin,
        Acos, Atan, Sigmoid, Abs, Sign, Neg
    )
}

fn unary_int<T: Arith>(u: U, r: &Tensor, a: &Tensor, name: &str) -> Result<()> {
    match u {
        U::Abs => map1(r, a, name, |x: T| x.abs()),
        U::Sign => map1(r, a, name, |x: T| x.sign()),
        U::Neg => map1(r, a, name, |x: T| x.neg()),
        _ => Err(not_floating(name, T::DTYPE)),
    }
}

#[inline(always)]
fn binary<T: Arith>(b: B, x: T, y: T) -> T {
    match b {
        B::Add => x.add(y),
        B::Sub => x.sub(y),
        B::Mul => x.mul(y),
        B::Div => x.div(y),
        B::Fmod => x.fmod(y),
        B::Remainder => x.remainder(y),
        B::Pow => x.pow(y),
        B::Max => x.max_of(y),
        B::Min => x.min_of(y),
    }
}

macro_rules! each_binary {
    ($b:expr, |$op:ident| $body:expr) => {
        match $b {
            B::Add => {
                const $op: B = B::Add;
                $body
            }
            B::Sub => {
                const $op: B = B::Sub;
                $body
            }
            B::Mul => {
                const $op: B = B::Mul;
                $body
            }
            B::Div => {
                const $op: B = B::Div;
                $body
            }
            B::Fmod => {
                const $op: B = B::Fmod;
                $body
            }
            B::Remainder => {
                const $op: B = B::Remainder;
                $body
            }
            B::Pow => {
                const $op: B = B::Pow;
                $body
            }
            B::Max => {
                const $op: B = B::Max;
                $body
            }
            B::Min => {
                const $op: B = B::Min;
                $body
            }
        }
    };
}

fn is_division(b: B) -> bool {
    matches!(b, B::Div | B::Fmod | B::Remainder)
}

/// `r = a (op) v`.
fn with_value<T: Arith>(b: B, r: &Tensor, a: &Tensor, v: f64, name: &str) -> Result<()> {
    if is_division(b) {
        check_divisor_value::<T>(name, v)?;
    }
    let v = T::from_lua(v);
    each_binary!(b, |OP| map1(r, a, name, |x: T| binary(OP, x, v)))
}

/// `r = a (op) t` elementwise.
fn with_tensor<T: Arith>(b: B, r: &Tensor, a: &Tensor, t: &Tensor, name: &str) -> Result<()> {
    if is_division(b) {
        check_divisor_tensor::<T>(name, t)?;
    }
    each_binary!(b, |OP| map2(r, a, t, name, |x: T, y: T| binary(OP, x, y)))
}

/// `r = a + v * t` (or minus): Torch's cadd and csub.
fn add_scaled<T: Arith>(subtract: bool, r: &Tensor, a: &Tensor, v: f64, t: &Tensor, name: &str) -> Result<()> {
    let v = T::from_lua(v);
    match (subtract, v == T::one()) {
        (false, true) => map2(r, a, t, name, |x: T, y: T| x.add(y)),
        (true, true) => map2(r, a, t, name, |x: T, y: T| x.sub(y)),
        (false, false) => map2(r, a, t, name, |x: T, y: T| x.add(v.mul(y))),
        (true, false) => map2(r, a, t, name, |x: T, y: T| x.sub(v.mul(y))),
    }
}

/// `src^v` for floats, with Torch's shortcuts for the common powers (exactly its results).
fn pow_float<T: Float>(r: &Tensor, a: &Tensor, v: f64, name: &str) -> Result<()> {
    let e = T::from_lua(v);
    let e64 = e.to_f64();
    if e64 == 1.0 {
        map1(r, a, name, |x: T| x)
    } else if e64 == 2.0 {
        map1(r, a, name, |x: T| x.mul(x))
    } else if e64 == 3.0 {
        map1(r, a, name, |x: T| x.mul(x).mul(x))
    } else if e64 == 0.5 {
        map1(r, a, name, |x: T| x.sqrt())
    } else if e64 == -0.5 {
        map1(r, a, name, |x: T| x.rsqrt())
    } else if e64 == -1.0 {
        map1(r, a, name, |x: T| x.cinv())
    } else if e64 == -2.0 {
        map1(r, a, name, |x: T| x.mul(x).cinv())
    } else {
        map1(r, a, name, |x: T| x.pow(e))
    }
}

/// atan2 (`r = atan2(a, b)`, a being y) and lerp (`r = a + w * (b - a)`).
fn float_binary<T: Float>(op: Op, r: &Tensor, a: &Tensor, b: &Tensor, w: Option<f64>, name: &str) -> Result<()> {
    match (op, w) {
        (Op::Lerp, Some(w)) => {
            let w = T::from_lua(w);
            map2(r, a, b, name, |x: T, y: T| x.lerp(y, w))
        }
        _ => map2(r, a, b, name, |y: T, x: T| y.atan2(x)),
    }
}

fn clamp<T: Arith>(r: &Tensor, a: &Tensor, lo: f64, hi: f64, name: &str) -> Result<()> {
    let (lo, hi) = (T::from_lua(lo), T::from_lua(hi));
    map1(r, a, name, |x: T| {
        if x < lo {
            lo
        } else if x > hi {
            hi
        } else {
            x
        }
    })
}

/// addcmul (`r = a + v * b * c`) and addcdiv (`r = a + v * b / c`), evaluated left to right as C.
#[allow(clippy::too_many_arguments)]
fn add_product<T: Arith>(
    divide: bool,
    r: &Tensor,
    a: &Tensor,
    v: f64,
    b: &Tensor,
    c: &Tensor,
    name: &str,
) -> Result<()> {
    let v = T::from_lua(v);
    if divide {
        check_divisor_tensor::<T>(name, c)?;
        map3(r, a, b, c, name, |x: T, y: T, z: T| x.add(v.mul(y).div(z)))
    } else {
        map3(r, a, b, c, name, |x: T, y: T, z: T| x.add(v.mul(y).mul(z)))
    }
}

/// `r = v ^ a` (Torch's tpow).
fn value_pow<T: Arith>(r: &Tensor, a: &Tensor, v: f64, name: &str) -> Result<()> {
    let base = T::from_lua(v);
    map1(r, a, name, |x: T| base.pow(x))
}

/// Runs a bound call of `op` into its result tensor.
fn exec(op: Op, call: &Call, r: &Tensor, name: &str) -> Result<()> {
    let (a, d) = (&call.src, call.dtype);
    let t = |i: usize| &call.tensors[i];
    let v = |i: usize| call.nums[i];
    match op {
        Op::Unary(u) => match d {
            DType::Float => unary_float::<f32>(u, r, a, name),
            DType::Double => unary_float::<f64>(u, r, a, name),
            _ => dispatch!(d, T => unary_int::<T>(u, r, a, name)),
        },
        Op::AddLike(b) if call.form == 0 => dispatch!(d, T => with_value::<T>(b, r, a, v(0), name)),
        Op::AddLike(b) => dispatch!(d, T => add_scaled::<T>(b == B::Sub, r, a, v(0), t(0), name)),
        Op::Scalar(b) => dispatch!(d, T => with_value::<T>(b, r, a, v(0), name)),
        Op::Tensor(b) => dispatch!(d, T => with_tensor::<T>(b, r, a, t(0), name)),
        Op::Either(b) if call.form == 0 => dispatch!(d, T => with_tensor::<T>(b, r, a, t(0), name)),
        Op::Either(b) => dispatch!(d, T => with_value::<T>(b, r, a, v(0), name)),
        Op::Atan2 | Op::Lerp => match d {
            DType::Float => float_binary::<f32>(op, r, a, t(0), call.nums.first().copied(), name),
            DType::Double => float_binary::<f64>(op, r, a, t(0), call.nums.first().copied(), name),
            _ => Err(not_floating(name, d)),
        },
        Op::Clamp => dispatch!(d, T => clamp::<T>(r, a, v(0), v(1), name)),
        Op::Addcmul => dispatch!(d, T => add_product::<T>(false, r, a, v(0), t(0), t(1), name)),
        Op::Addcdiv => dispatch!(d, T => add_product::<T>(true, r, a, v(0), t(0), t(1), name)),
        Op::Pow if call.form == 0 => match d {
            DType::Float => pow_float::<f32>(r, a, v(0), name),
            DType::Double => pow_float::<f64>(r, a, v(0), name),
            _ => dispatch!(d, T => with_value::<T>(B::Pow, r, a, v(0), name)),
        },
        Op::Pow => dispatch!(d, T => value_pow::<T>(r, a, v(0), name)),
    }
}

/// The Lua entry point of an elementwise op.
fn elementwise(lua: &Lua, a: Args, mode: Mode, op: Op, name: &str) -> Result<MultiValue> {
    if mode == Mode::Function && !a.is_empty() && a.iter().all(|v| number(v).is_some()) {
        let xs: Vec<f64> = a.iter().filter_map(number).collect();
        if let Some(v) = op.on_numbers(&xs) {
            return one(Value::Number(v));
        }
    }
    let call = bind(&a, mode, op.forms(), name)?;
    if op.float_only() && !call.dtype.is_floating() {
        return Err(not_floating(name, call.dtype));
    }
    for t in &call.tensors {
        check_numel(name, &call.src, t)?;
    }
    let r = result_tensor(&call.res, call.dtype, &call.src, name)?;
    exec(op, &call, &r, name)?;
    give(lua, &call.res, r)
}

// ---------------------------------------------------------------------------------------------
// Comparisons and equality.

#[inline(always)]
fn compare<T: PartialOrd>(c: Cmp, x: T, y: T) -> bool {
    match c {
        Cmp::Lt => x < y,
        Cmp::Le => x <= y,
        Cmp::Gt => x > y,
        Cmp::Ge => x >= y,
        Cmp::Eq => x == y,
        Cmp::Ne => x != y,
    }
}

macro_rules! each_cmp {
    ($c:expr, |$op:ident| $body:expr) => {
        match $c {
            Cmp::Lt => {
                const $op: Cmp = Cmp::Lt;
                $body
            }
            Cmp::Le => {
                const $op: Cmp = Cmp::Le;
                $body
            }
            Cmp::Gt => {
                const $op: Cmp = Cmp::Gt;
                $body
            }
            Cmp::Ge => {
                const $op: Cmp = Cmp::Ge;
                $body
            }
            Cmp::Eq => {
                const $op: Cmp = Cmp::Eq;
                $body
            }
            Cmp::Ne => {
                const $op: Cmp = Cmp::Ne;
                $body
            }
        }
    };
}

/// The operand after the source: a number or a tensor.
enum Other {
    Value(f64),
    Tensor(Tensor),
}

fn compare_into<T: Arith, R: Arith>(c: Cmp, r: &Tensor, a: &Tensor, other: &Other, name: &str) -> Result<()> {
    match other {
        Other::Value(v) => {
            let v = T::from_lua(*v);
            each_cmp!(c, |OP| map1(r, a, name, |x: T| R::from_bool(compare(OP, x, v))))
        }
        Other::Tensor(t) => each_cmp!(c, |OP| map2(r, a, t, name, |x: T, y: T| R::from_bool(compare(
            OP, x, y
        )))),
    }
}

/// lt/le/gt/ge/eq/ne, the same in both modes: `(src, other)` gives a new ByteTensor and
/// `(res, src, other)` fills res, a ByteTensor or a tensor of src's type.
fn comparison(lua: &Lua, a: Args, c: Cmp, name: &str) -> Result<MultiValue> {
    let expected = |d: DType| {
        let t = short_name(d);
        format!("[*ByteTensor*] {t} number | *{t}* {t} number | [*ByteTensor*] {t} {t} | *{t}* {t} {t}")
    };
    let default = || call_dtype(&a, Mode::Function).unwrap_or(DType::Double);
    let (res, pos) = match (a.len(), tensor_of(arg(&a, 1))) {
        (2, _) => (None, 1),
        (3, Some(t)) => (Some((arg(&a, 1).clone(), t)), 2),
        _ => return Err(invalid(name, &a, expected(default()))),
    };
    let Some(src) = tensor_of(arg(&a, pos)) else {
        return Err(invalid(name, &a, expected(default())));
    };
    let d = src.dtype;
    let other = match (number(arg(&a, pos + 1)), tensor_of(arg(&a, pos + 1))) {
        (Some(v), _) => Other::Value(v),
        (None, Some(t)) if t.dtype == d => Other::Tensor(t),
        _ => return Err(invalid(name, &a, expected(d))),
    };
    let rd = match &res {
        None => DType::Byte,
        Some((_, t)) if t.dtype == DType::Byte || t.dtype == d => t.dtype,
        Some(_) => return Err(invalid(name, &a, expected(d))),
    };
    if let Other::Tensor(t) = &other {
        check_numel(name, &src, t)?;
    }
    let r = result_tensor(&res, rd, &src, name)?;
    if rd == DType::Byte {
        dispatch!(d, T => compare_into::<T, u8>(c, &r, &src, &other, name))?;
    } else {
        dispatch!(d, T => compare_into::<T, T>(c, &r, &src, &other, name))?;
    }
    give(lua, &res, r)
}

fn equal_values<T: Element>(a: &Tensor, b: &Tensor) -> Result<bool> {
    let (ap, bp) = (data::<T>(a, "equal")?, data::<T>(b, "equal")?);
    let mut same = true;
    kernel::runs([a, b], |n, o, s| {
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

/// `torch.equal(a, b)` / `a:equal(b)`: same size and the same values.
fn equal(_: &Lua, a: Args) -> Result<MultiValue> {
    if let (2, Some(x), Some(y)) = (a.len(), number(arg(&a, 1)), number(arg(&a, 2))) {
        return one(Value::Boolean(x == y));
    }
    match (a.len(), tensor_of(arg(&a, 1)), tensor_of(arg(&a, 2))) {
        (2, Some(x), Some(y)) if x.dtype == y.dtype => {
            let eq = x.size == y.size && dispatch!(x.dtype, T => equal_values::<T>(&x, &y))?;
            one(Value::Boolean(eq))
        }
        _ => {
            let t = short_name(call_dtype(&a, Mode::Function).unwrap_or(DType::Double));
            Err(invalid("equal", &a, format!("{t} {t} | number number")))
        }
    }
}

fn register(
    lua: &Lua,
    table: &Table,
    name: &'static str,
    f: impl Fn(&Lua, Args) -> Result<MultiValue> + Send + 'static,
) -> Result<()> {
    table.raw_set(name, lua.create_function(move |lua, a: Args| f(lua, a))?)
}

pub fn install(lua: &Lua, tensor: &Table, functions: &Table) -> Result<()> {
    let all = UNARY
        .iter()
        .map(|&(name, u)| (name, Op::Unary(u)))
        .chain(OPS.iter().copied());
    for (name, op) in all {
        register(lua, tensor, name, move |lua, a| {
            elementwise(lua, a, Mode::Method, op, name)
        })?;
        register(lua, functions, name, move |lua, a| {
            elementwise(lua, a, Mode::Function, op, name)
        })?;
    }
    for &(name, c) in CMP {
        register(lua, tensor, name, move |lua, a| comparison(lua, a, c, name))?;
        register(lua, functions, name, move |lua, a| comparison(lua, a, c, name))?;
    }
    register(lua, tensor, "equal", equal)?;
    register(lua, functions, "equal", equal)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms_of(name: &str) -> Op {
        OPS.iter().find(|(n, _)| *n == name).unwrap().1
    }

    #[test]
    fn form_descriptions_read_like_torch() {
        let add = forms_of("add").forms();
        assert_eq!(
            describe_forms(add, Mode::Method, DType::Double),
            "*DoubleTensor* [DoubleTensor] number | *DoubleTensor* [DoubleTensor] [number] DoubleTensor"
        );
        assert_eq!(
            describe_forms(add, Mode::Function, DType::Float),
            "[*FloatTensor*] FloatTensor number | [*FloatTensor*] FloatTensor [number] FloatTensor"
        );
    }

    #[test]
    fn number_forms() {
        assert_eq!(Op::Unary(U::Sqrt).on_numbers(&[4.0]), Some(2.0));
        assert_eq!(Op::Unary(U::Abs).on_numbers(&[-3.0]), Some(3.0));
        assert_eq!(Op::Unary(U::Sign).on_numbers(&[-3.0]), None);
        assert_eq!(Op::Pow.on_numbers(&[2.0, 10.0]), Some(1024.0));
        assert_eq!(Op::Lerp.on_numbers(&[1.0, 3.0, 0.5]), Some(2.0));
        assert_eq!(Op::Scalar(B::Mul).on_numbers(&[1.0, 3.0]), None);
    }
}
