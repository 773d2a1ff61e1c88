//! The userdata of shared ipc objects: one `Arc` per object, one userdata per Lua state holding
//! it, `None` once the state closed its handle. Passing a handle to another thread clones the
//! `Arc` (every reference counted: no use-after-free when a copy is collected).

use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::sync::Arc;

use mlua::{AnyUserData, IntoLua, IntoLuaMulti, Lua, MaybeSend, MultiValue, Result, UserData, UserDataMethods, Value};

use super::fast;
use crate::error::{Error, Named};

use crate::torch::t7::codec::Handle;

pub struct HandleUd<T> {
    inner: RefCell<Option<Arc<T>>>,
    /// The fast methods' reference (types with `Object::FAST`), or null.
    holder: Cell<*mut fast::Holder>,
}

impl<T> HandleUd<T> {
    /// The object, or the error `<what> is not open` once closed.
    pub fn get(&self, what: &str) -> crate::error::Result<Arc<T>> {
        self.inner
            .borrow()
            .clone()
            .ok_or_else(|| Error::argument(format!("{what} is not open")))
    }

    /// Drops this state's reference; `<what> is already closed` the second time.
    pub fn close(&self, what: &str) -> crate::error::Result<()> {
        match self.inner.borrow_mut().take() {
            Some(_) => Ok(()),
            None => Err(Error::argument(format!("{what} is already closed"))),
        }
    }
}

/// What every shared ipc object type provides.
pub trait Object: Send + Sync + Sized + 'static {
    /// For types with fast `read` and `write` (see `fast`): the registry name of the table from
    /// each handle userdata of the type to its [`fast::Holder`].
    const FAST: Option<&'static str> = None;

    /// Makes the fast methods' wrappers in this state unless they exist (types with FAST).
    fn install_fast(_lua: &Lua) -> Result<()> {
        Ok(())
    }
}

/// A new userdata in `lua` for `inner`.
pub fn new_handle<T: Object>(lua: &Lua, inner: Arc<T>) -> Result<AnyUserData>
where
    HandleUd<T>: UserData,
{
    let holder = match T::FAST {
        Some(_) => {
            T::install_fast(lua)?;
            fast::Holder::new(inner.clone())
        }
        None => std::ptr::null_mut(),
    };
    let ud = lua.create_userdata(HandleUd {
        inner: RefCell::new(Some(inner)),
        holder: Cell::new(holder),
    })?;
    if let Some(table) = T::FAST {
        // SAFETY: `holder` is new and handed over once.
        unsafe { fast::register(lua, table, &ud, holder) }?;
    }
    Ok(ud)
}

/// Closes the handle `ud` (see [`HandleUd::close`]) for Lua function `method`; its fast methods
/// no longer find the object.
pub fn close_handle<T: Object>(ud: &AnyUserData, what: &str, method: &str) -> Result<()>
where
    HandleUd<T>: UserData,
{
    let h = ud.borrow::<HandleUd<T>>()?;
    h.close(what).named(method)?;
    // SAFETY: the holder lives while the userdata does (see fast::register).
    unsafe { fast::Holder::clear(h.holder.get()) };
    Ok(())
}

/// A handle on its way to another state.
struct Shared<T>(Arc<T>);

impl<T: Object> Handle for Shared<T>
where
    HandleUd<T>: UserData,
{
    fn push(&self, lua: &Lua) -> Result<Value> {
        Ok(Value::UserData(new_handle(lua, self.0.clone())?))
    }
}

/// The shareable form of `ud` when it is an open handle of type `T`.
pub fn share<T: Object>(ud: &AnyUserData) -> Option<Arc<dyn Handle>>
where
    HandleUd<T>: UserData,
{
    let h = ud.borrow::<HandleUd<T>>().ok()?;
    let inner = h.inner.borrow().clone()?;
    Some(Arc::new(Shared(inner)))
}

/// Adds method `name` to handle type `T`, named `full` (`ipc.workqueue:read`) in its errors. A call
/// on anything but an object of that type (`q.read()`, `q.read(5)`) is refused with that name, and
/// `f` reads its own arguments, so that every error names the call.
pub fn method<T, R, F>(m: &mut impl UserDataMethods<HandleUd<T>>, name: &str, full: &'static str, f: F)
where
    T: 'static,
    HandleUd<T>: UserData,
    R: IntoLuaMulti,
    F: Fn(&Lua, &AnyUserData, &HandleUd<T>, MultiValue) -> Result<R> + MaybeSend + 'static,
{
    m.add_function(name, move |lua, args: MultiValue| call(full, lua, args, &f));
}

/// Calls `f` with the handle `args` begin with and the rest of them, refusing a call on anything
/// else with the name `full`.
pub fn call<T, R>(
    full: &str,
    lua: &Lua,
    mut args: MultiValue,
    f: impl FnOnce(&Lua, &AnyUserData, &HandleUd<T>, MultiValue) -> Result<R>,
) -> Result<R>
where
    T: 'static,
    HandleUd<T>: UserData,
{
    let this = args.pop_front().unwrap_or(Value::Nil);
    let ud = match &this {
        Value::UserData(ud) => ud.borrow::<HandleUd<T>>().ok().map(|h| (ud, h)),
        _ => None,
    };
    let Some((any, ud)) = ud else {
        let what = full.split(':').next().unwrap_or(full);
        return Err(crate::args::error(
            full,
            format!(
                "expected an {what} as self, got {} (call it with ':')",
                crate::args::type_name(&this)
            ),
        ));
    };
    f(lua, any, &ud, args)
}

/// A type's fast method as a field value of its userdata (`write` or `read`).
pub struct Wrapper<T> {
    which: &'static str,
    kind: PhantomData<fn() -> T>,
}

impl<T> Wrapper<T> {
    pub fn write() -> Self {
        Wrapper {
            which: "write",
            kind: PhantomData,
        }
    }

    pub fn read() -> Self {
        Wrapper {
            which: "read",
            kind: PhantomData,
        }
    }
}

impl<T: Object> IntoLua for Wrapper<T> {
    fn into_lua(self, lua: &Lua) -> Result<Value> {
        T::install_fast(lua)?;
        fast::wrapper(lua, T::FAST.unwrap_or_default(), self.which)
    }
}
