//! Torch7's LAPACK functions: `torch.gesv`, `trtrs`, `gels`, `symeig`, `eig`, `svd`, `inverse`,
//! `potrf`, `potrs`, `potri`, `pstrf`, `qr`, `geqrf`, `orgqr`, `ormqr` (functions only, as in
//! Torch7). Each takes its result tensors first, all or none (`torch.gesv([resb, resa,] b, a)`),
//! then the operands and the one-letter options (`forms::table`); it returns its results, the
//! tensors given when given. The table names each form's function; `methods::ops` installs
//! `lapack` for all of them. The work, and the layout of the results, is `kernels::lapack`.

use mlua::{Lua, MultiValue, Result};

use crate::args::Args;
use crate::error::Named;
use crate::torch::base::tensor::Tensor;
use crate::torch::forms::bind::{Bound, Dest, Mode, bind};
use crate::torch::forms::computes::{Computes, Lapack};
use crate::torch::forms::table::Entry;
use crate::torch::kernels::lapack as kernel;
use crate::torch::userdata::{Host, push_tensor, set_view};

/// A call bound to its forms: the result tensors given (none or all), and the operands.
struct Call {
    given: Vec<Dest>,
    operands: Vec<Tensor>,
    bound: Bound,
}

impl Call {
    fn of(a: &Args, mode: Mode, e: &Entry) -> Result<Call> {
        let bound = bind::<Host>(a, mode, e)?;
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

/// A LAPACK function, the one the bound form names, with its results in Torch7's order.
pub(super) fn lapack(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> Result<MultiValue> {
    let name = e.name;
    let c = Call::of(&a, mode, e)?;
    let Computes::Lapack(f) = c.bound.computes() else {
        unreachable!("{name}: not a LAPACK function")
    };
    let outs = match f {
        Lapack::Gesv => pair(kernel::gesv(c.out(0), c.out(1), c.operand(0), c.operand(1))),
        Lapack::Trtrs => {
            let options = (c.letter(0), c.letter(1), c.letter(2));
            pair(kernel::trtrs(c.out(0), c.out(1), c.operand(0), c.operand(1), options))
        }
        Lapack::Gels => pair(kernel::gels(c.out(0), c.out(1), c.operand(0), c.operand(1))),
        Lapack::Symeig => pair(kernel::symeig(
            c.out(0),
            c.out(1),
            c.operand(0),
            c.letter(0),
            c.letter(1),
        )),
        Lapack::Eig => pair(kernel::eig(c.out(0), c.out(1), c.operand(0), c.letter(0))),
        Lapack::Svd => {
            kernel::svd(c.out(0), c.out(1), c.out(2), c.operand(0), c.letter(0)).map(|(u, s, v)| vec![u, s, v])
        }
        Lapack::Inverse => single(kernel::inverse(c.out(0), c.operand(0))),
        Lapack::Potrf => single(kernel::potrf(c.out(0), c.operand(0), c.letter(0))),
        Lapack::Potrs => single(kernel::potrs(c.out(0), c.operand(0), c.operand(1), c.letter(0))),
        Lapack::Potri => single(kernel::potri(c.out(0), c.operand(0), c.letter(0))),
        Lapack::Pstrf => {
            let tol = c.bound.number(0).unwrap_or(-1.0);
            pair(kernel::pstrf(c.out(0), c.out(1), c.operand(0), c.letter(0), tol))
        }
        Lapack::Qr => pair(kernel::qr(c.out(0), c.out(1), c.operand(0))),
        Lapack::Geqrf => pair(kernel::geqrf(c.out(0), c.out(1), c.operand(0))),
        Lapack::Orgqr => single(kernel::orgqr(c.out(0), c.operand(0), c.operand(1))),
        Lapack::Ormqr => {
            let (side, trans) = (c.letter(0), c.letter(1));
            single(kernel::ormqr(
                c.out(0),
                c.operand(0),
                c.operand(1),
                c.operand(2),
                side,
                trans,
            ))
        }
    }
    .named(name)?;
    c.finish(lua, outs)
}

/// A function's one result, as the list `finish` takes.
fn single(r: crate::error::Result<Tensor>) -> crate::error::Result<Vec<Tensor>> {
    r.map(|t| vec![t])
}

/// A function's two results, as the list `finish` takes.
fn pair(r: crate::error::Result<(Tensor, Tensor)>) -> crate::error::Result<Vec<Tensor>> {
    r.map(|(x, y)| vec![x, y])
}
