//! The usual message between processes, fast: a plain value (nil, a boolean, a number, a string,
//! or a table of them with no metatable, whose keys are booleans, numbers or strings and which
//! holds each table once) written and read straight through the Lua stack, in exactly the bytes
//! binary `writeObject` writes and `readObject` reads. The general walker (write.rs, read.rs)
//! goes through mlua's values, one registry reference each, and the File's bookkeeping: for a
//! small table that is most of a round trip between a parent and its child. Anything else (a
//! torch object, a function, a table twice, a metatable) is left to the walker, which then
//! starts from scratch.

use std::collections::HashSet;

use mlua::ffi::{self, lua_State};
use mlua::{Lua, Value};

use super::tags::{TYPE_BOOLEAN, TYPE_NIL, TYPE_NUMBER, TYPE_STRING, TYPE_TABLE};

/// Tables nested deeper than this are left to the walker (which has its own limit): the fast
/// path needs a few Lua stack slots per level.
const MAX_DEPTH: u32 = 100;

fn put_i32(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&v.to_ne_bytes());
}

/// The bytes of binary `writeObject(value)` on a fresh file, when `value` is plain.
pub fn encode(lua: &Lua, value: &Value) -> Option<Vec<u8>> {
    match value {
        Value::Nil => return Some(TYPE_NIL.to_ne_bytes().to_vec()),
        Value::Boolean(b) => {
            let mut out = Vec::with_capacity(8);
            put_i32(&mut out, TYPE_BOOLEAN);
            put_i32(&mut out, *b as i32);
            return Some(out);
        }
        Value::Number(_) | Value::Integer(_) | Value::String(_) | Value::Table(_) => {}
        _ => return None,
    }
    let mut out = Vec::with_capacity(64);
    let mut tables: HashSet<*const std::ffi::c_void> = HashSet::new();
    let mut plain = false;
    let (o, t, p) = (&mut out, &mut tables, &mut plain);
    // SAFETY: the closure uses the stack above the one argument it is given and leaves nothing
    // on it; the Lua calls it makes on a plain value cannot raise (lua_next over a table nobody
    // changes, type checks, lua_checkstack), and its captures are borrows.
    let ran = unsafe {
        lua.exec_raw::<()>(value, |state| {
            let mut counter = 0;
            *p = write(state, 1, o, t, &mut counter, 0);
            ffi::lua_settop(state, 0);
        })
    };
    (ran.is_ok() && plain).then_some(out)
}

/// Writes the value at absolute stack index `idx`; false when it is not plain (`out` then holds
/// a partial write, to be thrown away).
unsafe fn write(
    state: *mut lua_State,
    idx: i32,
    out: &mut Vec<u8>,
    tables: &mut HashSet<*const std::ffi::c_void>,
    counter: &mut i32,
    depth: u32,
) -> bool {
    // SAFETY (whole function): `idx` is a valid absolute index on `state`'s stack, and every
    // push is preceded by a check that the stack has room.
    unsafe {
        match ffi::lua_type(state, idx) {
            ffi::LUA_TNIL => put_i32(out, TYPE_NIL),
            ffi::LUA_TBOOLEAN => {
                put_i32(out, TYPE_BOOLEAN);
                put_i32(out, (ffi::lua_toboolean(state, idx) != 0) as i32);
            }
            ffi::LUA_TNUMBER => {
                put_i32(out, TYPE_NUMBER);
                out.extend_from_slice(&ffi::lua_tonumber(state, idx).to_ne_bytes());
            }
            ffi::LUA_TSTRING => {
                let mut len = 0usize;
                let ptr = ffi::lua_tolstring(state, idx, &mut len);
                let Ok(n) = i32::try_from(len) else { return false };
                put_i32(out, TYPE_STRING);
                put_i32(out, n);
                out.extend_from_slice(std::slice::from_raw_parts(ptr.cast::<u8>(), len));
            }
            ffi::LUA_TTABLE => {
                if depth >= MAX_DEPTH || ffi::lua_checkstack(state, 4) == 0 {
                    return false;
                }
                if ffi::lua_getmetatable(state, idx) != 0 {
                    ffi::lua_settop(state, -2);
                    return false;
                }
                // A table met again is written as a reference: the walker's business. (A set, not
                // a list: a chunk of tasks can hold thousands of tables.)
                if !tables.insert(ffi::lua_topointer(state, idx)) {
                    return false;
                }
                let Some(index) = counter.checked_add(1) else {
                    return false;
                };
                *counter = index;
                put_i32(out, TYPE_TABLE);
                put_i32(out, index);
                let count_at = out.len();
                put_i32(out, 0);
                let mut count: i32 = 0;
                ffi::lua_pushnil(state);
                while ffi::lua_next(state, idx) != 0 {
                    let top = ffi::lua_gettop(state);
                    let key_ok = matches!(
                        ffi::lua_type(state, top - 1),
                        ffi::LUA_TBOOLEAN | ffi::LUA_TNUMBER | ffi::LUA_TSTRING
                    );
                    // (A string key is read without converting it, so lua_next can go on.)
                    if !key_ok
                        || !write(state, top - 1, out, tables, counter, depth + 1)
                        || !write(state, top, out, tables, counter, depth + 1)
                    {
                        ffi::lua_settop(state, top - 2);
                        return false;
                    }
                    ffi::lua_settop(state, top - 1);
                    let Some(c) = count.checked_add(1) else {
                        ffi::lua_settop(state, top - 2);
                        return false;
                    };
                    count = c;
                }
                out[count_at..count_at + 4].copy_from_slice(&count.to_ne_bytes());
            }
            _ => return false,
        }
    }
    true
}

/// The value binary `readObject` would read from `bytes`, when they hold one plain value and
/// nothing after it; None leaves them to the walker.
pub fn decode(lua: &Lua, bytes: &[u8]) -> Option<Value> {
    let mut ok = false;
    let flag = &mut ok;
    // SAFETY: the closure pushes at most one value (the result) and reads only within `bytes`.
    // What it pushes cannot make Lua raise but for memory, which exec_raw's protected call turns
    // into an error (the closure holds no owned values).
    let got = unsafe {
        lua.exec_raw::<Value>((), |state| {
            let mut at = 0;
            let mut made = 0;
            if read(state, bytes, &mut at, &mut made, 0) && at == bytes.len() {
                *flag = true;
            } else {
                ffi::lua_settop(state, 0);
            }
        })
    };
    match got {
        Ok(v) if ok => Some(v),
        _ => None,
    }
}

fn take<'a>(bytes: &'a [u8], at: &mut usize, n: usize) -> Option<&'a [u8]> {
    let end = at.checked_add(n)?;
    let s = bytes.get(*at..end)?;
    *at = end;
    Some(s)
}

fn take_i32(bytes: &[u8], at: &mut usize) -> Option<i32> {
    take(bytes, at, 4).map(|b| i32::from_ne_bytes(b.try_into().expect("4 bytes")))
}

/// Pushes the value at `bytes[*at..]`; false (with whatever it pushed left for the caller to
/// drop) when it is not plain. `made` counts the tables made: a fresh table's index is the next.
unsafe fn read(state: *mut lua_State, bytes: &[u8], at: &mut usize, made: &mut i32, depth: u32) -> bool {
    let Some(tag) = take_i32(bytes, at) else { return false };
    // SAFETY (whole function): every push is preceded by a check that the stack has room.
    unsafe {
        if ffi::lua_checkstack(state, 4) == 0 {
            return false;
        }
        match tag {
            TYPE_NIL => ffi::lua_pushnil(state),
            TYPE_BOOLEAN => {
                let Some(b) = take_i32(bytes, at) else { return false };
                ffi::lua_pushboolean(state, (b == 1) as i32);
            }
            TYPE_NUMBER => {
                let Some(b) = take(bytes, at, 8) else { return false };
                ffi::lua_pushnumber(state, f64::from_ne_bytes(b.try_into().expect("8 bytes")));
            }
            TYPE_STRING => {
                let Some(len) = take_i32(bytes, at).and_then(|n| usize::try_from(n).ok()) else {
                    return false;
                };
                let Some(s) = take(bytes, at, len) else { return false };
                ffi::lua_pushlstring_(state, if len == 0 { b"".as_ptr() } else { s.as_ptr() }.cast(), len);
            }
            TYPE_TABLE => {
                let Some(index) = take_i32(bytes, at) else { return false };
                let Some(n) = take_i32(bytes, at) else { return false };
                if depth >= MAX_DEPTH || n < 0 || Some(index) != made.checked_add(1) {
                    return false;
                }
                *made = index;
                ffi::lua_createtable(state, 0, 0);
                let table = ffi::lua_gettop(state);
                for _ in 0..n {
                    if !read(state, bytes, at, made, depth + 1) {
                        return false;
                    }
                    // Keys are never tables here (nor nil or NaN: the walker reports those).
                    match ffi::lua_type(state, table + 1) {
                        ffi::LUA_TBOOLEAN | ffi::LUA_TSTRING => {}
                        ffi::LUA_TNUMBER if !ffi::lua_tonumber(state, table + 1).is_nan() => {}
                        _ => return false,
                    }
                    if !read(state, bytes, at, made, depth + 1) {
                        return false;
                    }
                    ffi::lua_rawset(state, table);
                }
            }
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::t7::in_memory::tests::torch_state;
    use crate::torch::t7::in_memory::{Mode, general_deserialize, general_serialize};

    /// Plain values: the same bytes as the walker's, and read back as the walker reads them.
    #[test]
    fn plain_values_are_written_as_the_walker_writes_them() {
        let lua = torch_state();
        let same: mlua::Function = lua
            .load(
                "local function same(a, b)
                   if type(a) ~= 'table' or type(b) ~= 'table' then
                     return a == b or (a ~= a and b ~= b)
                   end
                   for k, v in pairs(a) do if not same(v, b[k]) then return false end end
                   for k in pairs(b) do if a[k] == nil then return false end end
                   return true
                 end
                 return same",
            )
            .eval()
            .unwrap();
        for src in [
            "return nil",
            "return true",
            "return false",
            "return 1.5",
            "return -0.0",
            "return 0/0",
            "return 1/0",
            "return 2^53",
            "return ''",
            "return 'a\\0b'",
            "return string.rep('x', 100000)",
            "return {}",
            "return {1, 2, 3}",
            "return {a = 1, b = 'x', c = {1, 2, 3}}",
            "return {[true] = false, [1.5] = 'f', [-3] = {{}, {{}}}, s = ''}",
            "local t = {} for i = 1, 1000 do t[i] = {i, tostring(i)} end return t",
        ] {
            let v: Value = lua.load(src).eval().unwrap();
            let fast = encode(&lua, &v).unwrap_or_else(|| panic!("{src}: not plain"));
            let general = general_serialize(&lua, &v, Mode::Binary).unwrap();
            assert_eq!(fast, general, "{src}: bytes differ");
            let back = decode(&lua, &general).unwrap_or_else(|| panic!("{src}: not read back"));
            let walked = general_deserialize(&lua, &general, Mode::Binary).unwrap();
            assert!(same.call::<bool>((back, walked)).unwrap(), "{src}: values differ");
        }
    }

    #[test]
    fn other_values_are_left_to_the_walker() {
        let lua = torch_state();
        for src in [
            "return torch.FloatTensor(2)",
            "return {torch.FloatTensor(2)}",
            "return function() end",
            "local t = {} return {t, t}",
            "local t = {} t.me = t return t",
            "return {[{}] = 1}",
            "local t = {} for i = 1, 200 do t = {t} end return t",
        ] {
            let v: Value = lua.load(src).eval().unwrap();
            assert!(encode(&lua, &v).is_none(), "{src}: taken as plain");
            let general = general_serialize(&lua, &v, Mode::Binary).unwrap();
            assert!(decode(&lua, &general).is_none(), "{src}: read as plain");
        }
        // A metatable without a torch class is not written (the walker writes the table alone).
        let with_mt: Value = lua.load("return setmetatable({}, {})").eval().unwrap();
        assert!(
            encode(&lua, &with_mt).is_none(),
            "a table with a metatable taken as plain"
        );
        let c_function: Value = lua.load("return print").eval().unwrap();
        assert!(encode(&lua, &c_function).is_none(), "a C function taken as plain");
        // Truncated or trailing bytes, bad keys: the walker reports them.
        let good = general_serialize(&lua, &lua.load("return {a = 1}").eval().unwrap(), Mode::Binary).unwrap();
        assert!(decode(&lua, &good[..good.len() - 1]).is_none());
        assert!(decode(&lua, &[good.as_slice(), &[0]].concat()).is_none());
        let mut nil_key = Vec::new();
        for v in [TYPE_TABLE, 1, 1, TYPE_NIL, TYPE_NIL] {
            put_i32(&mut nil_key, v);
        }
        assert!(decode(&lua, &nil_key).is_none());
    }
}
