//! tds's containers as Lua userdata, and elements to and from Lua values. Each userdata holds an
//! `Arc` of its container; one container may have a userdata in several states (threads share
//! them by reference: [`handle_of`]). The metatables come from lua/tds (`libtds.register`), as
//! tensors' do from lua/torch.
//!
//! These are the ordinary (mlua) functions: every key and value type, and the errors. The Lua
//! wrappers call the FFI functions of `fast.rs` first, for plain keys and values.

use std::sync::Arc;

use mlua::{AnyUserData, Function, Lua, MultiValue, Result, Table, UserDataFields, Value};

use super::store::{self, Counter, Custom, Elem, Hash, Probe, Vector};
use crate::calls;
use crate::error::Error;
use crate::fastcall::{self, Holder};
use crate::torch::t7::codec::Handle;
use crate::torch::userdata::{push_storage, push_tensor, storage_of, tensor_of};

/// A container's userdata.
pub struct Obj<T> {
    pub inner: Arc<T>,
}

/// A C object on its way into a container (`tds.elem.addctype`'s set function gave it); the
/// container takes it once.
pub struct PendingCustom(std::cell::RefCell<Option<Box<Custom>>>);

/// What each container type is called, and where its userdata's holders are.
pub trait Kind: Send + Sync + Sized + 'static {
    const CLASS: &'static str;
    const HOLDERS: &'static str;
}

impl Kind for Hash {
    const CLASS: &'static str = "tds.Hash";
    const HOLDERS: &'static str = "luatorch.tds.hash";
}

impl Kind for Vector {
    const CLASS: &'static str = "tds.Vec";
    const HOLDERS: &'static str = "luatorch.tds.vec";
}

impl Kind for Counter {
    const CLASS: &'static str = "tds.AtomicCounter";
    const HOLDERS: &'static str = "luatorch.tds.counter";
}

/// A new userdata for `inner`, with its holder for the FFI wrappers.
pub fn push<T: Kind>(lua: &Lua, inner: Arc<T>) -> Result<Value> {
    let holder = Holder::new(inner.clone());
    let ud = lua.create_any_userdata(Obj { inner })?;
    // SAFETY: the holder is new and handed over once.
    unsafe { fastcall::register(lua, T::HOLDERS, &ud, holder) }?;
    Ok(Value::UserData(ud))
}

/// The container of `v` when it is a userdata of type `T`.
pub fn object_of<T: Kind>(v: &Value) -> Option<Arc<T>> {
    match v {
        Value::UserData(ud) => ud.borrow::<Obj<T>>().ok().map(|o| o.inner.clone()),
        _ => None,
    }
}

/// `v` as an element when it is one of the containers' userdata.
fn container_of(v: &Value) -> Option<Elem> {
    if let Some(h) = object_of::<Hash>(v) {
        return Some(Elem::Hash(h));
    }
    if let Some(x) = object_of::<Vector>(v) {
        return Some(Elem::Vec(x));
    }
    object_of::<Counter>(v).map(Elem::Counter)
}

fn this<T: Kind>(v: &Value, method: &str) -> Result<Arc<T>> {
    object_of::<T>(v)
        .ok_or_else(|| Error::argument(format!("{} expected as self, got {}", T::CLASS, v.type_name())).named(method))
}

/// The torch class name of `v` for error messages (Torch's typename, else Lua's type).
fn type_text(lua: &Lua, v: &Value) -> String {
    let typename = (|| -> Result<Option<String>> {
        let torch: Table = lua.globals().get("torch")?;
        let f: Function = torch.get("typename")?;
        f.call::<Option<String>>(v.clone())
    })();
    typename.ok().flatten().unwrap_or_else(|| v.type_name().to_string())
}

/// `v` as an element of a container. Errors name `method`.
pub fn elem_of(lua: &Lua, v: &Value, method: &str) -> Result<Elem> {
    Ok(match v {
        Value::Nil => Elem::Nil,
        Value::Boolean(b) => Elem::Bool(*b),
        Value::Integer(i) => Elem::Num(*i as f64),
        Value::Number(n) => Elem::Num(*n),
        Value::String(s) => Elem::Str(s.as_bytes().as_ref().into()),
        Value::UserData(ud) => {
            if let Some(t) = tensor_of(v) {
                Elem::Tensor(Box::new(t))
            } else if let Some(s) = storage_of(v) {
                Elem::Storage(s)
            } else if let Some(c) = container_of(v) {
                c
            } else if let Ok(p) = ud.borrow::<PendingCustom>() {
                match p.0.borrow_mut().take() {
                    Some(c) => Elem::Custom(c),
                    None => return Err(Error::argument("a C element can be stored once").named(method)),
                }
            } else {
                return Err(unsupported(lua, v, method));
            }
        }
        _ => return Err(unsupported(lua, v, method)),
    })
}

fn unsupported(lua: &Lua, v: &Value, method: &str) -> mlua::Error {
    Error::argument(format!("unsupported key/value type <{}> (set)", type_text(lua, v))).named(method)
}

/// `v` as a hash key; nil and NaN are refused.
fn key_of(lua: &Lua, v: &Value, method: &str) -> Result<Elem> {
    match v {
        Value::Nil => Err(Error::argument("hash index is nil").named(method)),
        Value::Number(n) if n.is_nan() => Err(Error::argument("hash index is NaN").named(method)),
        _ => elem_of(lua, v, method),
    }
}

/// An element as Lua values: the value, and for a C object (which its get function turns into a
/// Lua value, in lua/tds) nil, then its class and address.
fn push_elem(lua: &Lua, e: &Elem, out: &mut Vec<Value>) -> Result<()> {
    let v = match e {
        Elem::Nil => Value::Nil,
        Elem::Bool(b) => Value::Boolean(*b),
        Elem::Num(n) => Value::Number(*n),
        Elem::Str(s) => Value::String(lua.create_string(&**s)?),
        Elem::Tensor(t) => push_tensor(lua, (**t).clone())?,
        Elem::Storage(s) => push_storage(lua, s.clone())?,
        Elem::Hash(h) => push(lua, h.clone())?,
        Elem::Vec(x) => push(lua, x.clone())?,
        Elem::Counter(c) => push(lua, c.clone())?,
        Elem::Custom(c) => {
            out.push(Value::Nil);
            out.push(Value::String(lua.create_string(&*c.class)?));
            out.push(Value::Number(c.ptr as f64));
            return Ok(());
        }
    };
    out.push(v);
    Ok(())
}

fn values(lua: &Lua, elems: &[&Elem]) -> Result<MultiValue> {
    let mut out = Vec::with_capacity(elems.len());
    for e in elems {
        let start = out.len();
        push_elem(lua, e, &mut out)?;
        // Every element takes three slots when any is a C object, so that lua/tds finds each.
        if elems.len() > 1 {
            out.resize(start + 3, Value::Nil);
        }
    }
    Ok(MultiValue::from_vec(out))
}

/// Runs `f` with the probe of Lua key `k`.
fn with_probe<R>(lua: &Lua, k: &Value, method: &str, f: impl FnOnce(&Probe) -> R) -> Result<R> {
    Ok(match k {
        Value::Integer(i) => f(&Probe::Num(*i as f64)),
        Value::Number(n) if !n.is_nan() => f(&Probe::Num(*n)),
        Value::Boolean(b) => f(&Probe::Bool(*b)),
        Value::String(s) => f(&Probe::Str(&s.as_bytes())),
        _ => {
            let key = key_of(lua, k, method)?;
            let probe = key.probe().expect("keys are not nil");
            f(&probe)
        }
    })
}

/// `hashGet(h, k) -> value`: `h[k]` (nothing when absent).
fn hash_get(lua: &Lua, (h, k): (Value, Value)) -> Result<MultiValue> {
    const METHOD: &str = "tds.Hash.__index";
    let h = this::<Hash>(&h, METHOD)?;
    // Pushing a value (a tensor, a container) runs Lua code: not under the lock.
    let found = with_probe(lua, &k, METHOD, |p| h.lock().get(p).map(copy_out))?;
    match found {
        Some(Ok(e)) => values(lua, &[&e]),
        Some(Err(e)) => Err(e.named(METHOD)),
        None => Ok(MultiValue::new()),
    }
}

/// A stored element, for pushing once the lock is let go: containers, tensors and storages are
/// shared, not copied.
fn copy_out(e: &Elem) -> crate::error::Result<Elem> {
    Ok(match e {
        Elem::Nil => Elem::Nil,
        Elem::Bool(b) => Elem::Bool(*b),
        Elem::Num(n) => Elem::Num(*n),
        Elem::Str(s) => Elem::Str(s.clone()),
        Elem::Tensor(t) => Elem::Tensor(t.clone()),
        Elem::Storage(s) => Elem::Storage(s.clone()),
        Elem::Hash(h) => Elem::Hash(h.clone()),
        Elem::Vec(x) => Elem::Vec(x.clone()),
        Elem::Counter(c) => Elem::Counter(c.clone()),
        // The pointer only: the container keeps owning the object.
        Elem::Custom(c) => {
            return Ok(Elem::Custom(Box::new(Custom {
                ptr: c.ptr,
                free: keep,
                class: c.class.clone(),
            })));
        }
    })
}

/// The destructor of a borrowed C object's pointer: nothing (the container owns it).
unsafe extern "C" fn keep(_: usize) {}

/// `hashSet(h, k, v)`: `h[k] = v` (nil removes).
fn hash_set(lua: &Lua, (h, k, v): (Value, Value, Value)) -> Result<()> {
    const METHOD: &str = "tds.Hash.__newindex";
    let h = this::<Hash>(&h, METHOD)?;
    let key = key_of(lua, &k, METHOD)?;
    let value = elem_of(lua, &v, METHOD)?;
    let old = h.lock().set_owned(key, value).map_err(|e| e.named(METHOD))?;
    // What was there goes after the lock does (dropping a container may drop others).
    drop(old);
    Ok(())
}

/// `hashEntry(h, pos) -> next, k, v`: the entry after position `pos`, for `pairs(h)`.
fn hash_entry(lua: &Lua, (h, pos): (Value, i64)) -> Result<MultiValue> {
    const METHOD: &str = "tds.Hash.__pairs";
    let h = this::<Hash>(&h, METHOD)?;
    let entry = {
        let store = h.lock();
        let from = usize::try_from(pos.max(0)).unwrap_or(usize::MAX);
        store.next(from).map(|(i, k, v)| (i, copy_out(k), copy_out(v)))
    };
    match entry {
        None => Ok(MultiValue::new()),
        Some((i, Ok(k), Ok(v))) => {
            let mut out = values(lua, &[&k, &v])?.into_vec();
            out.insert(0, Value::Integer(i as i64 + 1));
            Ok(MultiValue::from_vec(out))
        }
        Some((_, Err(e), _)) | Some((_, _, Err(e))) => Err(e.named(METHOD)),
    }
}

/// `len(c) -> n`: the number of entries of a hash or a vector (nil for anything else).
fn len(_: &Lua, v: Value) -> Result<Option<usize>> {
    if let Some(h) = object_of::<Hash>(&v) {
        return Ok(Some(h.lock().len()));
    }
    Ok(object_of::<Vector>(&v).map(|x| x.lock().len()))
}

/// A Lua index as a 0-based position: a positive whole number.
fn position(i: f64, method: &str) -> Result<usize> {
    if i.is_nan() || i < 1.0 || i.fract() != 0.0 || i > store::MAX_LEN as f64 {
        return Err(Error::argument("positive number expected as key").named(method));
    }
    Ok(i as usize - 1)
}

/// `vecGet(x, i) -> value`: `x[i]` (nothing past the end).
fn vec_get(lua: &Lua, (x, i): (Value, f64)) -> Result<MultiValue> {
    const METHOD: &str = "tds.Vec.__index";
    let x = this::<Vector>(&x, METHOD)?;
    let i = position(i, METHOD)?;
    let found = x.lock().get(i).map(copy_out);
    match found {
        Some(Ok(e)) => values(lua, &[&e]),
        Some(Err(e)) => Err(e.named(METHOD)),
        None => Ok(MultiValue::new()),
    }
}

/// `vecSet(x, i, v)`: `x[i] = v`, growing the vector to `i`.
fn vec_set(lua: &Lua, (x, i, v): (Value, f64, Value)) -> Result<()> {
    const METHOD: &str = "tds.Vec.__newindex";
    let x = this::<Vector>(&x, METHOD)?;
    let i = position(i, METHOD)?;
    let value = elem_of(lua, &v, METHOD)?;
    let old = {
        let mut items = x.lock();
        if i >= items.len() {
            store::resize(&mut items, i + 1).map_err(|e| e.named(METHOD))?;
        }
        std::mem::replace(&mut items[i], value)
    };
    drop(old);
    Ok(())
}

/// `vecInsert(x, [i], v)`: inserts `v` at `i` (at the end without one).
fn vec_insert(lua: &Lua, (x, i, v): (Value, Option<f64>, Value)) -> Result<()> {
    const METHOD: &str = "tds.Vec.insert";
    let x = this::<Vector>(&x, METHOD)?;
    let value = elem_of(lua, &v, METHOD)?;
    let mut items = x.lock();
    let i = match i {
        Some(i) => position(i, METHOD)?,
        None => items.len(),
    };
    if i > items.len() {
        store::resize(&mut items, i).map_err(|e| e.named(METHOD))?;
    }
    if items.len() >= store::MAX_LEN || items.try_reserve(1).is_err() {
        return Err(Error::memory("out of memory").named(METHOD));
    }
    items.insert(i, value);
    Ok(())
}

/// `vecRemove(x, [i])`: removes the element at `i` (the last without one).
fn vec_remove(_: &Lua, (x, i): (Value, Option<f64>)) -> Result<()> {
    const METHOD: &str = "tds.Vec.remove";
    let x = this::<Vector>(&x, METHOD)?;
    let old = {
        let mut items = x.lock();
        let i = match i {
            Some(i) => position(i, METHOD)?,
            None if items.is_empty() => return Ok(()),
            None => items.len() - 1,
        };
        if i >= items.len() {
            return Err(Error::argument(format!("index {} out of range (size {})", i + 1, items.len())).named(METHOD));
        }
        items.remove(i)
    };
    drop(old);
    Ok(())
}

/// `vecResize(x, n)`
fn vec_resize(_: &Lua, (x, n): (Value, f64)) -> Result<()> {
    const METHOD: &str = "tds.Vec.resize";
    let x = this::<Vector>(&x, METHOD)?;
    if n.is_nan() || n < 0.0 || n.fract() != 0.0 {
        return Err(Error::argument("size must be a positive number").named(METHOD));
    }
    let cut = {
        let mut items = x.lock();
        let n = n.min(store::MAX_LEN as f64 + 1.0) as usize;
        let cut = if n < items.len() {
            items.split_off(n)
        } else {
            Vec::new()
        };
        store::resize(&mut items, n).map_err(|e| e.named(METHOD))?;
        cut
    };
    drop(cut);
    Ok(())
}

/// `vecTake(x) -> table`: a vector's values in a Lua table, for sorting with a Lua comparison
/// (`vecPermute` puts them back in order).
fn vec_take(lua: &Lua, x: Value) -> Result<Table> {
    const METHOD: &str = "tds.Vec.sort";
    let x = this::<Vector>(&x, METHOD)?;
    let items: Vec<Elem> = {
        let items = x.lock();
        items.iter().map(copy_out).collect::<std::result::Result<_, _>>()
    }
    .map_err(|e| e.named(METHOD))?;
    let t = lua.create_table_with_capacity(items.len(), 0)?;
    for (i, e) in items.iter().enumerate() {
        let mut out = Vec::with_capacity(1);
        push_elem(lua, e, &mut out)?;
        t.raw_set(i + 1, out.into_iter().next().unwrap_or(Value::Nil))?;
    }
    Ok(t)
}

/// `vecPermute(x, order)`: reorders a vector by `order`, a permutation of 1..#v (`order[i]` is
/// where the new i-th element was): what lua/tds's sort computed.
fn vec_permute(_: &Lua, (x, order): (Value, Table)) -> Result<()> {
    const METHOD: &str = "tds.Vec.sort";
    let x = this::<Vector>(&x, METHOD)?;
    let mut items = x.lock();
    let n = items.len();
    let mut seen = vec![false; n];
    let mut from = Vec::with_capacity(n);
    for i in 1..=n {
        let j: f64 = order.raw_get(i)?;
        let ok = j >= 1.0 && j.fract() == 0.0 && j <= n as f64 && !seen[j as usize - 1];
        if !ok {
            return Err(Error::argument("the vector changed while it was sorted").named(METHOD));
        }
        seen[j as usize - 1] = true;
        from.push(j as usize - 1);
    }
    let mut old: Vec<Option<Elem>> = items.drain(..).map(Some).collect();
    items.extend(from.into_iter().map(|j| old[j].take().unwrap_or(Elem::Nil)));
    Ok(())
}

/// `same(a, b) -> bool`: `a == b`, the same container.
fn same(_: &Lua, (a, b): (Value, Value)) -> Result<bool> {
    Ok(match (container_of(&a), container_of(&b)) {
        (Some(x), Some(y)) => x.probe() == y.probe(),
        _ => false,
    })
}

/// `custom(ptr, free, class) -> pending`: a C object from `tds.elem.addctype`'s set function: its
/// address, its destructor's address and its class, ready to be stored once.
fn custom(_: &Lua, (ptr, free, class): (f64, f64, String)) -> Result<PendingCustom> {
    const METHOD: &str = "tds.elem.set";
    if free.is_nan() || free < 1.0 || free.fract() != 0.0 || ptr.is_nan() || ptr < 0.0 || ptr.fract() != 0.0 {
        return Err(Error::argument("the set function must return a pointer and a destructor").named(METHOD));
    }
    // SAFETY: the script named this function as the destructor of such pointers (addctype's
    // contract, as in the original); it takes the object's address.
    let free: unsafe extern "C" fn(usize) = unsafe { std::mem::transmute(free as usize) };
    Ok(PendingCustom(std::cell::RefCell::new(Some(Box::new(Custom {
        ptr: ptr as usize,
        free,
        class: class.into(),
    })))))
}

impl mlua::UserData for PendingCustom {}

/// The functions above, and those that make containers and install their metatables.
pub fn register(lua: &Lua, t: &Table) -> Result<()> {
    calls::add(lua, t, "register", register_types)?;
    calls::add(lua, t, "newHash", new_hash)?;
    calls::add(lua, t, "newVec", new_vec)?;
    calls::add(lua, t, "newCounter", new_counter)?;
    calls::add(lua, t, "hashGet", hash_get)?;
    calls::add(lua, t, "hashSet", hash_set)?;
    calls::add(lua, t, "hashEntry", hash_entry)?;
    calls::add(lua, t, "len", len)?;
    calls::add(lua, t, "vecGet", vec_get)?;
    calls::add(lua, t, "vecSet", vec_set)?;
    calls::add(lua, t, "vecInsert", vec_insert)?;
    calls::add(lua, t, "vecRemove", vec_remove)?;
    calls::add(lua, t, "vecResize", vec_resize)?;
    calls::add(lua, t, "vecTake", vec_take)?;
    calls::add(lua, t, "vecPermute", vec_permute)?;
    calls::add(lua, t, "counterGet", counter_get)?;
    calls::add(lua, t, "counterSet", counter_set)?;
    calls::add(lua, t, "counterInc", counter_inc)?;
    calls::add(lua, t, "same", same)?;
    calls::add(lua, t, "custom", custom)?;
    Ok(())
}

/// `register(hash, vec, counter)`: installs the metatables lua/tds made (each table's fields
/// become the userdata's metatable fields).
fn register_types(lua: &Lua, (h, v, c): (Table, Table, Table)) -> Result<()> {
    fn fields(meta: &Table) -> Result<Vec<(String, Value)>> {
        meta.pairs::<String, Value>().collect()
    }
    let (h, v, c) = (fields(&h)?, fields(&v)?, fields(&c)?);
    lua.register_userdata_type::<Obj<Hash>>(|reg| h.into_iter().for_each(|(k, f)| reg.add_meta_field(k, f)))?;
    lua.register_userdata_type::<Obj<Vector>>(|reg| v.into_iter().for_each(|(k, f)| reg.add_meta_field(k, f)))?;
    lua.register_userdata_type::<Obj<Counter>>(|reg| c.into_iter().for_each(|(k, f)| reg.add_meta_field(k, f)))
}

/// `newHash() -> tds.Hash`
fn new_hash(lua: &Lua, (): ()) -> Result<Value> {
    push(lua, Arc::new(Hash::default()))
}

/// `newVec() -> tds.Vec`
fn new_vec(lua: &Lua, (): ()) -> Result<Value> {
    push(lua, Arc::new(Vector::default()))
}

/// `newCounter() -> tds.AtomicCounter`
fn new_counter(lua: &Lua, (): ()) -> Result<Value> {
    push(lua, Arc::new(Counter::new(0)))
}

/// `counterGet(c) -> n`
fn counter_get(_: &Lua, c: Value) -> Result<i64> {
    Ok(this::<Counter>(&c, "tds.AtomicCounter.get")?.get())
}

/// `counterSet(c, n)`
fn counter_set(_: &Lua, (c, v): (Value, f64)) -> Result<()> {
    const METHOD: &str = "tds.AtomicCounter.set";
    if v.fract() != 0.0 || v.abs() > 9.0e18 {
        return Err(Error::argument(format!("integer expected, got {v}")).named(METHOD));
    }
    this::<Counter>(&c, METHOD)?.set(v as i64);
    Ok(())
}

/// `counterInc(c) -> n`: the value before the increment.
fn counter_inc(_: &Lua, c: Value) -> Result<i64> {
    Ok(this::<Counter>(&c, "tds.AtomicCounter.inc")?.inc())
}

/// A container on its way to another state of this process (threads, ipc): shared, not copied.
struct Shared(Elem);

impl Handle for Shared {
    fn push(&self, lua: &Lua) -> Result<Value> {
        // The receiving state gets the metatables by loading tds.
        lua.globals().get::<Function>("require")?.call::<Value>("tds")?;
        match &self.0 {
            Elem::Hash(h) => push(lua, h.clone()),
            Elem::Vec(x) => push(lua, x.clone()),
            Elem::Counter(c) => push(lua, c.clone()),
            _ => Ok(Value::Nil),
        }
    }

    fn duplicate(&self) -> Option<crate::error::Result<Arc<dyn Handle>>> {
        Some(self.0.deep_copy().map(|e| Arc::new(Shared(e)) as Arc<dyn Handle>))
    }
}

/// The shareable form of a tds container's userdata (see `ipc::packed`'s handles).
pub fn handle_of(ud: &AnyUserData) -> Option<Arc<dyn Handle>> {
    let elem = container_of(&Value::UserData(ud.clone()))?;
    Some(Arc::new(Shared(elem)))
}
