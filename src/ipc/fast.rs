//! Fast `read` and `write` for channels and workqueues: the calls a pipeline makes millions of
//! times. mlua's callback machinery costs a few hundred nanoseconds a call; these methods are Lua
//! functions that LuaJIT compiles into the caller's loop, calling Rust through the FFI for the
//! plain values (nil, booleans, numbers, strings) of a single-item write or of a read, and falling
//! back on the ordinary mlua methods for everything else (tables, tensors, several items, bad
//! arguments, closed handles), which raise the errors.
//!
//! Each handle userdata of such a type has a holder (`crate::fastcall`): a strong reference to the
//! object, dropped at `close`.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void};

use mlua::{Function, LightUserData, Lua, Result, Table, Value};

pub use crate::fastcall::{Holder, register};

use super::packed::{Packed, Plain};

pub use crate::fastcall::{ERROR, FALSE, NIL, NONE, NUMBER, OTHER, SLOW, STRING, TRUE};

/// What a fast read hands back (besides its kind).
#[repr(C)]
pub struct Out {
    pub num: f64,
    pub str: *const c_char,
    pub len: usize,
    pub status: c_int,
}

pub type WriteFn = unsafe extern "C" fn(*mut Holder, c_int, f64, *const c_char, usize) -> c_int;
pub type ReadFn = unsafe extern "C" fn(*mut Holder, c_int, *mut Out) -> c_int;

thread_local! {
    /// The item of the last fast read that needs mlua to unpack it.
    static PENDING: RefCell<Option<Packed>> = const { RefCell::new(None) };
    /// The last string item read: the wrapper copies it out before the next read.
    static LAST: RefCell<Option<Packed>> = const { RefCell::new(None) };
    /// The error a fast call reported, for the wrapper to raise.
    static FAILED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The item a fast write was given, from its kind and value.
///
/// # Safety
/// For STRING, `s` points to `len` readable bytes.
pub unsafe fn item(kind: c_int, num: f64, s: *const c_char, len: usize) -> Option<Packed> {
    let plain = match kind {
        NIL => Plain::Nil,
        FALSE | TRUE => Plain::Boolean(num != 0.0),
        NUMBER => Plain::Number(num),
        // SAFETY: as the caller promises (a Lua string passed by the FFI).
        STRING => Plain::String(unsafe { std::slice::from_raw_parts(s as *const u8, len) }),
        _ => return None,
    };
    Some(Packed::plain(plain))
}

/// Hands `item` (and `status`) to the wrapper through `out`; returns its kind.
///
/// # Safety
/// `out` is the wrapper's output struct.
pub unsafe fn deliver(out: *mut Out, status: i64, item: Option<Packed>) -> c_int {
    // SAFETY: as the caller promises.
    let out = unsafe { &mut *out };
    out.status = status as c_int;
    let Some(item) = item else { return NONE };
    let kind = match item.as_plain() {
        Some(Plain::Nil) => NIL,
        Some(Plain::Boolean(false)) => FALSE,
        Some(Plain::Boolean(true)) => TRUE,
        Some(Plain::Number(n)) => {
            out.num = n;
            NUMBER
        }
        Some(Plain::String(s)) => {
            out.str = s.as_ptr() as *const c_char;
            out.len = s.len();
            STRING
        }
        None => OTHER,
    };
    match kind {
        // The bytes stay where they are when the packed value moves (they are boxed).
        STRING => LAST.with(|l| *l.borrow_mut() = Some(item)),
        OTHER => PENDING.with(|p| *p.borrow_mut() = Some(item)),
        _ => {}
    }
    kind
}

/// Reports `message` for the wrapper to raise.
pub fn failed(message: String) -> c_int {
    FAILED.with(|f| *f.borrow_mut() = Some(message));
    ERROR
}

/// Runs the body of an FFI function; a panic must not unwind into LuaJIT.
pub fn guard(body: impl FnOnce() -> c_int) -> c_int {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(body))
        .unwrap_or_else(|_| failed("ipc: internal error (a panic) in a fast call".into()))
}

/// The Lua half, loaded once per state: builds holders and the wrappers of each type.
const BASE: &str = r#"
local ffi = require 'ffi'
local take, raise = ...
ffi.cdef [[
typedef struct { double num; const char *str; size_t len; int status; } luatorch_ipc_out;
]]
local write_t = ffi.typeof('int (*)(luatorch_holder *, int, double, const char *, size_t)')
local read_t = ffi.typeof('int (*)(luatorch_holder *, int, luatorch_ipc_out *)')
local out = ffi.new('luatorch_ipc_out')
local type, select, string_of = type, select, ffi.string

local base = {}

function base.make(handles, write_lud, read_lud, slow_write, slow_read, with_status)
   local write_c, read_c = ffi.cast(write_t, write_lud), ffi.cast(read_t, read_lud)

   local function write(self, ...)
      local h = handles[self]
      if h ~= nil and select('#', ...) == 1 then
         local v = ...
         local t, r = type(v), -1
         if t == 'number' then
            r = write_c(h, 4, v, nil, 0)
         elseif t == 'string' then
            r = write_c(h, 5, 0, v, #v)
         elseif t == 'boolean' then
            r = write_c(h, v and 3 or 2, v and 1 or 0, nil, 0)
         elseif t == 'nil' then
            r = write_c(h, 1, 0, nil, 0)
         end
         if r >= 0 then
            if with_status then return r end
            return
         end
      end
      return slow_write(self, ...)
   end

   local function read(self, noblock, ...)
      local h = handles[self]
      local nb = 0
      if noblock == true then
         nb = 1
      elseif noblock ~= nil and noblock ~= false then
         h = nil
      end
      if h ~= nil then
         local k = read_c(h, nb, out)
         if k == -2 then return raise() end
         if k >= 0 then
            if with_status then
               local s = out.status
               if k == 4 then return s, out.num end
               if k == 0 then return s end
               if k == 5 then return s, string_of(out.str, out.len) end
               if k == 1 then return s, nil end
               if k == 2 then return s, false end
               if k == 3 then return s, true end
               return s, take()
            end
            if k == 4 then return out.num end
            if k == 0 then return end
            if k == 5 then return string_of(out.str, out.len) end
            if k == 1 then return nil end
            if k == 2 then return false end
            if k == 3 then return true end
            return take()
         end
      end
      return slow_read(self, noblock, ...)
   end

   return write, read
end

return base
"#;

const BASE_KEY: &str = "luatorch.ipc.fast";

/// The Lua half of this state, loaded on first use.
fn base(lua: &Lua) -> Result<Table> {
    if let Value::Table(t) = lua.named_registry_value::<Value>(BASE_KEY)? {
        return Ok(t);
    }
    let take = crate::calls::function(lua, take)?;
    let raise = crate::calls::function(lua, raise)?;
    crate::fastcall::declare(lua)?;
    let t: Table = lua.load(BASE).set_name("=[luatorch]/ipc/fast").call((take, raise))?;
    lua.set_named_registry_value(BASE_KEY, &t)?;
    Ok(t)
}

/// `take() -> value`: the item a fast read left for its wrapper to unpack (nil when none).
fn take(lua: &Lua, (): ()) -> Result<Value> {
    match PENDING.with(|p| p.borrow_mut().take()) {
        Some(m) => m.unpack(lua),
        None => Ok(Value::Nil),
    }
}

/// `raise()`: raises the error a fast call left.
fn raise(_: &Lua, (): ()) -> Result<()> {
    let msg = FAILED.with(|f| f.borrow_mut().take());
    Err(mlua::Error::RuntimeError(
        msg.unwrap_or_else(|| "ipc: unknown error".into()),
    ))
}

/// What a type with fast methods gives [`install`].
pub struct Spec {
    /// The registry name of the type's table of holders (and the prefix of its wrappers' names).
    pub table: &'static str,
    pub write: WriteFn,
    pub read: ReadFn,
    /// `read` returns a status before the item and `write` returns a status (channels).
    pub with_status: bool,
}

/// References to a shared object that one state holds during a slow (mlua) call: its userdata,
/// its fast methods' holder, and the call's own.
pub const OWN_SLOW: usize = 3;
/// The same during a fast call (which borrows the holder's reference).
pub const OWN_FAST: usize = 2;

/// Makes the wrappers of a type in this state, once; `slow_write` and `slow_read` are its ordinary
/// (mlua) methods, taking the handle first.
pub fn install(lua: &Lua, spec: &Spec, slow_write: Function, slow_read: Function) -> Result<()> {
    if !lua
        .named_registry_value::<Value>(&wrapper_key(spec.table, "write"))?
        .is_nil()
    {
        return Ok(());
    }
    let base = base(lua)?;
    let handles = crate::fastcall::holders(lua, spec.table)?;
    let make: Function = base.get("make")?;
    let (write, read): (Function, Function) = make.call((
        &handles,
        LightUserData(spec.write as *mut c_void),
        LightUserData(spec.read as *mut c_void),
        slow_write,
        slow_read,
        spec.with_status,
    ))?;
    lua.set_named_registry_value(&wrapper_key(spec.table, "write"), write)?;
    lua.set_named_registry_value(&wrapper_key(spec.table, "read"), read)
}

/// The wrapper `which` (`write` or `read`) that [`install`] made for the type of `table`.
pub fn wrapper(lua: &Lua, table: &str, which: &str) -> Result<Value> {
    lua.named_registry_value(&wrapper_key(table, which))
}

fn wrapper_key(table: &str, which: &str) -> String {
    format!("{table}.{which}")
}
