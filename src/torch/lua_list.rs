//! Lists of numbers between Lua tables and Rust, read and written straight on the Lua stack: the
//! `Value` per element that `Table::raw_get` and `raw_set` go through costs several times the
//! element itself, and these lists (a tensor's values, a chunk of task data) run to thousands.

use mlua::{Lua, Result, Table, ffi};

/// Appends `t[from] .. t[from + n - 1]` to `out` when every one is a number; false (and `out` as
/// it was) at the first that is not, for the caller to say which and why.
pub fn numbers(t: &Table, from: i64, n: usize, out: &mut Vec<f64>) -> Result<bool> {
    let lua = t.weak_lua().upgrade();
    let before = out.len();
    out.reserve(n);
    let mut all = true;
    // SAFETY: the table is argument 1 of the raw call; each element is pushed, read and popped,
    // and nothing in the loop can raise a Lua error.
    unsafe {
        lua.exec_raw::<()>(t, |state| {
            for i in 0..n {
                if ffi::lua_rawgeti(state, 1, from + i as i64) != ffi::LUA_TNUMBER {
                    all = false;
                    break;
                }
                out.push(ffi::lua_tonumber(state, -1));
                ffi::lua_pop(state, 1);
            }
            ffi::lua_settop(state, 0);
        })?;
    }
    if !all {
        out.truncate(before);
    }
    Ok(all)
}

/// A new list of the `n` first `values`, in order.
pub fn list(lua: &Lua, n: usize, values: impl Iterator<Item = f64>) -> Result<Table> {
    // SAFETY: the only value left on the stack is the new table, the raw call's result; a memory
    // error while filling it is raised by Lua through the protected call, with nothing of Rust's
    // to drop in between (the iterator is the caller's).
    unsafe {
        lua.exec_raw((), |state| {
            ffi::lua_createtable(state, n.min(i32::MAX as usize) as i32, 0);
            for (i, v) in values.take(n).enumerate() {
                ffi::lua_pushnumber(state, v);
                ffi::lua_rawseti(state, -2, i as i64 + 1);
            }
        })
    }
}
