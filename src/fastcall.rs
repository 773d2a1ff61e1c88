//! Rust objects that Lua code reaches through LuaJIT's FFI: the calls a script makes millions of
//! times (an ipc queue's `read`, a tds hash's `h[k]`). mlua's callback machinery costs a few
//! hundred nanoseconds a call; a Lua wrapper calling an `extern "C"` function through the FFI is
//! compiled by LuaJIT into the caller's loop.
//!
//! Each userdata with such calls has a [`Holder`]: a strong reference to its object, owned by an
//! FFI cdata (freed by its finalizer) that a per-state table, weak in its keys, maps the userdata
//! to. The wrappers look the holder up there (`holders[self]`) and pass it to the FFI function. A
//! userdata collected but still reachable from a finalizer keeps a valid object, so no FFI call
//! can reach freed memory.

use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::mem::ManuallyDrop;
use std::sync::Arc;

use mlua::{AnyUserData, Function, LightUserData, Lua, Result, Table, Value};

/// One userdata's reference to its object, for the FFI functions.
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

    /// Drops the holder's reference (the object was closed); null is ignored.
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
    /// `h` is null or a live holder of a `T`.
    pub unsafe fn object<T>(h: *mut Holder) -> Option<ManuallyDrop<Arc<T>>> {
        if h.is_null() {
            return None;
        }
        // SAFETY: a non-null pointer is a reference the holder owns while this call runs.
        unsafe {
            let p = (*h).obj.get();
            (!p.is_null()).then(|| ManuallyDrop::new(Arc::from_raw(p as *const T)))
        }
    }
}

/// Value kinds between the FFI functions and the Lua wrappers.
pub const NONE: c_int = 0;
pub const NIL: c_int = 1;
pub const FALSE: c_int = 2;
pub const TRUE: c_int = 3;
pub const NUMBER: c_int = 4;
pub const STRING: c_int = 5;
/// A value mlua must push: the wrapper asks the ordinary function for it.
pub const OTHER: c_int = 6;
/// Not for the fast path: call the ordinary function.
pub const SLOW: c_int = -1;
/// Raise the message the FFI function left.
pub const ERROR: c_int = -2;

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

/// The Lua half, loaded once per state: the holder's C type, and a holder's cdata from its address.
const BASE: &str = r#"
local ffi = require 'ffi'
local free_lud = ...
ffi.cdef [[ typedef struct luatorch_holder luatorch_holder; ]]
local holder_t = ffi.typeof('luatorch_holder *')
local free = ffi.cast('void (*)(luatorch_holder *)', free_lud)
return function(lud) return ffi.gc(ffi.cast(holder_t, lud), free) end
"#;

const BASE_KEY: &str = "luatorch.fastcall";

/// The function that makes a holder's cdata (declaring `luatorch_holder` to the FFI first):
/// call it before any Lua code that names the type.
pub fn declare(lua: &Lua) -> Result<Function> {
    if let Value::Function(f) = lua.named_registry_value::<Value>(BASE_KEY)? {
        return Ok(f);
    }
    let free = LightUserData(free_holder as *mut c_void);
    let f: Function = lua.load(BASE).set_name("=[luatorch]/fastcall").call(free)?;
    lua.set_named_registry_value(BASE_KEY, &f)?;
    Ok(f)
}

/// The table of holders named `name` in the registry, made (weak in its keys) on first use.
pub fn holders(lua: &Lua, name: &str) -> Result<Table> {
    if let Value::Table(t) = lua.named_registry_value::<Value>(name)? {
        return Ok(t);
    }
    let handles = lua.create_table()?;
    let weak = lua.create_table()?;
    weak.set("__mode", "k")?;
    handles.set_metatable(Some(weak))?;
    lua.set_named_registry_value(name, &handles)?;
    Ok(handles)
}

/// Gives the new userdata `ud` its holder `h` in the table of holders `table` (the cdata owns the
/// holder from now on).
///
/// # Safety
/// `h` is a new holder, handed over once.
pub unsafe fn register(lua: &Lua, table: &str, ud: &AnyUserData, h: *mut Holder) -> Result<()> {
    let made = (|| -> Result<()> {
        let cdata: Value = declare(lua)?.call(LightUserData(h as *mut c_void))?;
        holders(lua, table)?.raw_set(ud, cdata)
    })();
    if made.is_err() {
        // The cdata may not exist: let the reference go now (the box itself is leaked, as its
        // finalizer may yet run).
        // SAFETY: `h` is live and ours.
        unsafe { Holder::clear(h) };
    }
    made
}
