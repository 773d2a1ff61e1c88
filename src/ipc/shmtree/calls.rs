//! The Lua-facing calls that the shared-memory allreduce (this module) and the socket allreduce
//! (ipc::treenet) have in common: a list of leaves read into native leaves (`Scratch`),
//! `allreduce(leaves)`, and `one(x)`, each over any group that sums leaves (`Collective`).

use std::cell::RefCell;
use std::rc::Rc;

use mlua::{Function, Lua, Result, Table, Value};

use super::collective::{Group, Leaf, Outcome};
use super::sum::Kind;
use crate::args::error;
use crate::error::Named;
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::userdata::with_tensor;

/// A group that sums leaves over its nodes, in place; None: this node's call goes over the
/// message sockets (and so does every node's).
pub trait Collective {
    fn allreduce(&mut self, leaves: Option<&[Leaf]>) -> crate::error::Result<Outcome>;
}

impl Collective for Group {
    fn allreduce(&mut self, leaves: Option<&[Leaf]>) -> crate::error::Result<Outcome> {
        Group::allreduce(self, leaves)
    }
}

/// A group (None once closed) and its scratch leaves, shared with the `one` function.
pub struct Native<G> {
    pub group: RefCell<Option<G>>,
    scratch: RefCell<Scratch>,
}

impl<G: Collective + 'static> Native<G> {
    pub fn new(group: Option<G>) -> Rc<Native<G>> {
        Rc::new(Native {
            group: RefCell::new(group),
            scratch: RefCell::new(Scratch::default()),
        })
    }

    /// `allreduce(leaves)`: true when summed in place (numbers written back into the list),
    /// false when the call goes over the message sockets. `f` names the method in errors.
    pub fn allreduce(&self, f: &str, closed: &str, leaves: Option<Table>) -> Result<bool> {
        let mut g = self.group.borrow_mut();
        let g = g.as_mut().ok_or_else(|| error(f, closed))?;
        let mut scratch = self.scratch.borrow_mut();
        let fast = match &leaves {
            Some(list) => scratch.load(list)?,
            None => false,
        };
        let out = g.allreduce(fast.then(|| scratch.leaves())).named(f)?;
        if out == Outcome::Summed
            && let Some(list) = &leaves
        {
            scratch.store_numbers(list)?;
        }
        Ok(out == Outcome::Summed)
    }

    /// The `one` function over this group: see ipc::shmtree's header.
    pub fn one_function(self: &Rc<Self>, lua: &Lua) -> Result<Function> {
        let me = self.clone();
        // calls: one function per tree, capturing its group
        lua.create_function(move |lua, v: Value| one(&me.group, lua, v))
    }
}

/// A call's leaves as the native paths take them (shared memory here, sockets in treenet): the
/// numbers of the list gathered into one leaf of doubles, first, then its tensors. Kept between
/// calls, so that a small allreduce allocates nothing.
#[derive(Default)]
pub struct Scratch {
    numbers: Vec<f64>,
    at_numbers: Vec<usize>,
    leaves: Vec<Leaf>,
}

impl Scratch {
    /// Reads `list` (numbers and tensors); false when a leaf is neither a number nor a
    /// contiguous host tensor of a summable type (the call must go over the message sockets).
    /// The tensors' memory stays put while `list` holds them and no Lua code runs.
    pub fn load(&mut self, list: &Table) -> Result<bool> {
        self.numbers.clear();
        self.at_numbers.clear();
        self.leaves.clear();
        self.leaves.push(Leaf {
            ptr: std::ptr::null_mut(),
            bytes: 0,
            kind: Kind::F64,
        });
        let mut fast = true;
        for (i, v) in list.sequence_values::<Value>().enumerate() {
            match v? {
                Value::Number(x) => {
                    self.numbers.push(x);
                    self.at_numbers.push(i + 1);
                }
                Value::Integer(x) => {
                    self.numbers.push(x as f64);
                    self.at_numbers.push(i + 1);
                }
                v => match with_tensor(&v, tensor_leaf).flatten() {
                    Some(l) => self.leaves.push(l),
                    None => fast = false,
                },
            }
        }
        self.leaves[0] = Leaf {
            ptr: if self.numbers.is_empty() {
                std::ptr::dangling_mut::<u64>().cast()
            } else {
                self.numbers.as_mut_ptr().cast()
            },
            bytes: self.numbers.len() * 8,
            kind: Kind::F64,
        };
        Ok(fast)
    }

    pub fn leaves(&self) -> &[Leaf] {
        &self.leaves
    }

    /// Writes the summed numbers back into the list.
    pub fn store_numbers(&self, list: &Table) -> Result<()> {
        for (&x, &i) in self.numbers.iter().zip(self.at_numbers.iter()) {
            list.raw_set(i, x)?;
        }
        Ok(())
    }
}

fn kind_of(d: DType) -> Option<Kind> {
    Some(match d {
        DType::Byte => Kind::U8,
        DType::Char => Kind::I8,
        DType::Short => Kind::I16,
        DType::Int => Kind::I32,
        DType::Long => Kind::I64,
        DType::Float => Kind::F32,
        DType::Double => Kind::F64,
        DType::Half => return None,
    })
}

/// A tensor as a leaf: None when it is not contiguous host memory of a summable type.
fn tensor_leaf(t: &Tensor) -> Option<Leaf> {
    let kind = kind_of(t.dtype)?;
    if !t.is_contiguous() {
        return None;
    }
    let bytes = t.numel() * kind.size();
    if bytes == 0 {
        // Nothing to copy: any aligned address will do.
        return Some(Leaf {
            ptr: std::ptr::dangling_mut::<u64>().cast(),
            bytes,
            kind,
        });
    }
    let s = t.storage_checked().ok()?;
    if s.is_device() {
        return None;
    }
    // SAFETY: storage_checked showed the view lies inside the storage.
    let ptr = unsafe { s.data_ptr().add(t.offset * kind.size()) };
    (ptr as usize)
        .is_multiple_of(kind.size())
        .then_some(Leaf { ptr, bytes, kind })
}

/// The numbers leaf of a call: `count` doubles at `p`.
fn numbers_leaf(p: *mut f64, count: usize) -> Leaf {
    Leaf {
        ptr: p.cast(),
        bytes: count * 8,
        kind: Kind::F64,
    }
}

/// `one(x)`: see the module's header.
fn one<G: Collective>(group: &RefCell<Option<G>>, lua: &Lua, v: Value) -> Result<(Value, Value)> {
    let failed = |lua: &Lua, m: &str| Ok((Value::Nil, Value::String(lua.create_string(m)?)));
    let mut g = group.borrow_mut();
    let Some(g) = g.as_mut() else {
        return failed(lua, "closed");
    };
    // [nodes done, the number]: the numbers leaf, as Tree.lua's table path lays it out.
    let mut nums = [0.0f64, 0.0];
    let out = match &v {
        Value::Number(x) => {
            nums[1] = *x;
            g.allreduce(Some(&[numbers_leaf(nums.as_mut_ptr(), 2)]))
        }
        Value::Integer(x) => {
            nums[1] = *x as f64;
            g.allreduce(Some(&[numbers_leaf(nums.as_mut_ptr(), 2)]))
        }
        // The tensor's memory stays put during the call: `v` holds it and no Lua code runs.
        v => match with_tensor(v, tensor_leaf).flatten() {
            Some(t) => g.allreduce(Some(&[numbers_leaf(nums.as_mut_ptr(), 1), t])),
            None => return Ok((Value::Nil, Value::Nil)),
        },
    };
    match out {
        Ok(Outcome::Summed) => {
            let sum = match v {
                Value::Number(_) | Value::Integer(_) => Value::Number(nums[1]),
                v => v,
            };
            Ok((Value::Number(nums[0]), sum))
        }
        Ok(Outcome::Sockets) => Ok((Value::Boolean(false), Value::Nil)),
        Err(e) => failed(lua, e.message()),
    }
}
