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

pub mod calls;
pub mod collective;
mod segment;
pub mod sum;

use std::rc::Rc;

use mlua::{Lua, Result, Table, UserData, UserDataMethods};

use crate::args::error;
use crate::error::Named;
use calls::Native;
use collective::Group;
use segment::Segment;

struct ShmTree(Rc<Native<Group>>);

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
            this.0.allreduce("ipc.shmtree:allreduce", "closed", leaves)
        });
        m.add_method("one", |lua, this, ()| this.0.one_function(lua));
        m.add_method("close", |_, this, ()| {
            this.0.group.borrow_mut().take();
            Ok(())
        });
    }
}

/// `ipc.shmtree(numNodes) -> tree, name, nonce` or `ipc.shmtree(numNodes, nodeIndex, name, nonce)
/// -> tree`: a new segment for the nodes, or node `nodeIndex`'s place in one.
fn create(
    lua: &Lua,
    (n, index, name, nonce): (usize, Option<usize>, Option<String>, Option<String>),
) -> Result<mlua::MultiValue> {
    const F: &str = "ipc.shmtree";
    let wrap = |seg: Segment| ShmTree(Native::new(Some(Group::new(seg))));
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
    crate::calls::add(lua, ipc, "shmtree", create)
}
