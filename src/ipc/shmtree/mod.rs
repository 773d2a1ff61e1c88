//! `ipc.shmtree`: the shared-memory allreduce of an ipc.Tree whose ranks share a machine
//! (lua/ipc/Tree.lua sets it up after its socket handshake and uses it for the default sum).
//!
//!    g, name, nonce = ipc.shmtree(numNodes)                      -- the root
//!    g = ipc.shmtree(numNodes, nodeIndex, name, nonce)           -- any other node
//!    g:decide(allAttached)   (root)      g:await() -> ready       (others)
//!    g:allreduce(leaves) -> true (summed in place) | false (send this call over the sockets)
//!    g:close()
//!
//! `leaves` is a list of numbers and contiguous host tensors (not Half); nil, or any other leaf,
//! asks for the sockets, and then every rank's call returns false.

mod collective;
mod segment;
mod sum;

use std::cell::RefCell;

use mlua::{Lua, Result, Table, UserData, UserDataMethods, Value};

use crate::error::Named;
use crate::torch::args::error;
use crate::torch::dtype::DType;
use crate::torch::layout::Tensor;
use crate::torch::userdata::with_tensor;
use collective::{Group, Leaf, Outcome};
use segment::Segment;
use sum::Kind;

struct ShmTree {
    group: RefCell<Option<Group>>,
    scratch: RefCell<Scratch>,
}

#[derive(Default)]
struct Scratch {
    numbers: Vec<f64>,
    at_numbers: Vec<usize>,
    leaves: Vec<Leaf>,
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
            if let Some(g) = this.group.borrow_mut().as_mut() {
                g.seg.decide(ready);
            }
            Ok(())
        });
        m.add_method("await", |_, this, ()| {
            const F: &str = "ipc.shmtree:await";
            let g = this.group.borrow();
            let g = g.as_ref().ok_or_else(|| error(F, "closed"))?;
            g.seg.await_ready().named(F)
        });
        m.add_method("allreduce", |_, this, leaves: Option<Table>| {
            const F: &str = "ipc.shmtree:allreduce";
            let mut g = this.group.borrow_mut();
            let g = g.as_mut().ok_or_else(|| error(F, "closed"))?;
            let Some(list) = leaves else {
                return Ok(g.allreduce(None).named(F)? == Outcome::Summed);
            };
            // Buffers kept between calls: a small allreduce should allocate nothing.
            let mut guard = this.scratch.borrow_mut();
            let Scratch {
                numbers,
                at_numbers,
                leaves,
            } = &mut *guard;
            numbers.clear();
            at_numbers.clear();
            leaves.clear();
            // Numbers travel together as one leaf of doubles, first; tensors follow. A tensor's
            // memory stays put during the call: the list holds it and no Lua code runs.
            leaves.push(Leaf {
                ptr: std::ptr::null_mut(),
                bytes: 0,
                kind: Kind::F64,
            });
            let mut fast = true;
            for (i, v) in list.sequence_values::<Value>().enumerate() {
                match v? {
                    Value::Number(x) => {
                        numbers.push(x);
                        at_numbers.push(i + 1);
                    }
                    Value::Integer(x) => {
                        numbers.push(x as f64);
                        at_numbers.push(i + 1);
                    }
                    v => match with_tensor(&v, tensor_leaf).flatten() {
                        Some(l) => leaves.push(l),
                        None => fast = false,
                    },
                }
            }
            if !fast {
                return Ok(g.allreduce(None).named(F)? == Outcome::Summed);
            }
            leaves[0] = Leaf {
                ptr: if numbers.is_empty() {
                    std::ptr::dangling_mut::<u64>().cast()
                } else {
                    numbers.as_mut_ptr().cast()
                },
                bytes: numbers.len() * 8,
                kind: Kind::F64,
            };
            let out = g.allreduce(Some(leaves)).named(F)?;
            if out == Outcome::Summed {
                for (&x, &i) in numbers.iter().zip(at_numbers.iter()) {
                    list.raw_set(i, x)?;
                }
            }
            Ok(out == Outcome::Summed)
        });
        m.add_method("close", |_, this, ()| {
            this.group.borrow_mut().take();
            Ok(())
        });
    }
}

fn create(
    lua: &Lua,
    (n, index, name, nonce): (usize, Option<usize>, Option<String>, Option<String>),
) -> Result<mlua::MultiValue> {
    const F: &str = "ipc.shmtree";
    let wrap = |seg: Segment| ShmTree {
        group: RefCell::new(Some(Group::new(seg))),
        scratch: RefCell::new(Scratch::default()),
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
