//! What lua/tds's wrappers call through the FFI (see `crate::fastcall`): `h[k]`, `h[k] = v`,
//! `pairs(h)`, `#h`, `v[i]`, `v[i] = x` and the counter's methods, for keys and values that are
//! nil, booleans, numbers or strings. Anything else (tensors, containers, bad keys) answers
//! OTHER or SLOW, and the wrapper calls the ordinary function of `objects.rs`, which also raises
//! the errors.
//!
//! A string handed back is a copy in a buffer of this thread, which the wrapper copies into a Lua
//! string before its next call: the container's own bytes may go as soon as its lock does (another
//! thread may remove the entry).

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void};

use mlua::{LightUserData, Lua, Result, Table};

use super::objects::Kind;
use super::store::{self, Counter, Elem, Hash, Probe, Vector};
use crate::fastcall::{ERROR, FALSE, Holder, NIL, NONE, NUMBER, OTHER, SLOW, STRING, TRUE};

/// One value handed back.
#[repr(C)]
pub struct Out {
    pub num: f64,
    pub str: *const c_char,
    pub len: usize,
}

/// One entry of a walk: key, value and their kinds.
#[repr(C)]
pub struct Entry {
    pub key: Out,
    pub value: Out,
    pub key_kind: c_int,
    pub value_kind: c_int,
}

thread_local! {
    static KEY: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static VALUE: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static FAILED: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn failed(message: String) -> c_int {
    FAILED.with(|f| *f.borrow_mut() = Some(message));
    ERROR
}

/// Runs the body of an FFI function; a panic must not unwind into LuaJIT.
fn guard<R>(on_panic: R, body: impl FnOnce() -> R) -> R {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)).unwrap_or_else(|_| {
        failed("tds: internal error (a panic) in a fast call".into());
        on_panic
    })
}

/// A plain key or value from the wrapper's arguments; None for kinds it does not pass.
///
/// # Safety
/// For STRING, `s` points to `len` readable bytes.
unsafe fn probe<'a>(kind: c_int, num: f64, s: *const c_char, len: usize) -> Option<Probe<'a>> {
    Some(match kind {
        FALSE => Probe::Bool(false),
        TRUE => Probe::Bool(true),
        NUMBER if !num.is_nan() => Probe::Num(num),
        // SAFETY: as the caller promises (a Lua string passed by the FFI, alive for the call).
        STRING => Probe::Str(unsafe { std::slice::from_raw_parts(s as *const u8, len) }),
        _ => return None,
    })
}

/// A plain value from the wrapper's arguments (nil included).
///
/// # Safety
/// As [`probe`].
unsafe fn value(kind: c_int, num: f64, s: *const c_char, len: usize) -> Option<Elem> {
    if kind == NIL {
        return Some(Elem::Nil);
    }
    if kind == NUMBER {
        return Some(Elem::Num(num));
    }
    // SAFETY: as the caller promises.
    Some(match unsafe { probe(kind, num, s, len) }? {
        Probe::Bool(b) => Elem::Bool(b),
        Probe::Str(s) => Elem::Str(s.into()),
        _ => return None,
    })
}

fn key_elem(p: &Probe) -> Elem {
    match *p {
        Probe::Bool(b) => Elem::Bool(b),
        Probe::Num(n) => Elem::Num(n),
        Probe::Str(s) => Elem::Str(s.into()),
        // The wrappers only pass plain keys.
        Probe::Tensor(_) | Probe::Object(..) => Elem::Nil,
    }
}

/// Writes a stored element to `out` (strings into `buf`); returns its kind.
fn deliver(e: Option<&Elem>, out: &mut Out, buf: &'static std::thread::LocalKey<RefCell<Vec<u8>>>) -> c_int {
    match e {
        None | Some(Elem::Nil) => NONE,
        Some(Elem::Bool(false)) => FALSE,
        Some(Elem::Bool(true)) => TRUE,
        Some(Elem::Num(n)) => {
            out.num = *n;
            NUMBER
        }
        Some(Elem::Str(s)) => buf.with(|b| {
            let mut b = b.borrow_mut();
            b.clear();
            b.extend_from_slice(s);
            out.str = b.as_ptr() as *const c_char;
            out.len = b.len();
            STRING
        }),
        Some(_) => OTHER,
    }
}

unsafe extern "C" fn hash_get(
    h: *mut Holder,
    kk: c_int,
    kn: f64,
    ks: *const c_char,
    kl: usize,
    out: *mut Out,
) -> c_int {
    guard(ERROR, || {
        // SAFETY: the wrapper passes a hash holder, a key as `probe` wants it and its output.
        let (Some(h), Some(key)) = (unsafe { Holder::object::<Hash>(h) }, unsafe { probe(kk, kn, ks, kl) }) else {
            return SLOW;
        };
        let store = h.lock();
        // SAFETY: the wrapper's output struct.
        deliver(store.get(&key), unsafe { &mut *out }, &VALUE)
    })
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn hash_set(
    h: *mut Holder,
    kk: c_int,
    kn: f64,
    ks: *const c_char,
    kl: usize,
    vk: c_int,
    vn: f64,
    vs: *const c_char,
    vl: usize,
) -> c_int {
    guard(ERROR, || {
        // SAFETY: as in hash_get, and a value as `value` wants it.
        let (Some(h), Some(key), Some(v)) = (
            unsafe { Holder::object::<Hash>(h) },
            unsafe { probe(kk, kn, ks, kl) },
            unsafe { value(vk, vn, vs, vl) },
        ) else {
            return SLOW;
        };
        let old = h.lock().set(&key, || key_elem(&key), v);
        match old {
            Ok(old) => {
                drop(old);
                NONE
            }
            Err(e) => failed(format!("tds.Hash.__newindex: {e}")),
        }
    })
}

/// The next live entry at or after position `pos`: its position plus one (what to pass next), or
/// 0 at the end.
unsafe extern "C" fn hash_next(h: *mut Holder, pos: f64, e: *mut Entry) -> f64 {
    guard(-1.0, || {
        // SAFETY: a hash holder.
        let Some(h) = (unsafe { Holder::object::<Hash>(h) }) else {
            return -1.0;
        };
        let store = h.lock();
        let Some((i, k, v)) = store.next(pos.max(0.0) as usize) else {
            return 0.0;
        };
        // SAFETY: the wrapper's entry struct.
        let e = unsafe { &mut *e };
        e.key_kind = deliver(Some(k), &mut e.key, &KEY);
        e.value_kind = deliver(Some(v), &mut e.value, &VALUE);
        (i + 1) as f64
    })
}

unsafe extern "C" fn hash_len(h: *mut Holder) -> f64 {
    // SAFETY: a hash holder.
    guard(-1.0, || {
        unsafe { Holder::object::<Hash>(h) }.map_or(-1.0, |h| h.lock().len() as f64)
    })
}

/// A Lua index as a 0-based position, if it is a positive whole number in range.
fn position(i: f64) -> Option<usize> {
    (i >= 1.0 && i.fract() == 0.0 && i <= store::MAX_LEN as f64).then(|| i as usize - 1)
}

unsafe extern "C" fn vec_get(h: *mut Holder, i: f64, out: *mut Out) -> c_int {
    guard(ERROR, || {
        // SAFETY: a vector holder.
        let (Some(x), Some(i)) = (unsafe { Holder::object::<Vector>(h) }, position(i)) else {
            return SLOW;
        };
        let items = x.lock();
        // SAFETY: the wrapper's output struct.
        deliver(items.get(i), unsafe { &mut *out }, &VALUE)
    })
}

unsafe extern "C" fn vec_set(h: *mut Holder, i: f64, vk: c_int, vn: f64, vs: *const c_char, vl: usize) -> c_int {
    guard(ERROR, || {
        // SAFETY: a vector holder, and a value as `value` wants it.
        let (Some(x), Some(i), Some(v)) = (unsafe { Holder::object::<Vector>(h) }, position(i), unsafe {
            value(vk, vn, vs, vl)
        }) else {
            return SLOW;
        };
        let old = {
            let mut items = x.lock();
            if i >= items.len()
                && let Err(e) = store::resize(&mut items, i + 1)
            {
                return failed(format!("tds.Vec.__newindex: {e}"));
            }
            std::mem::replace(&mut items[i], v)
        };
        drop(old);
        NONE
    })
}

unsafe extern "C" fn vec_len(h: *mut Holder) -> f64 {
    // SAFETY: a vector holder.
    guard(-1.0, || {
        unsafe { Holder::object::<Vector>(h) }.map_or(-1.0, |x| x.lock().len() as f64)
    })
}

unsafe extern "C" fn counter_inc(h: *mut Holder) -> f64 {
    // SAFETY: a counter holder.
    guard(f64::NAN, || {
        unsafe { Holder::object::<Counter>(h) }.map_or(f64::NAN, |c| c.inc() as f64)
    })
}

unsafe extern "C" fn counter_get(h: *mut Holder) -> f64 {
    // SAFETY: a counter holder.
    guard(f64::NAN, || {
        unsafe { Holder::object::<Counter>(h) }.map_or(f64::NAN, |c| c.get() as f64)
    })
}

/// `raise()`: raises the error one of the functions above left.
fn raise(_: &Lua, (): ()) -> Result<()> {
    let msg = FAILED.with(|f| f.borrow_mut().take());
    Err(mlua::Error::RuntimeError(
        msg.unwrap_or_else(|| "tds: unknown error".into()),
    ))
}

/// The functions' addresses for lua/tds (`fast`), and `raise`, which raises what one of them left.
pub fn register(lua: &Lua, t: &Table) -> Result<()> {
    crate::fastcall::declare(lua)?;
    let fast = lua.create_table()?;
    let entries: [(&str, *mut c_void); 9] = [
        ("hashGet", hash_get as *mut c_void),
        ("hashSet", hash_set as *mut c_void),
        ("hashNext", hash_next as *mut c_void),
        ("hashLen", hash_len as *mut c_void),
        ("vecGet", vec_get as *mut c_void),
        ("vecSet", vec_set as *mut c_void),
        ("vecLen", vec_len as *mut c_void),
        ("counterInc", counter_inc as *mut c_void),
        ("counterGet", counter_get as *mut c_void),
    ];
    for (name, f) in entries {
        fast.set(name, LightUserData(f))?;
    }
    t.set("fast", fast)?;
    crate::calls::add(lua, t, "raise", raise)?;
    for (name, table) in [
        ("hashHolders", Hash::HOLDERS),
        ("vecHolders", Vector::HOLDERS),
        ("counterHolders", Counter::HOLDERS),
    ] {
        t.set(name, crate::fastcall::holders(lua, table)?)?;
    }
    Ok(())
}
