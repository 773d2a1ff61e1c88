//! Fast `read` and `write` for channels and workqueues: the calls a pipeline makes millions of
//! times. mlua's callback machinery costs a few hundred nanoseconds a call; these methods are Lua
//! functions that LuaJIT compiles into the caller's loop, calling Rust through the FFI for the
//! plain values (nil, booleans, numbers, strings) of a single-item write or of a read, and falling
//! back on the ordinary mlua methods for everything else (tables, tensors, several items, bad
//! arguments, closed handles), which raise the errors.
//!
//! Each handle userdata of such a type has a [`Holder`]: a strong reference to the object, owned
//! by an FFI cdata (freed by its finalizer) that a per-state table, weak in its keys, maps the
//! userdata to. The reference is dropped at `close`; a handle collected but still reachable from a
//! finalizer keeps a valid object, so no fast call can reach freed memory.

use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_int, c_void};
use std::mem::ManuallyDrop;
use std::sync::Arc;

use mlua::{AnyUserData, Function, LightUserData, Lua, Result, Table, Value};

use super::packed::{Packed, Plain};

/// One handle's reference to its object, for the FFI functions.
pub struct Holder {
    obj: Cell<*const c_void>,
    release: unsafe fn(*const c_void),
}

/// Decrements the count of the `Arc<T>` that `p` came from.
unsafe fn release<T>(p: *const c_void) {
    // SAFETY: `p` is from Arc::into_raw of an Arc<T> whose reference the holder owned.
    unsafe { Arc::decrement_strong_count(p as *const T) }
}

impl Holder {
    pub fn new<T>(obj: Arc<T>) -> *mut Holder {
        Box::into_raw(Box::new(Holder {
            obj: Cell::new(Arc::into_raw(obj) as *const c_void),
            release: release::<T>,
        }))
    }

    /// Drops the holder's reference (the handle was closed); null is ignored.
    ///
    /// # Safety
    /// `h` is null or a live holder, used by this thread only.
    pub unsafe fn clear(h: *mut Holder) {
        if h.is_null() {
            return;
        }
        // SAFETY: as the caller promises.
        unsafe {
            let p = (*h).obj.replace(std::ptr::null());
            if !p.is_null() {
                ((*h).release)(p);
            }
        }
    }

    /// The object, borrowed for one call (its count unchanged); None once closed.
    ///
    /// # Safety
    /// `h` is a live holder of a `T`.
    pub unsafe fn object<T>(h: *mut Holder) -> Option<ManuallyDrop<Arc<T>>> {
        // SAFETY: a non-null pointer is a reference the holder owns while this call runs.
        unsafe {
            let p = (*h).obj.get();
            (!p.is_null()).then(|| ManuallyDrop::new(Arc::from_raw(p as *const T)))
        }
    }
}

/// The finalizer of a holder's cdata.
unsafe extern "C" fn free_holder(h: *mut Holder) {
    if h.is_null() {
        return;
    }
    // SAFETY: the cdata owned the holder; its finalizer runs once.
    unsafe {
        Holder::clear(h);
        drop(Box::from_raw(h));
    }
}

/// Item kinds between the FFI functions and the Lua wrappers.
pub const NONE: c_int = 0;
pub const NIL: c_int = 1;
pub const FALSE: c_int = 2;
pub const TRUE: c_int = 3;
pub const NUMBER: c_int = 4;
pub const STRING: c_int = 5;
/// An item mlua must unpack: it waits in PENDING.
pub const OTHER: c_int = 6;
/// Not for the fast path: call the ordinary method.
pub const SLOW: c_int = -1;
/// Raise the message waiting in ERROR.
pub const ERROR: c_int = -2;

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
local free_lud, take, raise = ...
ffi.cdef [[
typedef struct luatorch_ipc_holder luatorch_ipc_holder;
typedef struct { double num; const char *str; size_t len; int status; } luatorch_ipc_out;
]]
local holder_t = ffi.typeof('luatorch_ipc_holder *')
local write_t = ffi.typeof('int (*)(luatorch_ipc_holder *, int, double, const char *, size_t)')
local read_t = ffi.typeof('int (*)(luatorch_ipc_holder *, int, luatorch_ipc_out *)')
local free = ffi.cast('void (*)(luatorch_ipc_holder *)', free_lud)
local out = ffi.new('luatorch_ipc_out')
local type, select, string_of = type, select, ffi.string

local base = {}

function base.holder(lud)
   return ffi.gc(ffi.cast(holder_t, lud), free)
end

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
    let take = lua.create_function(|lua, ()| match PENDING.with(|p| p.borrow_mut().take()) {
        Some(m) => m.unpack(lua),
        None => Ok(Value::Nil),
    })?;
    let raise = lua.create_function(|_, ()| -> Result<()> {
        let msg = FAILED.with(|f| f.borrow_mut().take());
        Err(mlua::Error::RuntimeError(
            msg.unwrap_or_else(|| "ipc: unknown error".into()),
        ))
    })?;
    let free = LightUserData(free_holder as *mut c_void);
    let t: Table = lua
        .load(BASE)
        .set_name("=[luatorch]/ipc/fast")
        .call((free, take, raise))?;
    lua.set_named_registry_value(BASE_KEY, &t)?;
    Ok(t)
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
    if !lua.named_registry_value::<Value>(spec.table)?.is_nil() {
        return Ok(());
    }
    let base = base(lua)?;
    let handles = lua.create_table()?;
    let weak = lua.create_table()?;
    weak.set("__mode", "k")?;
    handles.set_metatable(Some(weak))?;
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
    lua.set_named_registry_value(&wrapper_key(spec.table, "read"), read)?;
    lua.set_named_registry_value(spec.table, handles)
}

/// Gives the new handle `ud` its holder `h` (the cdata owns it from now on).
///
/// # Safety
/// `h` is a new holder, handed over once.
pub unsafe fn register(lua: &Lua, table: &str, ud: &AnyUserData, h: *mut Holder) -> Result<()> {
    let made = (|| -> Result<()> {
        let base = base(lua)?;
        let holder: Function = base.get("holder")?;
        let cdata: Value = holder.call(LightUserData(h as *mut c_void))?;
        let handles: Table = lua.named_registry_value(table)?;
        handles.raw_set(ud, cdata)
    })();
    if made.is_err() {
        // The cdata may not exist: let the reference go now (the box itself is leaked, as its
        // finalizer may yet run).
        // SAFETY: `h` is live and ours.
        unsafe { Holder::clear(h) };
    }
    made
}

/// The wrapper `which` (`write` or `read`) that [`install`] made for the type of `table`.
pub fn wrapper(lua: &Lua, table: &str, which: &str) -> Result<Value> {
    lua.named_registry_value(&wrapper_key(table, which))
}

fn wrapper_key(table: &str, which: &str) -> String {
    format!("{table}.{which}")
}
