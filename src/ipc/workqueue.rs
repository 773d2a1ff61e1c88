//! `ipc.workqueue`: two FIFOs per queue. The thread that created the queue writes questions and
//! reads answers; every other thread does the reverse. Named queues live in a process-wide
//! registry (weak references: a queue goes when its last handle does).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::thread::ThreadId;

use mlua::{AnyUserData, Lua, MultiValue, Result, Table, UserData, UserDataMethods, Value, Variadic};

use super::handle::fail;
use super::handle::{HandleUd, interrupted, share, wait_slice};
use super::message::Message;
use crate::torch::args::error;
use crate::torch::t7::codec::Handle;

#[derive(Default)]
struct Fifos {
    questions: VecDeque<Message>,
    answers: VecDeque<Message>,
}

pub struct WorkQueue {
    named: bool,
    owner: ThreadId,
    fifos: Mutex<Fifos>,
    cond: Condvar,
}

type Ud = HandleUd<WorkQueue>;
const WHAT: &str = "workqueue";

static REGISTRY: Mutex<Option<HashMap<String, Weak<WorkQueue>>>> = Mutex::new(None);

impl WorkQueue {
    fn new(named: bool) -> WorkQueue {
        WorkQueue {
            named,
            owner: std::thread::current().id(),
            fifos: Mutex::new(Fifos::default()),
            cond: Condvar::new(),
        }
    }

    fn is_owner(&self) -> bool {
        std::thread::current().id() == self.owner
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Fifos> {
        self.fifos.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self, items: Vec<Message>) {
        let owner = self.is_owner();
        let mut f = self.lock();
        let fifo = if owner { &mut f.questions } else { &mut f.answers };
        fifo.extend(items);
        drop(f);
        self.cond.notify_all();
    }

    /// The next item for this thread; None when `noblock` and there is none.
    fn read(self: &Arc<Self>, noblock: bool) -> std::result::Result<Option<Message>, String> {
        let owner = self.is_owner();
        let mut f = self.lock();
        loop {
            let fifo = if owner { &mut f.answers } else { &mut f.questions };
            if let Some(m) = fifo.pop_front() {
                drop(f);
                // A drain waits for answers: wake it.
                self.cond.notify_all();
                return Ok(Some(m));
            }
            if noblock {
                return Ok(None);
            }
            // Only this state holds the queue (its handle and this call), and nobody can open it
            // by name: nothing will ever come.
            if !self.named && Arc::strong_count(self) <= 2 {
                return Err("nothing can arrive: no other thread holds this queue".into());
            }
            if interrupted() {
                return Err("interrupted".into());
            }
            f = wait_slice(&self.cond, f);
        }
    }

    fn drain(self: &Arc<Self>) -> std::result::Result<(), String> {
        if !self.is_owner() {
            return Err("workqueue drain is only available on the owner thread".into());
        }
        let mut f = self.lock();
        let mark = f.answers.len() + f.questions.len();
        while f.answers.len() < mark {
            if Arc::strong_count(self) <= 2 && !self.named {
                return Err("nothing can answer: no other thread holds this queue".into());
            }
            if interrupted() {
                return Err("interrupted".into());
            }
            f = wait_slice(&self.cond, f);
        }
        Ok(())
    }
}

impl UserData for Ud {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        fn write(lua: &Lua, ud: &Ud, args: MultiValue, upvalues: bool) -> Result<()> {
            let method = if upvalues {
                "ipc.workqueue:writeup"
            } else {
                "ipc.workqueue:write"
            };
            let q = ud.get(WHAT).map_err(|e| fail(method, e))?;
            // Everything is packed before anything is written: a bad item writes nothing.
            let items = super::message::pack_all(lua, args, upvalues).map_err(|e| fail(method, e))?;
            q.write(items);
            Ok(())
        }
        m.add_method("write", |lua, ud, args: MultiValue| write(lua, ud, args, false));
        m.add_method("writeup", |lua, ud, args: MultiValue| write(lua, ud, args, true));
        m.add_method("read", |lua, ud, noblock: Option<bool>| {
            const M: &str = "ipc.workqueue:read";
            let q = ud.get(WHAT).map_err(|e| fail(M, e))?;
            match q.read(noblock.unwrap_or(false)).map_err(|e| fail(M, e))? {
                Some(msg) => Ok(Variadic::from_iter([msg.unpack(lua)?])),
                None => Ok(Variadic::new()),
            }
        });
        m.add_method("drain", |_, ud, ()| {
            const M: &str = "ipc.workqueue:drain";
            ud.get(WHAT).map_err(|e| fail(M, e))?.drain().map_err(|e| fail(M, e))
        });
        m.add_method("close", |_, ud, ()| {
            ud.close(WHAT).map_err(|e| error("ipc.workqueue:close", e))
        });
        m.add_method("retain", |_, _, ()| Ok(()));
        m.add_method("metatablename", |_, _, ()| Ok("ipc.workqueue"));
    }
}

pub fn handle_of(ud: &AnyUserData) -> Option<Arc<dyn Handle>> {
    share::<WorkQueue>(ud)
}

pub fn register(lua: &Lua, ipc: &Table) -> Result<()> {
    ipc.set(
        "workqueue",
        lua.create_function(|lua, (name, _size, _inc): (Value, Value, Value)| {
            const M: &str = "ipc.workqueue";
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
                        format!("bad argument #1 (a name or nil expected, got {})", other.type_name()),
                    ));
                }
            };
            Ok((lua.create_userdata(HandleUd::new(q))?, created))
        })?,
    )
}
