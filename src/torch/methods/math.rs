//! Elementwise maths and comparisons, in Torch's three calling forms: `x:f(...)` works in place on
//! x, `res:f(x, ...)` writes into res, and `torch.f(...)` returns a new tensor (or writes into a
//! leading result tensor). Overloads are resolved as Torch's cwrap does: by the number and types
//! of the arguments, trying each form in order. The operators (`+`, `*`, ...) are in
//! `lua/torch/math.lua`, on top of these; the loops are `kernels::math`.

use mlua::{Lua, MultiValue, Result, Table, Value};

use super::convention::one;
use crate::error::Named;
use crate::torch::args::{self, Args, arg, error, number};
use crate::torch::construct;
use crate::torch::dtype::DType;
use crate::torch::kernels::arith::Float;
use crate::torch::kernels::math::{self as kernel, Binary, Compare, Operand, Unary};
use crate::torch::tensor::Tensor;
use crate::torch::userdata::{Object, classify, push_tensor, set_view, tensor_of};

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

/// What a Lua-visible name does.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Op {
    Unary(Unary),
    /// add and csub: `[res,] src, number` or `[res,] src, [number,] tensor`.
    AddLike(Binary),
    /// `[res,] src, number`.
    Scalar(Binary),
    /// `[res,] src, tensor`.
    Tensor(Binary),
    /// `[res,] src, tensor` or `[res,] src, number`.
    Either(Binary),
    Atan2,
    Clamp,
    Addcmul,
    Addcdiv,
    /// `[res,] src, number` (src^number) or `[res,] number, src` (number^src).
    Pow,
    Lerp,
}

const UNARY: &[(&str, Unary)] = &[
    ("sqrt", Unary::Sqrt),
    ("rsqrt", Unary::Rsqrt),
    ("exp", Unary::Exp),
    ("log", Unary::Log),
    ("log1p", Unary::Log1p),
    ("cinv", Unary::Cinv),
    ("floor", Unary::Floor),
    ("ceil", Unary::Ceil),
    ("round", Unary::Round),
    ("trunc", Unary::Trunc),
    ("frac", Unary::Frac),
    ("tanh", Unary::Tanh),
    ("sinh", Unary::Sinh),
    ("cosh", Unary::Cosh),
    ("sin", Unary::Sin),
    ("cos", Unary::Cos),
    ("tan", Unary::Tan),
    ("asin", Unary::Asin),
    ("acos", Unary::Acos),
    ("atan", Unary::Atan),
    ("sigmoid", Unary::Sigmoid),
    ("abs", Unary::Abs),
    ("sign", Unary::Sign),
    ("neg", Unary::Neg),
];

const OPS: &[(&str, Op)] = &[
    ("add", Op::AddLike(Binary::Add)),
    ("csub", Op::AddLike(Binary::Sub)),
    ("mul", Op::Scalar(Binary::Mul)),
    ("div", Op::Scalar(Binary::Div)),
    ("cmul", Op::Tensor(Binary::Mul)),
    ("cdiv", Op::Tensor(Binary::Div)),
    ("cpow", Op::Tensor(Binary::Pow)),
    ("cfmod", Op::Tensor(Binary::Fmod)),
    ("cmod", Op::Tensor(Binary::Fmod)),
    ("cremainder", Op::Tensor(Binary::Remainder)),
    ("fmod", Op::Either(Binary::Fmod)),
    ("mod", Op::Either(Binary::Fmod)),
    ("remainder", Op::Either(Binary::Remainder)),
    ("cmax", Op::Either(Binary::Max)),
    ("cmin", Op::Either(Binary::Min)),
    ("atan2", Op::Atan2),
    ("clamp", Op::Clamp),
    ("addcmul", Op::Addcmul),
    ("addcdiv", Op::Addcdiv),
    ("pow", Op::Pow),
    ("lerp", Op::Lerp),
];

const CMP: &[(&str, Compare)] = &[
    ("lt", Compare::Lt),
    ("le", Compare::Le),
    ("gt", Compare::Gt),
    ("ge", Compare::Ge),
    ("eq", Compare::Eq),
    ("ne", Compare::Ne),
];

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
            (Op::Unary(u), &[v]) if u != Unary::Sign && u != Unary::Neg => Some(u.of_number(v)),
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
// Results.

fn new_like(d: DType, like: &Tensor, name: &str) -> Result<Tensor> {
    if like.dim() == 0 {
        return Ok(Tensor::empty(d));
    }
    Tensor::zeros(d, &like.size).named(name)
}

/// The result tensor, shaped like `like`: the caller's, resized in place (Torch's resizeAs), or
/// a new one of type `d`.
fn result_tensor(res: &Option<(Value, Tensor)>, d: DType, like: &Tensor, name: &str) -> Result<Tensor> {
    let Some((v, t)) = res else {
        return new_like(d, like, name);
    };
    let mut t = t.clone();
    if t.size != like.size || t.storage.is_none() {
        construct::resize(&mut t, &like.size).named(name)?;
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

/// Runs a bound call of `op` into its result tensor.
fn exec(op: Op, call: &Call, r: &Tensor) -> crate::error::Result<()> {
    let a = &call.src;
    let t = |i: usize| &call.tensors[i];
    let v = |i: usize| call.nums[i];
    match op {
        Op::Unary(u) => kernel::unary(u, r, a),
        Op::AddLike(b) if call.form == 0 => kernel::with_value(b, r, a, v(0)),
        Op::AddLike(b) => kernel::add_scaled(b == Binary::Sub, r, a, v(0), t(0)),
        Op::Scalar(b) => kernel::with_value(b, r, a, v(0)),
        Op::Tensor(b) => kernel::with_tensor(b, r, a, t(0)),
        Op::Either(b) if call.form == 0 => kernel::with_tensor(b, r, a, t(0)),
        Op::Either(b) => kernel::with_value(b, r, a, v(0)),
        Op::Atan2 => kernel::atan2(r, a, t(0)),
        Op::Lerp => kernel::lerp(r, a, t(0), v(0)),
        Op::Clamp => kernel::clamp(r, a, v(0), v(1)),
        Op::Addcmul => kernel::add_product(false, r, a, v(0), t(0), t(1)),
        Op::Addcdiv => kernel::add_product(true, r, a, v(0), t(0), t(1)),
        Op::Pow if call.form == 0 => kernel::pow(r, a, v(0)),
        Op::Pow => kernel::value_pow(r, a, v(0)),
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
        return Err(kernel::not_floating(call.dtype)).named(name);
    }
    for t in &call.tensors {
        kernel::check_numel(&call.src, t).named(name)?;
    }
    let r = result_tensor(&call.res, call.dtype, &call.src, name)?;
    exec(op, &call, &r).named(name)?;
    give(lua, &call.res, r)
}

// ---------------------------------------------------------------------------------------------
// Comparisons and equality.

/// lt/le/gt/ge/eq/ne, the same in both modes: `(src, other)` gives a new ByteTensor and
/// `(res, src, other)` fills res, a ByteTensor or a tensor of src's type.
fn comparison(lua: &Lua, a: Args, c: Compare, name: &str) -> Result<MultiValue> {
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
    let other_tensor;
    let other = match (number(arg(&a, pos + 1)), tensor_of(arg(&a, pos + 1))) {
        (Some(v), _) => Operand::Value(v),
        (None, Some(t)) if t.dtype == d => {
            other_tensor = t;
            Operand::Tensor(&other_tensor)
        }
        _ => return Err(invalid(name, &a, expected(d))),
    };
    let rd = match &res {
        None => DType::Byte,
        Some((_, t)) if t.dtype == DType::Byte || t.dtype == d => t.dtype,
        Some(_) => return Err(invalid(name, &a, expected(d))),
    };
    if let Operand::Tensor(t) = &other {
        kernel::check_numel(&src, t).named(name)?;
    }
    let r = result_tensor(&res, rd, &src, name)?;
    kernel::compare_into(c, &r, &src, &other).named(name)?;
    give(lua, &res, r)
}

/// `torch.equal(a, b)` / `a:equal(b)`: same size and the same values.
fn equal(_: &Lua, a: Args) -> Result<MultiValue> {
    if let (2, Some(x), Some(y)) = (a.len(), number(arg(&a, 1)), number(arg(&a, 2))) {
        return one(Value::Boolean(x == y));
    }
    match (a.len(), tensor_of(arg(&a, 1)), tensor_of(arg(&a, 2))) {
        (2, Some(x), Some(y)) if x.dtype == y.dtype => one(Value::Boolean(kernel::equal(&x, &y).named("equal")?)),
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
        assert_eq!(Op::Unary(Unary::Sqrt).on_numbers(&[4.0]), Some(2.0));
        assert_eq!(Op::Unary(Unary::Abs).on_numbers(&[-3.0]), Some(3.0));
        assert_eq!(Op::Unary(Unary::Sign).on_numbers(&[-3.0]), None);
        assert_eq!(Op::Pow.on_numbers(&[2.0, 10.0]), Some(1024.0));
        assert_eq!(Op::Lerp.on_numbers(&[1.0, 3.0, 0.5]), Some(2.0));
        assert_eq!(Op::Scalar(Binary::Mul).on_numbers(&[1.0, 3.0]), None);
    }
}
