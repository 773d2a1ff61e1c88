//! The userdata of shared ipc objects: one `Arc` per object, one userdata per Lua state holding
//! it, `None` once the state closed its handle. Passing a handle to another thread clones the
//! `Arc` (every reference counted: no use-after-free when a copy is collected).

use std::cell::RefCell;
use std::sync::Arc;

use mlua::{AnyUserData, Lua, Result, UserData, Value};

use crate::torch::t7::codec::Handle;

pub struct HandleUd<T>(pub RefCell<Option<Arc<T>>>);

impl<T> HandleUd<T> {
    pub fn new(inner: Arc<T>) -> HandleUd<T> {
        HandleUd(RefCell::new(Some(inner)))
    }

    /// The object, or the error `<what> is not open` once closed.
    pub fn get(&self, what: &str) -> Result<Arc<T>> {
        self.0
            .borrow()
            .clone()
            .ok_or_else(|| mlua::Error::RuntimeError(format!("{what} is not open")))
    }

    /// Drops this state's reference; `<what> is already closed` the second time.
    pub fn close(&self, what: &str) -> Result<()> {
        match self.0.borrow_mut().take() {
            Some(_) => Ok(()),
            None => Err(mlua::Error::RuntimeError(format!("{what} is already closed"))),
        }
    }
}

/// A handle on its way to another state.
struct Shared<T>(Arc<T>);

impl<T> Handle for Shared<T>
where
    T: Send + Sync + 'static,
    HandleUd<T>: UserData,
{
    fn push(&self, lua: &Lua) -> Result<Value> {
        Ok(Value::UserData(lua.create_userdata(HandleUd::new(self.0.clone()))?))
    }
}

/// The shareable form of `ud` when it is an open handle of type `T`.
pub fn share<T>(ud: &AnyUserData) -> Option<Arc<dyn Handle>>
where
    T: Send + Sync + 'static,
    HandleUd<T>: UserData,
{
    let h = ud.borrow::<HandleUd<T>>().ok()?;
    let inner = h.0.borrow().clone()?;
    Some(Arc::new(Shared(inner)))
}

/// Waits on `cond` in slices, so that a wait can notice what it must (an interrupt, a queue
/// nobody else holds any more) without missing a wakeup.
pub fn wait_slice<'a, S>(
    cond: &std::sync::Condvar,
    guard: std::sync::MutexGuard<'a, S>,
) -> std::sync::MutexGuard<'a, S> {
    match cond.wait_timeout(guard, std::time::Duration::from_millis(100)) {
        Ok((g, _)) => g,
        Err(e) => e.into_inner().0,
    }
}

pub fn interrupted() -> bool {
    crate::repl::interrupt::pending()
}

/// An error from a call, as `method: message` (without mlua's "runtime error: " wording).
pub fn fail(method: &str, e: impl Into<Failure>) -> mlua::Error {
    crate::torch::args::error(method, e.into().0)
}

pub struct Failure(String);

impl From<mlua::Error> for Failure {
    fn from(e: mlua::Error) -> Failure {
        Failure(crate::runtime::errors::message_of(&e))
    }
}

impl From<String> for Failure {
    fn from(e: String) -> Failure {
        Failure(e)
    }
}

impl From<&str> for Failure {
    fn from(e: &str) -> Failure {
        Failure(e.to_string())
    }
}
