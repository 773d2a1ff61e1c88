//! Torch7's LAPACK functions: `torch.gesv`, `trtrs`, `gels`, `symeig`, `eig`, `svd`, `inverse`,
//! `potrf`, `potrs`, `potri`, `pstrf`, `qr`, `geqrf`, `orgqr`, `ormqr` (functions only, as in
//! Torch7). Each takes its result tensors first, all or none (`torch.gesv([resb, resa,] b, a)`),
//! then the operands and the one-letter options (`forms::table`); it returns its results, the
//! tensors given when given. The work, and the layout of the results, is `kernels::lapack`.

use mlua::{Lua, MultiValue, Result, Table};

use super::convention::add;
use crate::error::Named;
use crate::torch::args::Args;
use crate::torch::base::tensor::Tensor;
use crate::torch::forms::bind::{Bound, Dest, Mode, bind};
use crate::torch::forms::table::entry;
use crate::torch::kernels::lapack as kernel;
use crate::torch::userdata::{Host, push_tensor, set_view};

/// A call bound to its forms: the result tensors given (none or all), and the operands.
struct Call {
    given: Vec<Dest>,
    operands: Vec<Tensor>,
    bound: Bound,
}

impl Call {
    fn of(a: &Args, name: &str) -> Result<Call> {
        let bound = bind::<Host>(a, Mode::Function, entry(name))?;
        Ok(Call {
            given: bound.results().cloned().collect(),
            operands: bound.tensors().cloned().collect(),
            bound,
        })
    }

    /// Result tensor `i` given, its view.
    fn out(&self, i: usize) -> Option<&Tensor> {
        self.given.get(i).map(|(_, t)| t)
    }

    fn operand(&self, i: usize) -> &Tensor {
        &self.operands[i]
    }

    fn letter(&self, i: usize) -> u8 {
        self.bound.letter(i)
    }

    /// The results: each given tensor takes its new view and is returned; the others are new.
    fn finish(self, lua: &Lua, outs: Vec<Tensor>) -> Result<MultiValue> {
        let mut values = Vec::with_capacity(outs.len());
        for (i, out) in outs.into_iter().enumerate() {
            match self.given.get(i) {
                Some((v, _)) => {
                    set_view(v, out)?;
                    values.push(v.clone());
                }
                None => values.push(push_tensor(lua, out)?),
            }
        }
        Ok(MultiValue::from_vec(values))
    }
}

fn gesv(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = Call::of(&a, "gesv")?;
    let (x, lu) = kernel::gesv(c.out(0), c.out(1), c.operand(0), c.operand(1)).named("gesv")?;
    c.finish(lua, vec![x, lu])
}

fn trtrs(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = Call::of(&a, "trtrs")?;
    let options = (c.letter(0), c.letter(1), c.letter(2));
    let (x, t) = kernel::trtrs(c.out(0), c.out(1), c.operand(0), c.operand(1), options).named("trtrs")?;
    c.finish(lua, vec![x, t])
}

fn gels(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = Call::of(&a, "gels")?;
    let (x, f) = kernel::gels(c.out(0), c.out(1), c.operand(0), c.operand(1)).named("gels")?;
    c.finish(lua, vec![x, f])
}

fn symeig(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = Call::of(&a, "symeig")?;
    let (e, v) = kernel::symeig(c.out(0), c.out(1), c.operand(0), c.letter(0), c.letter(1)).named("symeig")?;
    c.finish(lua, vec![e, v])
}

fn eig(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = Call::of(&a, "eig")?;
    let (e, v) = kernel::eig(c.out(0), c.out(1), c.operand(0), c.letter(0)).named("eig")?;
    c.finish(lua, vec![e, v])
}

fn svd(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = Call::of(&a, "svd")?;
    let (u, s, v) = kernel::svd(c.out(0), c.out(1), c.out(2), c.operand(0), c.letter(0)).named("svd")?;
    c.finish(lua, vec![u, s, v])
}

fn inverse(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = Call::of(&a, "inverse")?;
    let r = kernel::inverse(c.out(0), c.operand(0)).named("inverse")?;
    c.finish(lua, vec![r])
}

fn potrf(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = Call::of(&a, "potrf")?;
    let r = kernel::potrf(c.out(0), c.operand(0), c.letter(0)).named("potrf")?;
    c.finish(lua, vec![r])
}

fn potrs(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = Call::of(&a, "potrs")?;
    let r = kernel::potrs(c.out(0), c.operand(0), c.operand(1), c.letter(0)).named("potrs")?;
    c.finish(lua, vec![r])
}

fn potri(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = Call::of(&a, "potri")?;
    let r = kernel::potri(c.out(0), c.operand(0), c.letter(0)).named("potri")?;
    c.finish(lua, vec![r])
}

fn pstrf(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = Call::of(&a, "pstrf")?;
    let tol = c.bound.number(0).unwrap_or(-1.0);
    let (r, piv) = kernel::pstrf(c.out(0), c.out(1), c.operand(0), c.letter(0), tol).named("pstrf")?;
    c.finish(lua, vec![r, piv])
}

fn qr(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = Call::of(&a, "qr")?;
    let (q, r) = kernel::qr(c.out(0), c.out(1), c.operand(0)).named("qr")?;
    c.finish(lua, vec![q, r])
}

fn geqrf(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = Call::of(&a, "geqrf")?;
    let (m, tau) = kernel::geqrf(c.out(0), c.out(1), c.operand(0)).named("geqrf")?;
    c.finish(lua, vec![m, tau])
}

fn orgqr(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = Call::of(&a, "orgqr")?;
    let q = kernel::orgqr(c.out(0), c.operand(0), c.operand(1)).named("orgqr")?;
    c.finish(lua, vec![q])
}

fn ormqr(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = Call::of(&a, "ormqr")?;
    let (side, trans) = (c.letter(0), c.letter(1));
    let r = kernel::ormqr(c.out(0), c.operand(0), c.operand(1), c.operand(2), side, trans).named("ormqr")?;
    c.finish(lua, vec![r])
}

/// Adds the functions to `torch`.
pub fn install(lua: &Lua, functions: &Table) -> Result<()> {
    add(lua, functions, "gesv", gesv)?;
    add(lua, functions, "trtrs", trtrs)?;
    add(lua, functions, "gels", gels)?;
    add(lua, functions, "symeig", symeig)?;
    add(lua, functions, "eig", eig)?;
    add(lua, functions, "svd", svd)?;
    add(lua, functions, "inverse", inverse)?;
    add(lua, functions, "potrf", potrf)?;
    add(lua, functions, "potrs", potrs)?;
    add(lua, functions, "potri", potri)?;
    add(lua, functions, "pstrf", pstrf)?;
    add(lua, functions, "qr", qr)?;
    add(lua, functions, "geqrf", geqrf)?;
    add(lua, functions, "orgqr", orgqr)?;
    add(lua, functions, "ormqr", ormqr)?;
    Ok(())
}
