//! `ipc.shmtree`: the shared-memory allreduce of an ipc.Tree whose ranks share a machine
//! (lua/ipc/Tree.lua sets it up after its socket handshake and uses it for the default sum).
//!
//!    g, name, nonce = ipc.shmtree(numNodes)                      -- the root
//!    g = ipc.shmtree(numNodes, nodeIndex, name, nonce)           -- any other node
//!    g:decide(allAttached)   (root)      g:await() -> ready       (others)
//!    g:allreduce(leaves) -> true (summed in place) | false (send this call over the sockets)
//!    one = g:one()   one(x) -> total, sum | false | nil, nil | nil, message
//!    g:close()
//!
//! `leaves` is a list of numbers and contiguous host tensors (not Half); nil, or any other leaf,
//! asks for the sockets, and then every rank's call returns false.
//!
//! `one` is the fast path of a small allreduce (a loss, a counter, a barrier): a function that
//! sums one number or one contiguous host tensor (not Half) in a single native call, with no table
//! of leaves and nothing allocated. It posts what `allreduce({0, x})` posts, so ranks may mix the
//! two. It returns the number of nodes done (0 here: see Tree.lua's numDone) and the sum (the
//! tensor itself, summed in place); false when this call goes over the sockets (every rank's
//! does); nil, nil when x is not such a value (nothing posted: use `allreduce`); nil and a message
//! when the group failed (a rank died or left, the values differ in structure).

pub mod collective;
mod segment;
pub mod sum;

use std::cell::RefCell;
use std::rc::Rc;

use mlua::{Lua, Result, Table, UserData, UserDataMethods, Value};

use crate::error::Named;
use crate::torch::args::error;
use crate::torch::dtype::DType;
use crate::torch::layout::Tensor;
use crate::torch::userdata::with_tensor;
use collective::{Group, Leaf, Outcome};
use segment::Segment;
use sum::Kind;

struct ShmTree(Rc<Inner>);

struct Inner {
    group: RefCell<Option<Group>>,
    scratch: RefCell<Scratch>,
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

impl UserData for ShmTree {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("decide", |_, this, ready: bool| {
            if let Some(g) = this.0.group.borrow_mut().as_mut() {
                g.seg.decide(ready);
            }
            Ok(())
        });
        m.add_method("await", |_, this, ()| {
            const F: &str = "ipc.shmtree:await";
            let g = this.0.group.borrow();
            let g = g.as_ref().ok_or_else(|| error(F, "closed"))?;
            g.seg.await_ready().named(F)
        });
        m.add_method("allreduce", |_, this, leaves: Option<Table>| {
            const F: &str = "ipc.shmtree:allreduce";
            let mut g = this.0.group.borrow_mut();
            let g = g.as_mut().ok_or_else(|| error(F, "closed"))?;
            let mut scratch = this.0.scratch.borrow_mut();
            let fast = match &leaves {
                Some(list) => scratch.load(list)?,
                None => false,
            };
            let out = g.allreduce(fast.then(|| scratch.leaves())).named(F)?;
            if out == Outcome::Summed
                && let Some(list) = &leaves
            {
                scratch.store_numbers(list)?;
            }
            Ok(out == Outcome::Summed)
        });
        m.add_method("one", |lua, this, ()| {
            let inner = this.0.clone();
            lua.create_function(move |lua, v: Value| one(&inner, lua, v))
        });
        m.add_method("close", |_, this, ()| {
            this.0.group.borrow_mut().take();
            Ok(())
        });
    }
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
fn one(inner: &Inner, lua: &Lua, v: Value) -> Result<(Value, Value)> {
    let failed = |lua: &Lua, m: &str| Ok((Value::Nil, Value::String(lua.create_string(m)?)));
    let mut g = inner.group.borrow_mut();
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

fn create(
    lua: &Lua,
    (n, index, name, nonce): (usize, Option<usize>, Option<String>, Option<String>),
) -> Result<mlua::MultiValue> {
    const F: &str = "ipc.shmtree";
    let wrap = |seg: Segment| {
        ShmTree(Rc::new(Inner {
            group: RefCell::new(Some(Group::new(seg))),
            scratch: RefCell::new(Scratch::default()),
        }))
    };
    match (index, name, nonce) {
        (None, None, None) => {
            let (seg, name, nonce) = Segment::create(n).named(F)?;
            let nonce = format!("{:016x}{:016x}", nonce[0], nonce[1]);
            (lua.create_userdata(wrap(seg))?, name, nonce).into_lua_multi(lua)
        }
        (Some(index), Some(name), Some(nonce)) => {
            let parse = |s: &str| u64::from_str_radix(s, 16).ok();
            let nonce = match (nonce.get(..16).and_then(parse), nonce.get(16..).and_then(parse)) {
                (Some(a), Some(b)) if nonce.len() == 32 => [a, b],
                _ => return Err(error(F, "bad nonce")),
            };
            let seg = Segment::attach(&name, nonce, n, index.wrapping_sub(1)).named(F)?;
            lua.create_userdata(wrap(seg))?.into_lua_multi(lua)
        }
        _ => Err(error(F, "expected (numNodes) or (numNodes, nodeIndex, name, nonce)")),
    }
}

use mlua::IntoLuaMulti;

pub fn register(lua: &Lua, ipc: &Table) -> Result<()> {
    ipc.set("shmtree", lua.create_function(create)?)
}
