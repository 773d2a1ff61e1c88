//! The userdata of shared ipc objects: one `Arc` per object, one userdata per Lua state holding
//! it, `None` once the state closed its handle. Passing a handle to another thread clones the
//! `Arc` (every reference counted: no use-after-free when a copy is collected).

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, MutexGuard};
use std::time::{Duration, Instant};

use mlua::{AnyUserData, IntoLuaMulti, Lua, MaybeSend, MultiValue, Result, UserData, UserDataMethods, Value};

use super::fast;

use crate::torch::t7::codec::Handle;

pub struct HandleUd<T> {
    inner: RefCell<Option<Arc<T>>>,
    /// The fast methods' reference (types with `Object::FAST`), or null.
    holder: Cell<*mut fast::Holder>,
}

impl<T> HandleUd<T> {
    /// The object, or the error `<what> is not open` once closed.
    pub fn get(&self, what: &str) -> Result<Arc<T>> {
        self.inner
            .borrow()
            .clone()
            .ok_or_else(|| mlua::Error::RuntimeError(format!("{what} is not open")))
    }

    /// Drops this state's reference; `<what> is already closed` the second time.
    pub fn close(&self, what: &str) -> Result<()> {
        match self.inner.borrow_mut().take() {
            Some(_) => Ok(()),
            None => Err(mlua::Error::RuntimeError(format!("{what} is already closed"))),
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

/// Closes the handle `ud` (see [`HandleUd::close`]); its fast methods no longer find the object.
pub fn close_handle<T: Object>(ud: &AnyUserData, what: &str) -> Result<()>
where
    HandleUd<T>: UserData,
{
    let h = ud.borrow::<HandleUd<T>>()?;
    h.close(what)?;
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

/// Where threads wait for a shared object to change: a condition variable that is signalled only
/// when someone waits on it (a signal is a system call), and a count of changes that a reader
/// about to sleep spins on for a moment first (an item usually follows within microseconds, and
/// sleeping and waking cost far more).
#[derive(Default)]
pub struct Signal {
    cond: Condvar,
    waiters: AtomicUsize,
    changes: AtomicU64,
}

/// How long a reader spins before it sleeps.
const SPIN: Duration = Duration::from_micros(50);
/// A reader that saw a change looks again this much later, then twice as late each time, while
/// changes keep coming...
const GATHER_POLL: Duration = Duration::from_nanos(100);
/// ... until this many have come, or for at most this long.
const GATHER_ITEMS: u64 = 256;
const GATHER_MAX: Duration = Duration::from_micros(20);

impl Signal {
    /// The number of changes so far; read it under the object's lock, before deciding to wait.
    pub fn seen(&self) -> u64 {
        self.changes.load(Ordering::Acquire)
    }

    /// Records a change made under the object's lock (call before unlocking), and wakes every
    /// waiter (call [`Signal::wake`] after unlocking).
    pub fn changed(&self) {
        self.changes.fetch_add(1, Ordering::AcqRel);
    }

    pub fn wake(&self) {
        if self.waiters.load(Ordering::Acquire) > 0 {
            self.cond.notify_all();
        }
    }

    /// Spins until a change after `seen` or for at most SPIN; whether something changed. Call
    /// without holding the object's lock.
    pub fn spin(&self, seen: u64) -> bool {
        let start = Instant::now();
        let mut i = 0u32;
        loop {
            if self.changes.load(Ordering::Acquire) != seen {
                return true;
            }
            i = i.wrapping_add(1);
            if i < 256 {
                std::hint::spin_loop();
                continue;
            }
            if start.elapsed() > SPIN {
                return false;
            }
            // Past the first few hundred checks, give the core to a writer that may share it.
            std::thread::yield_now();
        }
    }

    /// [`Signal::spin`], then, once something changed, a little longer while changes keep
    /// coming (a writer in full flow), so that a reader takes a batch at once instead of paying a
    /// handoff between cores for every item. While gathering it reads the shared counter only
    /// at growing intervals (a lone item is taken at once): every read pulls the writer's cache line away from it, which on a
    /// machine with many cores costs the writer more than the item itself. Whether something
    /// changed.
    pub fn spin_gather(&self, seen: u64) -> bool {
        if !self.spin(seen) {
            return false;
        }
        let start = Instant::now();
        let mut last = self.changes.load(Ordering::Acquire);
        let mut polled = start;
        let mut gap = GATHER_POLL;
        loop {
            std::hint::spin_loop();
            let now = Instant::now();
            if now.duration_since(polled) < gap {
                continue;
            }
            polled = now;
            gap *= 2;
            let changes = self.changes.load(Ordering::Acquire);
            if changes == last || changes.wrapping_sub(seen) >= GATHER_ITEMS || now - start > GATHER_MAX {
                return true;
            }
            last = changes;
        }
    }

    /// Waits for a wakeup, at most a slice of time, so that a wait can notice what it must (an
    /// interrupt, a queue nobody else holds any more) without missing a wakeup.
    pub fn wait<'a, S>(&self, guard: MutexGuard<'a, S>) -> MutexGuard<'a, S> {
        // Counted under the lock: a writer that changes the object after this sees the count.
        self.waiters.fetch_add(1, Ordering::AcqRel);
        let g = match self.cond.wait_timeout(guard, Duration::from_millis(100)) {
            Ok((g, _)) => g,
            Err(e) => e.into_inner().0,
        };
        self.waiters.fetch_sub(1, Ordering::AcqRel);
        g
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
    m.add_function(name, checked(full, f));
}

/// `f` as a function of the handle and the arguments, refusing calls on anything else.
pub fn checked<T, R, F>(full: &'static str, f: F) -> impl Fn(&Lua, MultiValue) -> Result<R> + MaybeSend + 'static
where
    T: 'static,
    HandleUd<T>: UserData,
    R: IntoLuaMulti,
    F: Fn(&Lua, &AnyUserData, &HandleUd<T>, MultiValue) -> Result<R> + MaybeSend + 'static,
{
    move |lua, mut args: MultiValue| {
        let this = args.pop_front().unwrap_or(Value::Nil);
        let ud = match &this {
            Value::UserData(ud) => ud.borrow::<HandleUd<T>>().ok().map(|h| (ud, h)),
            _ => None,
        };
        let Some((any, ud)) = ud else {
            let what = full.split(':').next().unwrap_or(full);
            return Err(crate::torch::args::error(
                full,
                format!(
                    "expected an {what} as self, got {} (call it with ':')",
                    crate::torch::args::type_name(&this)
                ),
            ));
        };
        f(lua, any, &ud, args)
    }
}

/// An optional boolean argument (nil or absent: `default`).
pub fn opt_bool(args: &MultiValue, i: usize, full: &str, default: bool) -> Result<bool> {
    match args.get(i) {
        None | Some(Value::Nil) => Ok(default),
        Some(Value::Boolean(b)) => Ok(*b),
        Some(other) => Err(crate::torch::args::error(
            full,
            format!(
                "bad argument #{} (boolean or nil expected, got {})",
                i + 1,
                crate::torch::args::type_name(other)
            ),
        )),
    }
}

/// An optional number argument.
pub fn opt_number(args: &MultiValue, i: usize, full: &str) -> Result<Option<f64>> {
    match args.get(i) {
        None | Some(Value::Nil) => Ok(None),
        Some(v) => crate::torch::args::number(v).map(Some).ok_or_else(|| {
            crate::torch::args::error(
                full,
                format!(
                    "bad argument #{} (number expected, got {})",
                    i + 1,
                    crate::torch::args::type_name(v)
                ),
            )
        }),
    }
}
