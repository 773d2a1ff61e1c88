//! The host's tensor ops, installed by walking `forms::table`: each computation the table names is
//! mapped here, once, to the function that carries it out, and every op of the table becomes a
//! method of the tensor classes and a `torch.*` function. No other list of op names is kept, so an
//! op added to the table with a new computation does not build until the host maps it.
//!
//! A function binds the call to its op's forms (`forms::bind`, in the mode it was called in) and
//! reads what the bound form computes. For the ops whose method's receiver is an argument (every
//! policy but the elementwise maths' and the products'), binding as a method is binding as a
//! function, so `x:sum()` is `torch.sum(x)`.

use mlua::{Lua, MultiValue, Result, Table};

use super::{conv, lapack, linalg, math, reduce};
use crate::args::Args;
use crate::torch::forms::bind::Mode;
use crate::torch::forms::computes::Computes;
use crate::torch::forms::table::{Entry, entries};

/// A host op: the Lua call, how it was called, and its entry in the table.
type Op = fn(&Lua, Args, Mode, &'static Entry) -> Result<MultiValue>;

/// The function that carries out what a form computes.
fn op_of(c: Computes) -> Op {
    match c {
        Computes::Compare(_) => math::comparison,
        Computes::Equal | Computes::EqualNumbers => math::equal,
        Computes::Whole(_) | Computes::Along(_) => reduce::reduction,
        Computes::Dist => reduce::dist,
        Computes::Logical { .. } => reduce::logical,
        Computes::Scan { .. } => reduce::scan,
        Computes::Order(_) => reduce::order,
        Computes::Renorm => reduce::renorm,
        Computes::Histogram { .. } => reduce::histogram,
        Computes::Product { .. } => linalg::product,
        Computes::Dot => linalg::dot,
        Computes::Trace => linalg::trace,
        Computes::Cross => linalg::cross,
        Computes::Diag => linalg::diag,
        Computes::Triangle { .. } => linalg::triangle,
        Computes::Lapack(_) => lapack::lapack,
        Computes::Convolution { .. } => conv::convolution,
        // The rest of `Computes::is_elementwise` (a unit test checks that nothing else comes
        // here).
        _ => math::elementwise,
    }
}

/// Whether an op that computes `c` is a tensor method as well as a `torch.*` function: Torch7
/// declares its LAPACK functions as functions only.
fn is_method(c: Computes) -> bool {
    !matches!(c, Computes::Lapack(_))
}

fn register(lua: &Lua, table: &Table, e: &'static Entry, mode: Mode, op: Op) -> Result<()> {
    // calls: captures the table entry and calling mode it binds, one function per op.
    table.raw_set(e.name, lua.create_function(move |lua, a: Args| op(lua, a, mode, e))?)
}

/// Adds every op of the table to `tensor` (the methods) and `functions` (`torch.*`).
pub fn install(lua: &Lua, tensor: &Table, functions: &Table) -> Result<()> {
    for e in entries() {
        // Every form of an op has the same function (a unit test checks).
        let c = e.forms[0].computes;
        if is_method(c) {
            register(lua, tensor, e, Mode::Method, op_of(c))?;
        }
        register(lua, functions, e, Mode::Function, op_of(c))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_an_op_has_its_function() {
        for e in entries() {
            let first = op_of(e.forms[0].computes) as usize;
            for f in e.forms.iter().chain(e.method_forms) {
                assert_eq!(op_of(f.computes) as usize, first, "{}", e.name);
                assert_eq!(is_method(f.computes), is_method(e.forms[0].computes), "{}", e.name);
                let elementwise = f.computes.is_elementwise() && !matches!(f.computes, Computes::Compare(_));
                assert_eq!(
                    op_of(f.computes) as usize == math::elementwise as Op as usize,
                    elementwise,
                    "{}",
                    e.name
                );
            }
        }
    }
}
