//! `ipc.workqueue`: two FIFOs per queue. The thread that created the queue writes questions and
//! reads answers; every other thread does the reverse. Named queues live in a process-wide
//! registry (weak references: a queue goes when its last handle does).

use std::collections::HashMap;
use std::ffi::{c_char, c_int};
use std::sync::{Arc, Mutex, Weak};
use std::thread::ThreadId;

use mlua::{AnyUserData, Lua, MultiValue, Result, Table, UserData, UserDataFields, UserDataMethods, Value, Variadic};

use super::args::{fail, opt_bool, opt_number};
use super::fast;
use super::fifo::Fifo;
use super::handle::{HandleUd, Object, Wrapper, call, close_handle, method, new_handle, share};
use super::packed::Packed;
use crate::args::error;
use crate::calls;
use crate::error::{Error, Named};
use crate::torch::t7::codec::Handle;

pub struct WorkQueue {
    named: bool,
    owner: ThreadId,
    /// Written by the owner, read by the others.
    questions: Fifo,
    /// Written by the others, read by the owner.
    answers: Fifo,
}

type Ud = HandleUd<WorkQueue>;
const WHAT: &str = "workqueue";
const NOTHING: &str = "nothing can arrive: no other thread holds this queue";

thread_local! {
    /// This thread's id, without the reference counting of `thread::current()`.
    static THIS_THREAD: ThreadId = std::thread::current().id();
}

static REGISTRY: Mutex<Option<HashMap<String, Weak<WorkQueue>>>> = Mutex::new(None);

impl WorkQueue {
    fn new(named: bool) -> WorkQueue {
        WorkQueue {
            named,
            owner: THIS_THREAD.with(|id| *id),
            questions: Fifo::default(),
            answers: Fifo::default(),
        }
    }

    fn is_owner(&self) -> bool {
        THIS_THREAD.with(|id| *id == self.owner)
    }

    /// Whether only this state holds the queue (`own` references: see fast::OWN_SLOW and fast::OWN_FAST)
    /// and nobody can open it by name: then nothing will ever arrive.
    fn alone(self: &Arc<Self>, own: usize) -> bool {
        !self.named && Arc::strong_count(self) <= own
    }

    fn write(&self, items: impl IntoIterator<Item = Packed>) {
        let fifo = if self.is_owner() {
            &self.questions
        } else {
            &self.answers
        };
        fifo.push(items);
    }

    /// The next item for this thread; None when `noblock` and there is none.
    /// `own`: the references this state and this call hold (see fast::OWN_SLOW and fast::OWN_FAST).
    fn read(self: &Arc<Self>, noblock: bool, own: usize) -> crate::error::Result<Option<Packed>> {
        let fifo = if self.is_owner() {
            &self.answers
        } else {
            &self.questions
        };
        fifo.pop(noblock, || self.alone(own), NOTHING).map(|(_, item)| item)
    }

    fn drain(self: &Arc<Self>) -> crate::error::Result<()> {
        if !self.is_owner() {
            return Err(Error::argument("workqueue drain is only available on the owner thread"));
        }
        let mark = self.answers.len() + self.questions.len();
        self.answers.wait_len(
            mark,
            || self.alone(fast::OWN_SLOW),
            "nothing can answer: no other thread holds this queue",
        )
    }
}

const WRITE: &str = "ipc.workqueue:write";
const WRITEUP: &str = "ipc.workqueue:writeup";
const READ: &str = "ipc.workqueue:read";
const TABLE: &str = "luatorch.ipc.workqueue";

impl Object for WorkQueue {
    const FAST: Option<&'static str> = Some(TABLE);

    fn install_fast(lua: &Lua) -> Result<()> {
        let spec = fast::Spec {
            table: TABLE,
            write: fast_write,
            read: fast_read,
            with_status: false,
        };
        let slow_write = calls::function(lua, write_fallback)?;
        let slow_read = calls::function(lua, read_fallback)?;
        fast::install(lua, &spec, slow_write, slow_read)
    }
}

/// `q:write(v)` where the FFI wrapper's fast path does not take the value.
fn write_fallback(lua: &Lua, args: MultiValue) -> Result<()> {
    call(WRITE, lua, args, |lua, _, ud: &Ud, args| {
        write(lua, ud, args, WRITE, false)
    })
}

/// `q:read([noblock])` where the FFI wrapper's fast path does not give the item.
fn read_fallback(lua: &Lua, args: MultiValue) -> Result<Variadic<Value>> {
    call(READ, lua, args, slow_read)
}

fn write(lua: &Lua, ud: &Ud, args: MultiValue, method: &str, upvalues: bool) -> Result<()> {
    let q = ud.get(WHAT).named(method)?;
    // Everything is packed before anything is written: a bad item writes nothing.
    let items = super::packed::pack_all(lua, args, upvalues).map_err(|e| fail(method, e))?;
    q.write(items);
    Ok(())
}

fn slow_read(lua: &Lua, _: &AnyUserData, ud: &Ud, args: MultiValue) -> Result<Variadic<Value>> {
    let q = ud.get(WHAT).named(READ)?;
    let noblock = opt_bool(&args, 0, READ, false)?;
    match q.read(noblock, fast::OWN_SLOW).named(READ)? {
        Some(msg) => Ok(Variadic::from_iter([msg.unpack(lua)?])),
        None => Ok(Variadic::new()),
    }
}

/// `q:write(v)` of a plain value, from the fast wrapper.
unsafe extern "C" fn fast_write(h: *mut fast::Holder, kind: c_int, num: f64, s: *const c_char, len: usize) -> c_int {
    fast::guard(|| {
        // SAFETY: the wrapper passes its handle's live holder and a valid item.
        let (Some(q), Some(item)) = (unsafe { fast::Holder::object::<WorkQueue>(h) }, unsafe {
            fast::item(kind, num, s, len)
        }) else {
            return fast::SLOW;
        };
        q.write(std::iter::once(item));
        0
    })
}

/// `q:read([noblock])`, from the fast wrapper.
unsafe extern "C" fn fast_read(h: *mut fast::Holder, noblock: c_int, out: *mut fast::Out) -> c_int {
    fast::guard(|| {
        // SAFETY: the wrapper passes its handle's live holder.
        let Some(q) = (unsafe { fast::Holder::object::<WorkQueue>(h) }) else {
            return fast::SLOW;
        };
        match q.read(noblock != 0, fast::OWN_FAST) {
            Err(e) => fast::failed(format!("{READ}: {e}")),
            // SAFETY: `out` is the wrapper's output struct.
            Ok(item) => unsafe { fast::deliver(out, 0, item) },
        }
    })
}

impl UserData for Ud {
    fn add_fields<F: UserDataFields<Self>>(f: &mut F) {
        f.add_field("write", Wrapper::<WorkQueue>::write());
        f.add_field("read", Wrapper::<WorkQueue>::read());
    }

    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        method(m, "writeup", WRITEUP, |lua, _, ud, args| {
            write(lua, ud, args, WRITEUP, true)
        });
        method(m, "drain", "ipc.workqueue:drain", |_, _, ud, _| {
            const M: &str = "ipc.workqueue:drain";
            ud.get(WHAT).named(M)?.drain().named(M)
        });
        method(m, "close", "ipc.workqueue:close", |_, any, _, _| {
            close_handle::<WorkQueue>(any, WHAT, "ipc.workqueue:close")
        });
        m.add_method("retain", |_, _, ()| Ok(()));
        m.add_method("metatablename", |_, _, ()| Ok("ipc.workqueue"));
    }
}

pub fn handle_of(ud: &AnyUserData) -> Option<Arc<dyn Handle>> {
    share::<WorkQueue>(ud)
}

pub fn register(lua: &Lua, ipc: &Table) -> Result<()> {
    calls::add(lua, ipc, "workqueue", workqueue)
}

/// `ipc.workqueue([name], [size], [sizeIncrement]) -> queue, created`: a new queue, or the
/// one of that name (`created` 0 when it was there).
fn workqueue(lua: &Lua, args: MultiValue) -> Result<(AnyUserData, i32)> {
    const M: &str = "ipc.workqueue";
    // The sizes are accepted for torch-ipc's signature; queues grow as needed.
    for i in 1..3 {
        if let Some(n) = opt_number(&args, i, M)?
            && (n.is_nan() || n < 0.0)
        {
            return Err(error(
                M,
                format!("bad argument #{} (a size of at least 0 expected, got {n})", i + 1),
            ));
        }
    }
    let name = args.front().cloned().unwrap_or(Value::Nil);
    let (q, created) = match name {
        Value::Nil => (Arc::new(WorkQueue::new(false)), 1),
        Value::String(s) => {
            let name = s.to_string_lossy();
            let mut reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
            let reg = reg.get_or_insert_with(HashMap::new);
            reg.retain(|_, w| w.strong_count() > 0);
            match reg.get(&name).and_then(Weak::upgrade) {
                Some(q) => (q, 0),
                None => {
                    let q = Arc::new(WorkQueue::new(true));
                    reg.insert(name, Arc::downgrade(&q));
                    (q, 1)
                }
            }
        }
        other => {
            return Err(error(
                M,
                format!(
                    "bad argument #1 (a name or nil expected, got {})",
                    crate::args::type_name(&other)
                ),
            ));
        }
    };
    Ok((new_handle(lua, q)?, created))
}
