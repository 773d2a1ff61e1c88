//! Walker's alias method, as Torch7 offers it: `torch.multinomialAliasSetup_(probs [, J, q])`
//! builds the tables once (J a LongTensor of 1-based aliases, q a tensor of probs' type), and
//! `torch.multinomialAlias_(output, [gen,] J, q)` fills every element of the LongTensor `output`
//! with a draw (1-based), so output's size is the number of draws. The `state`-table front ends
//! `torch.multinomialAliasSetup(probs [, state])` and `torch.multinomialAlias(output, state)` are
//! in lua/torch/random.lua. The tables and the draws are `crate::torch::base::random`.
//!
//! Unlike Torch7, the draw leaves J as it is (Torch's binding decrements it in place) and reads
//! it as the 1-based aliases the setup returned, so the draws follow probs exactly.

use mlua::{Lua, MultiValue, Result, Table, Value};

use super::convention::add;
use super::random::{generator_at, no_more};
use crate::args::{self, Args, arg, error};
use crate::error::Named;
use crate::torch::base::dtype::DType;
use crate::torch::base::random::alias_setup;
use crate::torch::base::tensor::Tensor;
use crate::torch::construct;
use crate::torch::kernels::fill as fills;
use crate::torch::tensor_args::tensor_arg;
use crate::torch::userdata::{push_tensor, set_view, tensor_of};

/// The tensor at `pos` (given, or a new one of type `d` when nil), checked to be of type `d`.
fn table_at(a: &Args, pos: usize, d: DType, what: &str, method: &str) -> Result<(Option<Value>, Tensor)> {
    match arg(a, pos) {
        Value::Nil => Ok((None, Tensor::empty(d))),
        v => {
            let t = tensor_of(v).filter(|t| t.dtype == d).ok_or_else(|| {
                error(
                    method,
                    format!(
                        "bad argument #{pos} ({what}: {} expected, got {})",
                        d.tensor_typename(),
                        args::type_name(v)
                    ),
                )
            })?;
            Ok((Some(v.clone()), t))
        }
    }
}

/// Hands back a table tensor: the given one (its view updated after the resize) or a new one.
fn give(lua: &Lua, given: Option<Value>, t: Tensor) -> Result<Value> {
    match given {
        Some(v) => {
            set_view(&v, t)?;
            Ok(v)
        }
        None => push_tensor(lua, t),
    }
}

fn probabilities(t: &Tensor, pos: usize, method: &str) -> Result<()> {
    if matches!(t.dtype, DType::Float | DType::Double) {
        return Ok(());
    }
    Err(error(
        method,
        format!(
            "bad argument #{pos} (probs: torch.FloatTensor or torch.DoubleTensor expected, got {})",
            t.dtype.tensor_typename()
        ),
    ))
}

/// `torch.multinomialAliasSetup_(probs [, J [, q]])`, also `probs:multinomialAliasSetup_(...)`:
/// returns J and q, resized to probs' element count (the given tensors, or new ones).
fn setup(lua: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "multinomialAliasSetup";
    let probs = tensor_arg(&a, 1, METHOD)?;
    probabilities(&probs, 1, METHOD)?;
    let (jv, mut j) = table_at(&a, 2, DType::Long, "J", METHOD)?;
    let (qv, mut q) = table_at(&a, 3, probs.dtype, "q", METHOD)?;
    no_more(&a, 4, METHOD)?;
    let p = fills::values(&probs).named(METHOD)?;
    let single = probs.dtype == DType::Float;
    let (aliases, keep) = alias_setup(&p, |x| if single { x as f32 as f64 } else { x }).named(METHOD)?;
    construct::resize(&mut j, &[p.len()]).named(METHOD)?;
    construct::resize(&mut q, &[p.len()]).named(METHOD)?;
    let mut it = aliases.into_iter();
    fills::fill_int(&j, || it.next().unwrap_or(1)).named(METHOD)?;
    let mut it = keep.into_iter();
    fills::fill_real(&q, || it.next().unwrap_or(1.0)).named(METHOD)?;
    Ok(MultiValue::from_vec(vec![give(lua, jv, j)?, give(lua, qv, q)?]))
}

/// `torch.multinomialAlias_(output, [gen,] J, q)`: `output:nElement()` draws, in logical order.
fn draw(lua: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "multinomialAlias";
    let out = tensor_arg(&a, 1, METHOD)?;
    if out.dtype != DType::Long {
        return Err(error(
            METHOD,
            format!(
                "bad argument #1 (output: torch.LongTensor expected, got {})",
                out.dtype.tensor_typename()
            ),
        ));
    }
    let (g, pos) = generator_at(lua, &a, 2);
    let j = tensor_arg(&a, pos, METHOD)?;
    if j.dtype != DType::Long {
        return Err(error(
            METHOD,
            format!(
                "bad argument #{pos} (J: torch.LongTensor expected, got {})",
                j.dtype.tensor_typename()
            ),
        ));
    }
    let q = tensor_arg(&a, pos + 1, METHOD)?;
    probabilities(&q, pos + 1, METHOD)?;
    no_more(&a, pos + 2, METHOD)?;
    let aliases: Vec<i64> = fills::values(&j).named(METHOD)?.into_iter().map(|x| x as i64).collect();
    let keep = fills::values(&q).named(METHOD)?;
    let mut drawn = vec![0i64; out.numel()];
    g.borrow_mut().alias_draw(&aliases, &keep, &mut drawn).named(METHOD)?;
    let mut it = drawn.into_iter();
    fills::fill_int(&out, || it.next().unwrap_or(0)).named(METHOD)?;
    Ok(MultiValue::from_vec(vec![arg(&a, 1).clone()]))
}

pub fn install(lua: &Lua, tensor: &Table, functions: &Table) -> Result<()> {
    for t in [tensor, functions] {
        add(lua, t, "multinomialAliasSetup_", setup)?;
        add(lua, t, "multinomialAlias_", draw)?;
    }
    Ok(())
}
