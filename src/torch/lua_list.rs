//! Lists between Lua tables and Rust, read and written straight on the Lua stack: the `Value`
//! per element that `Table::raw_get` and `raw_set` go through costs several times the element
//! itself, and these lists (a tensor's values, a chunk of task data) run to thousands.

use std::os::raw::c_int;

use mlua::{Lua, Result, Table, ffi};

/// Elements read onto the stack at a time.
const BATCH: usize = 64;

/// Calls `f(state, index, type)` on `t[from] .. t[from + n - 1]` in order, each pushed on the
/// stack at `index` (valid until `f` returns), until `f` returns false; whether it went through.
///
/// # Safety
/// `f` may only read the value at `index` (no pushes, pops or calls that can raise an error).
pub unsafe fn each(
    t: &Table,
    from: i64,
    n: usize,
    mut f: impl FnMut(*mut ffi::lua_State, c_int, c_int) -> bool,
) -> Result<bool> {
    if from < 1 || from.saturating_add(n as i64) > c_int::MAX as i64 {
        return Err(mlua::Error::runtime(format!("list indices {from}..+{n} out of range")));
    }
    let lua = t.weak_lua().upgrade();
    let mut all = true;
    // SAFETY: the table is argument 1 of the raw call; elements are pushed above it a batch at
    // a time (room checked), read by `f`, and dropped; nothing here can raise a Lua error.
    unsafe {
        lua.exec_raw::<()>(t, |state| {
            if ffi::lua_checkstack(state, BATCH as c_int + 1) == 0 {
                all = false;
                return;
            }
            let mut done = 0;
            'batches: while done < n {
                let m = BATCH.min(n - done);
                for k in 0..m {
                    ffi::lua_rawgeti_(state, 1, (from + (done + k) as i64) as c_int);
                }
                for k in 0..m {
                    let index = 2 + k as c_int;
                    if !f(state, index, ffi::lua_type(state, index)) {
                        all = false;
                        break 'batches;
                    }
                }
                ffi::lua_settop(state, 1);
                done += m;
            }
            ffi::lua_settop(state, 0);
        })?;
    }
    Ok(all)
}

/// Appends `t[from] .. t[from + n - 1]` to `out` when every one is a number; false (and `out` as
/// it was) at the first that is not, for the caller to say which and why.
pub fn numbers(t: &Table, from: i64, n: usize, out: &mut Vec<f64>) -> Result<bool> {
    let before = out.len();
    out.reserve(n);
    // SAFETY: the callback only reads the value it is given.
    let all = unsafe {
        each(t, from, n, |state, index, ty| {
            if ty != ffi::LUA_TNUMBER {
                return false;
            }
            out.push(ffi::lua_tonumber(state, index));
            true
        })?
    };
    if !all {
        out.truncate(before);
    }
    Ok(all)
}

/// A new list of the `n` first `values`, in order.
pub fn list(lua: &Lua, n: usize, values: impl Iterator<Item = f64>) -> Result<Table> {
    let n = n.min(c_int::MAX as usize);
    // SAFETY: the only value left on the stack is the new table, the raw call's result; a memory
    // error while filling it is raised by Lua through the protected call, with nothing of Rust's
    // to drop in between (the iterator is the caller's).
    unsafe {
        lua.exec_raw((), |state| {
            ffi::lua_createtable(state, n as c_int, 0);
            for (i, v) in values.take(n).enumerate() {
                ffi::lua_pushnumber(state, v);
                ffi::lua_rawseti_(state, -2, i as c_int + 1);
            }
        })
    }
}
