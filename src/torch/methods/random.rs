//! Random numbers at the Lua boundary: the default generator of each Lua state, `torch.Generator`
//! objects, seeding and state, the scalar draws (`torch.uniform()`), the in-place tensor fills
//! (`x:uniform()`), and rand/randn/randperm/multinomial. Every function takes an optional
//! generator where Torch's does: first for the `torch.*` forms, right after the tensor for the
//! tensor forms. The streams themselves are in `torch/base/random.rs`.

use std::cell::RefCell;
use std::rc::Rc;

use mlua::{Function, Lua, MultiValue, Result, Table, UserDataFields, Value, Variadic};

use super::convention::{add, none, one, receiver};
use crate::args::{self, Args, arg, error, is_number, number_arg};
use crate::error::Named;
use crate::torch::base::dtype::DType;
use crate::torch::base::random::{Generator, STATE_BYTES, urandom_seed};
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::Tensor;
use crate::torch::construct;
use crate::torch::kernels::fill as fills;
use crate::torch::tensor_args::tensor_arg;
use crate::torch::userdata::{push_tensor, set_view, tensor_of};

type Shared = Rc<RefCell<Generator>>;

/// A `torch.Generator` userdata. The default generator's userdata (`torch._gen`) shares its
/// state with the one the functions use when no generator is given.
pub struct GeneratorUd(pub Shared);

/// The per-Lua-state default generator (mlua app data).
struct DefaultGenerator(Shared);

fn default_generator(lua: &Lua) -> Shared {
    if let Some(d) = lua.app_data_ref::<DefaultGenerator>() {
        return d.0.clone();
    }
    let g = Rc::new(RefCell::new(Generator::from_entropy()));
    lua.set_app_data(DefaultGenerator(g.clone()));
    g
}

fn generator_of(v: &Value) -> Option<Shared> {
    match v {
        Value::UserData(ud) => ud.borrow::<GeneratorUd>().ok().map(|g| g.0.clone()),
        _ => None,
    }
}

/// The generator given at `pos`, or the default one; and the position of the next argument.
pub(crate) fn generator_at(lua: &Lua, a: &Args, pos: usize) -> (Shared, usize) {
    match generator_of(arg(a, pos)) {
        Some(g) => (g, pos + 1),
        None => (default_generator(lua), pos),
    }
}

/// Position of the last argument that is not nil (0 when there is none).
fn last_given(a: &Args) -> usize {
    (1..=a.len())
        .rev()
        .find(|&p| !matches!(arg(a, p), Value::Nil))
        .unwrap_or(0)
}

/// Torch's argument parser rejects calls with more arguments than any form takes.
pub(crate) fn no_more(a: &Args, pos: usize, method: &str) -> Result<()> {
    if last_given(a) >= pos {
        return Err(error(
            method,
            format!(
                "bad argument #{pos} (no more arguments expected, got {})",
                args::type_name(arg(a, pos))
            ),
        ));
    }
    Ok(())
}

/// A C `long` argument: Torch converts the Lua number with a cast, which truncates.
fn long_arg(a: &Args, pos: usize, method: &str) -> Result<i64> {
    Ok(number_arg(a, pos, method)? as i64)
}

/// Number of consecutive number arguments from `pos` on.
fn numbers_from(a: &Args, pos: usize) -> usize {
    (pos..).take_while(|&p| is_number(arg(a, p))).count()
}

/// The tensor type `torch.getdefaulttensortype()` names.
fn default_dtype(lua: &Lua, method: &str) -> Result<DType> {
    let torch: Table = lua.globals().get("torch")?;
    let f: Function = torch.get("getdefaulttensortype")?;
    let name: String = f.call(())?;
    match DType::from_typename(&name) {
        Some((d, true)) => Ok(d),
        _ => Err(error(method, format!("invalid default tensor type {name}"))),
    }
}

fn floating_only(d: DType, method: &str) -> Result<()> {
    if d.is_floating() {
        Ok(())
    } else {
        Err(error(
            method,
            format!(
                "not available for {} (only for Float and Double tensors)",
                d.tensor_typename()
            ),
        ))
    }
}

// ------------------------------------------------------------------------------------------------
// The continuous and Bernoulli-type distributions, one table for the scalar and tensor forms.

#[derive(Clone, Copy, PartialEq)]
enum Dist {
    Uniform,
    Normal,
    Cauchy,
    LogNormal,
    Exponential,
    Geometric,
    Bernoulli,
}

impl Dist {
    fn name(self) -> &'static str {
        match self {
            Dist::Uniform => "uniform",
            Dist::Normal => "normal",
            Dist::Cauchy => "cauchy",
            Dist::LogNormal => "logNormal",
            Dist::Exponential => "exponential",
            Dist::Geometric => "geometric",
            Dist::Bernoulli => "bernoulli",
        }
    }

    fn torch_name(self) -> &'static str {
        match self {
            Dist::Uniform => "torch.uniform",
            Dist::Normal => "torch.normal",
            Dist::Cauchy => "torch.cauchy",
            Dist::LogNormal => "torch.logNormal",
            Dist::Exponential => "torch.exponential",
            Dist::Geometric => "torch.geometric",
            Dist::Bernoulli => "torch.bernoulli",
        }
    }

    /// Torch's parameters and their defaults (None: required).
    fn defaults(self) -> &'static [Option<f64>] {
        match self {
            Dist::Uniform | Dist::Normal | Dist::Cauchy => &[Some(0.0), Some(1.0)],
            Dist::LogNormal => &[Some(1.0), Some(2.0)],
            Dist::Exponential | Dist::Geometric => &[None],
            Dist::Bernoulli => &[Some(0.5)],
        }
    }

    /// Torch defines the continuous ones for Float and Double tensors only, and passes their
    /// parameters as the tensor's element type (so a FloatTensor sees them rounded to float).
    fn continuous(self) -> bool {
        !matches!(self, Dist::Geometric | Dist::Bernoulli)
    }

    fn check(self, p: &[f64]) -> std::result::Result<(), &'static str> {
        match self {
            Dist::Normal | Dist::LogNormal if p[1].is_nan() || p[1] <= 0.0 => {
                Err("standard deviation must be strictly positive")
            }
            Dist::Geometric if !(p[0] > 0.0 && p[0] < 1.0) => Err("p must be > 0 and < 1"),
            Dist::Bernoulli if !(p[0] >= 0.0 && p[0] <= 1.0) => Err("p must be >= 0 and <= 1"),
            _ => Ok(()),
        }
    }

    fn draw(self, g: &mut Generator, p: &[f64]) -> f64 {
        match self {
            Dist::Uniform => g.uniform(p[0], p[1]),
            Dist::Normal => g.normal(p[0], p[1]),
            Dist::Cauchy => g.cauchy(p[0], p[1]),
            Dist::LogNormal => g.log_normal(p[0], p[1]),
            Dist::Exponential => g.exponential(p[0]),
            Dist::Geometric => f64::from(g.geometric(p[0])),
            Dist::Bernoulli => f64::from(u8::from(g.bernoulli(p[0]))),
        }
    }

    /// The parameters at `pos..`, defaults filled in.
    fn params(self, a: &Args, pos: usize, method: &str) -> Result<Vec<f64>> {
        let mut out = Vec::new();
        for (i, d) in self.defaults().iter().enumerate() {
            let v = match (arg(a, pos + i), d) {
                (Value::Nil, Some(d)) => *d,
                _ => number_arg(a, pos + i, method)?,
            };
            out.push(v);
        }
        no_more(a, pos + self.defaults().len(), method)?;
        Ok(out)
    }
}

/// `x:dist([gen,] params...)`: fills x in place and returns it. Also `torch.dist(x, ...)`.
fn fill_dist(lua: &Lua, a: &Args, dist: Dist) -> Result<MultiValue> {
    let method = dist.name();
    let t = tensor_arg(a, 1, method)?;
    if dist.continuous() {
        floating_only(t.dtype, method)?;
    }
    let (g, pos) = generator_at(lua, a, 2);
    if dist == Dist::Bernoulli
        && let Some(p) = tensor_of(arg(a, pos))
    {
        no_more(a, pos + 1, method)?;
        return bernoulli_tensor(&t, &g, &p, a);
    }
    draw_dist(&t, &mut g.borrow_mut(), dist, a, pos)?;
    receiver(a)
}

/// Fills `t` with draws of `dist` from `g`, its parameters at `pos..` of `a`.
fn draw_dist(t: &Tensor, g: &mut Generator, dist: Dist, a: &Args, pos: usize) -> Result<()> {
    let method = dist.name();
    let mut p = dist.params(a, pos, method)?;
    if dist.continuous() && t.dtype == DType::Float {
        for v in p.iter_mut() {
            *v = *v as f32 as f64;
        }
    }
    dist.check(&p).map_err(|m| error(method, m))?;
    if dist == Dist::Geometric {
        fills::fill_int(t, || i64::from(g.geometric(p[0]))).named(method)
    } else {
        fills::fill_real(t, || dist.draw(g, &p)).named(method)
    }
}

/// Fills the host tensor `t` as `t:name(...)` does with the arguments at `pos..` of `a` (no
/// generator among them), drawing from `g`: tensors of other families (a GPU's, with its own
/// generator) draw through this, so that every family draws as the host does.
pub(crate) fn fill_like_method(name: &str, t: &Tensor, g: &mut Generator, a: &Args, pos: usize) -> Result<()> {
    let dist = match name {
        "random" => {
            let b = bounds(a, pos, name)?;
            return fill_bounded(t, g, b, name);
        }
        "uniform" => Dist::Uniform,
        "normal" => Dist::Normal,
        "cauchy" => Dist::Cauchy,
        "logNormal" => Dist::LogNormal,
        "exponential" => Dist::Exponential,
        "geometric" => Dist::Geometric,
        "bernoulli" => Dist::Bernoulli,
        _ => return Err(error(name, "internal error: not a distribution")),
    };
    if dist.continuous() {
        floating_only(t.dtype, name)?;
    }
    draw_dist(t, g, dist, a, pos)
}

/// `x:bernoulli([gen,] probs)`: one draw per element with that element's probability.
fn bernoulli_tensor(t: &Tensor, g: &Shared, probs: &Tensor, a: &Args) -> Result<MultiValue> {
    let method = "bernoulli";
    if probs.numel() != t.numel() {
        return Err(error(
            method,
            format!(
                "inconsistent tensor size: {} elements to fill, {} probabilities",
                t.numel(),
                probs.numel()
            ),
        ));
    }
    let p = fills::values(probs).named(method)?;
    if let Some(bad) = p.iter().find(|&&v| !(0.0..=1.0).contains(&v)) {
        return Err(error(method, format!("p must be >= 0 and <= 1 (got {bad})")));
    }
    let mut g = g.borrow_mut();
    let mut it = p.into_iter();
    fills::fill_real(t, || f64::from(u8::from(g.bernoulli(it.next().unwrap_or(0.0))))).named(method)?;
    receiver(a)
}

/// `torch.dist([gen,] params...)` gives a number; `torch.dist(x, ...)` fills x.
fn scalar_dist(lua: &Lua, a: &Args, dist: Dist) -> Result<MultiValue> {
    if tensor_of(arg(a, 1)).is_some() {
        return fill_dist(lua, a, dist);
    }
    let method = dist.torch_name();
    let (g, pos) = generator_at(lua, a, 1);
    let p = dist.params(a, pos, method)?;
    dist.check(&p).map_err(|m| error(method, m))?;
    let v = dist.draw(&mut g.borrow_mut(), &p);
    one(Value::Number(v))
}

// ------------------------------------------------------------------------------------------------
// random: integers.

/// `r % (b + 1 - a) + a` with C's unsigned wrap-around; the cast back to signed gives the
/// intended value (Torch stores the unsigned sum, which differs for negative results in
/// Float/Double tensors only, where Torch's own value is a wrapped-around huge number).
fn in_range(r: u64, lo: i64, hi: i64) -> i64 {
    let range = hi.wrapping_add(1).wrapping_sub(lo) as u64;
    let r = if range == 0 { r } else { r % range };
    r.wrapping_add(lo as u64) as i64
}

/// The bounds of a `random` call at `pos` (0, 1 or 2 numbers), checked as Torch does.
enum Bounds {
    Full,
    UpTo(i64),
    Between(i64, i64),
}

fn bounds(a: &Args, pos: usize, method: &str) -> Result<Bounds> {
    let b = match numbers_from(a, pos) {
        0 => Bounds::Full,
        1 => Bounds::UpTo(long_arg(a, pos, method)?),
        _ => Bounds::Between(long_arg(a, pos, method)?, long_arg(a, pos + 1, method)?),
    };
    let used = match b {
        Bounds::Full => 0,
        Bounds::UpTo(n) if n <= 0 => return Err(error(method, "upper bound must be strictly positive")),
        Bounds::UpTo(_) => 1,
        Bounds::Between(lo, hi) if hi < lo => return Err(error(method, "upper bound must be larger than lower bound")),
        Bounds::Between(..) => 2,
    };
    no_more(a, pos + used, method)?;
    Ok(b)
}

/// What plain `x:random()` is reduced modulo, per type: the type's maximum + 1 for integers,
/// 2^mantissa + 1 for the floating types.
fn full_modulus(d: DType) -> u64 {
    match d {
        DType::Byte => 1 << 8,
        DType::Char => 1 << 7,
        DType::Short => 1 << 15,
        DType::Int => 1 << 31,
        DType::Long => 1 << 63,
        DType::Float => (1 << f32::MANTISSA_DIGITS) + 1,
        DType::Double => (1 << f64::MANTISSA_DIGITS) + 1,
        DType::Half => (1 << half::f16::MANTISSA_DIGITS) + 1,
    }
}

fn fill_random(lua: &Lua, a: &Args) -> Result<MultiValue> {
    let method = "random";
    let t = tensor_arg(a, 1, method)?;
    let (g, pos) = generator_at(lua, a, 2);
    let b = bounds(a, pos, method)?;
    fill_bounded(&t, &mut g.borrow_mut(), b, method)?;
    receiver(a)
}

fn fill_bounded(t: &Tensor, g: &mut Generator, b: Bounds, method: &str) -> Result<()> {
    match b {
        Bounds::Full => {
            let m = full_modulus(t.dtype);
            fills::fill_int(t, || (g.random() % m) as i64).named(method)
        }
        Bounds::UpTo(n) => fills::fill_int(t, || (g.random() % n as u64 + 1) as i64).named(method),
        Bounds::Between(lo, hi) => fills::fill_int(t, || in_range(g.random(), lo, hi)).named(method),
    }
}

fn scalar_random(lua: &Lua, a: &Args) -> Result<MultiValue> {
    if tensor_of(arg(a, 1)).is_some() {
        return fill_random(lua, a);
    }
    let method = "torch.random";
    let (g, pos) = generator_at(lua, a, 1);
    let b = bounds(a, pos, method)?;
    let r = g.borrow_mut().random();
    let v = match b {
        Bounds::Full => r as i64,
        Bounds::UpTo(n) => (r % n as u64 + 1) as i64,
        Bounds::Between(lo, hi) => in_range(r, lo, hi),
    };
    one(Value::Number(v as f64))
}

// ------------------------------------------------------------------------------------------------
// Functions that make (or refill) a tensor: rand, randn, randperm, multinomial.

/// The common head of `f([res,] [gen,] args... [, typename])`: the result tensor (given, or a
/// new empty one of the named or default type), the generator, and the remaining arguments.
struct Target {
    value: Option<Value>,
    tensor: Tensor,
    generator: Shared,
    rest: Args,
}

fn target(lua: &Lua, a: &Args, method: &str) -> Result<Target> {
    let given = tensor_of(arg(a, 1));
    let (generator, pos) = generator_at(lua, a, if given.is_some() { 2 } else { 1 });
    let mut end = last_given(a);
    let mut named = None;
    if end >= pos
        && let Value::String(s) = arg(a, end)
    {
        let name = s.to_string_lossy();
        match DType::from_typename(&name) {
            Some((d, true)) if given.is_none() => named = Some(d),
            Some((_, true)) => return Err(error(method, "a type name cannot follow a result tensor")),
            _ => return Err(error(method, format!("unknown tensor type {name}"))),
        }
        end -= 1;
    }
    let rest: Args = Variadic::from_iter(a.iter().take(end).skip(pos - 1).cloned());
    let (value, tensor) = match given {
        Some(t) => (Some(arg(a, 1).clone()), t),
        None => {
            let d = match named {
                Some(d) => d,
                None => default_dtype(lua, method)?,
            };
            (None, Tensor::empty(d))
        }
    };
    Ok(Target {
        value,
        tensor,
        generator,
        rest,
    })
}

/// Gives the caller the tensor: the given one (its view updated after a resize) or a new one.
fn finish(lua: &Lua, target: Target) -> Result<MultiValue> {
    match target.value {
        Some(v) => {
            set_view(&v, target.tensor)?;
            one(v)
        }
        None => one(push_tensor(lua, target.tensor)?),
    }
}

/// `torch.rand([res,] [gen,] sizes...)` and `torch.randn(...)`; sizes as numbers or a LongStorage.
fn rand_like(lua: &Lua, a: &Args, method: &str, normal: bool) -> Result<MultiValue> {
    let mut tg = target(lua, a, method)?;
    floating_only(tg.tensor.dtype, method)?;
    let size =
        crate::torch::tensor_args::usize_sizes(&crate::torch::tensor_args::sizes_arg(&tg.rest, 1, method)?, method)?;
    construct::resize(&mut tg.tensor, &size).named(method)?;
    {
        let mut g = tg.generator.borrow_mut();
        if normal {
            fills::fill_real(&tg.tensor, || g.normal(0.0, 1.0)).named(method)?;
        } else {
            fills::fill_real(&tg.tensor, || g.uniform(0.0, 1.0)).named(method)?;
        }
    }
    finish(lua, tg)
}

/// `torch.randperm([res,] [gen,] n)`: 1..n shuffled, in the default tensor type.
fn randperm(lua: &Lua, a: &Args, method: &str) -> Result<MultiValue> {
    let mut tg = target(lua, a, method)?;
    let n = long_arg(&tg.rest, 1, method)?;
    no_more(&tg.rest, 2, method)?;
    if n <= 0 {
        return Err(error(method, "n must be strictly positive"));
    }
    construct::resize(&mut tg.tensor, &[n as usize]).named(method)?;
    let perm = tg.generator.borrow_mut().randperm(n as usize);
    let mut it = perm.into_iter();
    fills::fill_int(&tg.tensor, || it.next().unwrap_or(0) + 1).named(method)?;
    finish(lua, tg)
}

/// `torch.multinomial([res,] [gen,] probs, n [, replacement])`: a LongTensor of 1-based category
/// indices, n per row of probs (a vector or a matrix of weights).
fn multinomial(lua: &Lua, a: &Args, method: &str) -> Result<MultiValue> {
    // A result tensor comes first only when the probabilities follow it (after an optional
    // generator); otherwise the first tensor holds the probabilities.
    let after = if generator_of(arg(a, 2)).is_some() { 3 } else { 2 };
    let has_result = tensor_of(arg(a, 1)).is_some() && tensor_of(arg(a, after)).is_some();
    let (result, pos) = if has_result {
        let r = tensor_arg(a, 1, method)?;
        if r.dtype != DType::Long {
            return Err(error(
                method,
                format!(
                    "bad argument #1 (torch.LongTensor expected, got {})",
                    r.dtype.tensor_typename()
                ),
            ));
        }
        (Some(r), 2)
    } else {
        (None, 1)
    };
    let (g, pos) = generator_at(lua, a, pos);
    let probs = tensor_arg(a, pos, method)?;
    let (size, out) = multinomial_draws(&mut g.borrow_mut(), &probs, a, pos + 1, method)?;
    let mut res = result.unwrap_or_else(|| Tensor::empty(DType::Long));
    construct::resize(&mut res, &size).named(method)?;
    let mut it = out.into_iter();
    fills::fill_int(&res, || it.next().unwrap_or(0)).named(method)?;
    if has_result {
        set_view(arg(a, 1), res)?;
        return receiver(a);
    }
    one(push_tensor(lua, res)?)
}

/// The draws of `multinomial` from the host tensor `probs`, with `n [, replacement]` at `pos..`
/// of `a`: the result's size and its 1-based categories in row-major order.
pub(crate) fn multinomial_draws(
    g: &mut Generator,
    probs: &Tensor,
    a: &Args,
    pos: usize,
    method: &str,
) -> Result<(Vec<usize>, Vec<i64>)> {
    let n = number_arg(a, pos, method)? as i32;
    let replacement = match arg(a, pos + 1) {
        Value::Nil => false,
        Value::Boolean(b) => *b,
        v => {
            return Err(error(
                method,
                format!(
                    "bad argument #{} (boolean expected, got {})",
                    pos + 1,
                    args::type_name(v)
                ),
            ));
        }
    };
    no_more(a, pos + 2, method)?;
    if probs.dim() != 1 && probs.dim() != 2 {
        return Err(error(method, "prob_dist must be 1 or 2 dim"));
    }
    if n <= 0 {
        return Err(error(method, "cannot sample n_sample <= 0 samples"));
    }
    let n = n as usize;
    let (rows, cols) = if probs.dim() == 1 {
        (1, probs.size[0])
    } else {
        (probs.size[0], probs.size[1])
    };
    let values = fills::values(probs).named(method)?;
    let mut out = vec![0i64; rows * n];
    for (row, dst) in out.chunks_mut(n).enumerate() {
        g.multinomial_row(&values[row * cols..(row + 1) * cols], replacement, dst)
            .named(method)?;
    }
    for v in out.iter_mut() {
        *v += 1;
    }
    let size: Vec<usize> = if probs.dim() == 1 { vec![n] } else { vec![rows, n] };
    Ok((size, out))
}

// ------------------------------------------------------------------------------------------------
// Seeds and state.

fn manual_seed(lua: &Lua, a: &Args) -> Result<MultiValue> {
    let method = "torch.manualSeed";
    let (g, pos) = generator_at(lua, a, 1);
    let seed = long_arg(a, pos, method)?;
    no_more(a, pos + 1, method)?;
    g.borrow_mut().manual_seed(seed as u64);
    none()
}

fn seed(lua: &Lua, a: &Args) -> Result<MultiValue> {
    let method = "torch.seed";
    let (g, pos) = generator_at(lua, a, 1);
    no_more(a, pos, method)?;
    let s = urandom_seed().map_err(|e| error(method, format!("unable to read /dev/urandom: {e}")))?;
    g.borrow_mut().manual_seed(s);
    one(Value::Number(s as f64))
}

fn initial_seed(lua: &Lua, a: &Args) -> Result<MultiValue> {
    let method = "torch.initialSeed";
    let (g, pos) = generator_at(lua, a, 1);
    no_more(a, pos, method)?;
    // Torch returns it as a C long.
    one(Value::Number(g.borrow().initial_seed() as i64 as f64))
}

fn byte_tensor_at(a: &Args, pos: usize, method: &str) -> Result<Tensor> {
    let t = tensor_arg(a, pos, method)?;
    if t.dtype != DType::Byte {
        return Err(error(
            method,
            format!(
                "bad argument #{pos} (torch.ByteTensor expected, got {})",
                t.dtype.tensor_typename()
            ),
        ));
    }
    Ok(t)
}

/// `torch.getRNGState([gen] [, state])`: the raw generator state in a ByteTensor (the given one,
/// resized, or a new one).
fn get_rng_state(lua: &Lua, a: &Args) -> Result<MultiValue> {
    let method = "torch.getRNGState";
    let (g, pos) = generator_at(lua, a, 1);
    let bytes = g.borrow().to_bytes();
    if matches!(arg(a, pos), Value::Nil) {
        return one(push_tensor(lua, state_tensor(&g.borrow())?)?);
    }
    let mut t = byte_tensor_at(a, pos, method)?;
    no_more(a, pos + 1, method)?;
    construct::resize(&mut t, &[STATE_BYTES]).named(method)?;
    if !t.is_contiguous() {
        return Err(error(method, "RNG state needs to be contiguous"));
    }
    let mut it = bytes.into_iter();
    fills::fill_int(&t, || i64::from(it.next().unwrap_or(0))).named(method)?;
    set_view(arg(a, pos), t)?;
    one(arg(a, pos).clone())
}

/// `torch.setRNGState([gen,] state)`: installs a state from getRNGState; returns it.
fn set_rng_state(lua: &Lua, a: &Args) -> Result<MultiValue> {
    let method = "torch.setRNGState";
    let (g, pos) = generator_at(lua, a, 1);
    let state = state_at(a, pos, method)?;
    no_more(a, pos + 1, method)?;
    *g.borrow_mut() = state;
    one(arg(a, pos).clone())
}

/// A new ByteTensor holding `g`'s state (what getRNGState returns).
pub(crate) fn state_tensor(g: &Generator) -> Result<Tensor> {
    Ok(Tensor::of_storage(args::lift(Storage::from_slice(&g.to_bytes()))?))
}

/// The generator whose state (from getRNGState) is the ByteTensor at `pos`.
pub(crate) fn state_at(a: &Args, pos: usize, method: &str) -> Result<Generator> {
    let t = byte_tensor_at(a, pos, method)?;
    if t.numel() != STATE_BYTES {
        return Err(error(method, "RNG state is wrong size"));
    }
    if !t.is_contiguous() {
        return Err(error(method, "RNG state needs to be contiguous"));
    }
    let bytes: Vec<u8> = fills::values(&t).named(method)?.into_iter().map(|v| v as u8).collect();
    Generator::from_bytes(&bytes).named(method)
}

/// `_registerGenerator(meta)`: the torch.Generator userdata's metatable fields.
fn register_generator(lua: &Lua, meta: Table) -> Result<()> {
    let fields: Vec<(String, Value)> = meta.pairs::<String, Value>().collect::<Result<_>>()?;
    lua.register_userdata_type::<GeneratorUd>(|reg| {
        for (k, v) in fields {
            reg.add_meta_field(k, v);
        }
    })
}

/// `_newGenerator()`: a generator seeded from entropy.
fn new_generator(lua: &Lua, _: ()) -> Result<mlua::AnyUserData> {
    lua.create_any_userdata(GeneratorUd(Rc::new(RefCell::new(Generator::from_entropy()))))
}

/// `_defaultGenerator()`: the state's default generator.
fn default_generator_ud(lua: &Lua, _: ()) -> Result<mlua::AnyUserData> {
    lua.create_any_userdata(GeneratorUd(default_generator(lua)))
}

pub fn install(lua: &Lua, tensor: &Table, functions: &Table) -> Result<()> {
    macro_rules! dist {
        ($name:literal, $d:expr) => {
            add(lua, tensor, $name, |lua, a| fill_dist(lua, &a, $d))?;
            add(lua, functions, $name, |lua, a| scalar_dist(lua, &a, $d))?;
        };
    }
    dist!("uniform", Dist::Uniform);
    dist!("normal", Dist::Normal);
    dist!("cauchy", Dist::Cauchy);
    dist!("logNormal", Dist::LogNormal);
    dist!("exponential", Dist::Exponential);
    dist!("geometric", Dist::Geometric);
    dist!("bernoulli", Dist::Bernoulli);
    add(lua, tensor, "random", |lua, a| fill_random(lua, &a))?;
    add(lua, functions, "random", |lua, a| scalar_random(lua, &a))?;

    add(lua, tensor, "rand", |lua, a| rand_like(lua, &a, "rand", false))?;
    add(lua, functions, "rand", |lua, a| rand_like(lua, &a, "torch.rand", false))?;
    add(lua, tensor, "randn", |lua, a| rand_like(lua, &a, "randn", true))?;
    add(lua, functions, "randn", |lua, a| {
        rand_like(lua, &a, "torch.randn", true)
    })?;
    add(lua, tensor, "randperm", |lua, a| randperm(lua, &a, "randperm"))?;
    add(lua, functions, "randperm", |lua, a| randperm(lua, &a, "torch.randperm"))?;
    add(lua, tensor, "multinomial", |lua, a| multinomial(lua, &a, "multinomial"))?;
    add(lua, functions, "multinomial", |lua, a| {
        multinomial(lua, &a, "torch.multinomial")
    })?;

    add(lua, functions, "manualSeed", |lua, a| manual_seed(lua, &a))?;
    add(lua, functions, "seed", |lua, a| seed(lua, &a))?;
    add(lua, functions, "initialSeed", |lua, a| initial_seed(lua, &a))?;
    add(lua, functions, "getRNGState", |lua, a| get_rng_state(lua, &a))?;
    add(lua, functions, "setRNGState", |lua, a| set_rng_state(lua, &a))?;

    // For lua/torch/random.lua, which builds the torch.Generator class and then removes these
    // from the torch table: the userdata metatable fields, and generator constructors.
    crate::calls::add(lua, functions, "_registerGenerator", register_generator)?;
    crate::calls::add(lua, functions, "_newGenerator", new_generator)?;
    crate::calls::add(lua, functions, "_defaultGenerator", default_generator_ud)?;
    // Seed the default generator now, as Torch does when it loads.
    default_generator(lua);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::base::dtype::Element;

    #[test]
    fn ranges_wrap_like_c_unsigned_arithmetic() {
        assert_eq!(in_range(0, -5, 5), -5);
        assert_eq!(in_range(10, -5, 5), 5);
        assert_eq!(in_range(11, -5, 5), -5);
        assert_eq!(in_range(7, 3, 3), 3);
        // The full 64-bit range has no modulus to take.
        assert_eq!(in_range(42, i64::MIN, i64::MAX), i64::MIN + 42);
        // A byte target keeps the low 8 bits, as a C conversion does.
        assert_eq!(u8::from_i64(in_range(10, 250, 260)), 4);
    }

    #[test]
    fn plain_random_moduli_per_type() {
        assert_eq!(full_modulus(DType::Byte), 256);
        assert_eq!(full_modulus(DType::Char), 128);
        assert_eq!(full_modulus(DType::Short), 32768);
        assert_eq!(full_modulus(DType::Int), 1 << 31);
        assert_eq!(full_modulus(DType::Float), (1 << 24) + 1);
        assert_eq!(full_modulus(DType::Double), (1 << 53) + 1);
    }
}
