//! `threads.Mutex` and `threads.Condition`: a lock that stays held between Lua calls and a
//! condition variable, both reachable from any Lua state of the process by their number
//! (`m:id()`, then `threads.Mutex(id)` in another thread), as torch/threads has them.
//!
//! Each object lives while a handle on it does: `free()` (or collection) drops one handle. The
//! registries hold weak references, so a number whose object went is refused, never reused
//! silently while the object lives.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::thread::ThreadId;

use mlua::{Lua, MultiValue, Result, Table, UserData, UserDataMethods, Value};

use crate::args::{error, type_name};
use crate::calls;
use crate::ipc::signal::{Signal, interrupted};

/// Objects by number, for `threads.Mutex(id)` and `threads.Condition(id)`.
struct Registry<T>(Mutex<Option<HashMap<usize, Weak<T>>>>);

impl<T> Registry<T> {
    const fn new() -> Self {
        Registry(Mutex::new(None))
    }

    fn insert(&self, object: &Arc<T>) -> usize {
        let id = Arc::as_ptr(object) as usize;
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let map = map.get_or_insert_with(HashMap::new);
        map.retain(|_, w| w.strong_count() > 0);
        map.insert(id, Arc::downgrade(object));
        id
    }

    fn get(&self, id: usize) -> Option<Arc<T>> {
        let map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.as_ref()?.get(&id)?.upgrade()
    }
}

fn lock<S>(m: &Mutex<S>) -> MutexGuard<'_, S> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A non-recursive lock, as pthread's default mutex, held by one thread at a time.
#[derive(Default)]
pub struct SyncMutex {
    owner: Mutex<Option<ThreadId>>,
    signal: Signal,
}

impl SyncMutex {
    fn acquire(&self, method: &str) -> Result<()> {
        let me = std::thread::current().id();
        let mut owner = lock(&self.owner);
        loop {
            match *owner {
                None => {
                    *owner = Some(me);
                    return Ok(());
                }
                Some(o) if o == me => {
                    return Err(error(
                        method,
                        "this thread already holds the mutex (it is not recursive)",
                    ));
                }
                Some(_) => {}
            }
            if interrupted() {
                return Err(error(method, "interrupted"));
            }
            owner = self.signal.wait(owner);
        }
    }

    fn release(&self, method: &str) -> Result<()> {
        let mut owner = lock(&self.owner);
        if *owner != Some(std::thread::current().id()) {
            return Err(error(method, "the mutex is not locked by this thread"));
        }
        *owner = None;
        self.signal.changed();
        drop(owner);
        self.signal.wake();
        Ok(())
    }
}

#[derive(Default)]
struct Waiting {
    /// Threads waiting on the condition.
    waiters: usize,
    /// Wake-ups handed out and not yet taken: `signal` adds one, `broadcast` one per waiter.
    tickets: usize,
}

#[derive(Default)]
pub struct Condition {
    waiting: Mutex<Waiting>,
    signal: Signal,
}

impl Condition {
    /// Releases `mutex`, waits for a signal, takes `mutex` again (pthread_cond_wait).
    fn wait(&self, mutex: &SyncMutex, method: &str) -> Result<()> {
        let mut w = lock(&self.waiting);
        // The mutex is released while the condition's lock is held: a signal sent after the
        // release takes that lock first, so it finds this thread counted among the waiters.
        mutex.release(method)?;
        w.waiters += 1;
        let outcome = loop {
            if w.tickets > 0 {
                w.tickets -= 1;
                break Ok(());
            }
            if interrupted() {
                break Err(error(method, "interrupted"));
            }
            w = self.signal.wait(w);
        };
        w.waiters -= 1;
        drop(w);
        mutex.acquire(method)?;
        outcome
    }

    fn wake(&self, all: bool) {
        let mut w = lock(&self.waiting);
        w.tickets = if all { w.waiters } else { (w.tickets + 1).min(w.waiters) };
        self.signal.changed();
        drop(w);
        self.signal.wake();
    }
}

static MUTEXES: Registry<SyncMutex> = Registry::new();
static CONDITIONS: Registry<Condition> = Registry::new();

/// One Lua handle on a shared object; `free()` empties it.
pub struct Handle<T> {
    inner: std::cell::RefCell<Option<Arc<T>>>,
    what: &'static str,
}

impl<T> Handle<T> {
    fn new(inner: Arc<T>, what: &'static str) -> Self {
        Handle {
            inner: std::cell::RefCell::new(Some(inner)),
            what,
        }
    }

    fn get(&self, method: &str) -> Result<Arc<T>> {
        self.inner
            .borrow()
            .clone()
            .ok_or_else(|| error(method, format!("the {} was freed", self.what)))
    }

    pub fn object(&self) -> Option<Arc<T>> {
        self.inner.borrow().clone()
    }
}

impl UserData for Handle<SyncMutex> {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("lock", |_, h, ()| {
            const M: &str = "threads.Mutex:lock";
            h.get(M)?.acquire(M)
        });
        m.add_method("unlock", |_, h, ()| {
            const M: &str = "threads.Mutex:unlock";
            h.get(M)?.release(M)
        });
        m.add_method("id", |_, h, ()| {
            Ok(Arc::as_ptr(&h.get("threads.Mutex:id")?) as usize as i64)
        });
        m.add_method("free", |_, h, ()| {
            h.inner.borrow_mut().take();
            Ok(())
        });
        m.add_meta_method("__tostring", |_, h, ()| {
            Ok(match h.object() {
                Some(o) => format!("threads.Mutex: 0x{:x}", Arc::as_ptr(&o) as usize),
                None => "threads.Mutex (freed)".to_string(),
            })
        });
    }
}

impl UserData for Handle<Condition> {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("wait", |_, h, mutex: Value| {
            const M: &str = "threads.Condition:wait";
            let c = h.get(M)?;
            let mutex = match &mutex {
                Value::UserData(ud) => ud.borrow::<Handle<SyncMutex>>().ok(),
                _ => None,
            }
            .ok_or_else(|| {
                error(
                    M,
                    format!("bad argument #1 (threads.Mutex expected, got {})", type_name(&mutex)),
                )
            })?
            .get(M)?;
            c.wait(&mutex, M)
        });
        m.add_method("signal", |_, h, ()| {
            h.get("threads.Condition:signal")?.wake(false);
            Ok(())
        });
        m.add_method("broadcast", |_, h, ()| {
            h.get("threads.Condition:broadcast")?.wake(true);
            Ok(())
        });
        m.add_method("id", |_, h, ()| {
            Ok(Arc::as_ptr(&h.get("threads.Condition:id")?) as usize as i64)
        });
        m.add_method("free", |_, h, ()| {
            h.inner.borrow_mut().take();
            Ok(())
        });
        m.add_meta_method("__tostring", |_, h, ()| {
            Ok(match h.object() {
                Some(o) => format!("threads.Condition: 0x{:x}", Arc::as_ptr(&o) as usize),
                None => "threads.Condition (freed)".to_string(),
            })
        });
    }
}

/// The object numbered by the optional first argument, or a new one.
fn find_or_make<T: Default>(registry: &Registry<T>, args: &MultiValue, method: &str, what: &str) -> Result<Arc<T>> {
    match args.front() {
        None | Some(Value::Nil) => {
            let object = Arc::new(T::default());
            registry.insert(&object);
            Ok(object)
        }
        Some(Value::Integer(i)) => found(registry, *i as f64, method, what),
        Some(Value::Number(n)) => found(registry, *n, method, what),
        Some(other) => Err(error(
            method,
            format!(
                "bad argument #1 (a {what} id or nothing expected, got {})",
                type_name(other)
            ),
        )),
    }
}

fn found<T>(registry: &Registry<T>, id: f64, method: &str, what: &str) -> Result<Arc<T>> {
    let object = (id >= 0.0 && id.fract() == 0.0)
        .then(|| registry.get(id as usize))
        .flatten();
    object.ok_or_else(|| error(method, format!("no live {what} has the id {id}")))
}

pub fn register(lua: &Lua, t: &Table) -> Result<()> {
    calls::add(lua, t, "Mutex", mutex)?;
    calls::add(lua, t, "Condition", condition)
}

/// `threads.Mutex([id]) -> mutex`: the mutex numbered `id`, or a new one.
fn mutex(lua: &Lua, args: MultiValue) -> Result<mlua::AnyUserData> {
    let m = find_or_make(&MUTEXES, &args, "threads.Mutex", "mutex")?;
    lua.create_userdata(Handle::new(m, "mutex"))
}

/// `threads.Condition([id]) -> condition`: the condition numbered `id`, or a new one.
fn condition(lua: &Lua, args: MultiValue) -> Result<mlua::AnyUserData> {
    let c = find_or_make(&CONDITIONS, &args, "threads.Condition", "condition")?;
    lua.create_userdata(Handle::new(c, "condition"))
}
