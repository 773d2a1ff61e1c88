//! The thread pool under `threads.Threads` (lua/threads/threads.lua): n OS threads, each with a
//! fresh Lua state, taking jobs from one shared queue (or, in specific mode, each from its own)
//! and handing back what each job returned, or its error with the worker's traceback. The Lua
//! side keeps the end callbacks and runs them in the owner's state; this side only moves packed
//! values, so an end callback may yield (nothing of ours is on the C stack when it runs).
//!
//! Values are packed as ipc packs them (`ipc::packed`): Lua values copied, closures with their
//! upvalues. Storages travel by reference under 'threads.sharedserialize' and as copies under the
//! default 'threads.serialize', as torch/threads' two serializers have them.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use mlua::{Function, Lua, MultiValue, Result, Table, UserData, UserDataMethods, Value};

use super::reaped::{self, Tid};
use crate::args::{error, type_name};
use crate::calls;
use crate::error::message::message_of;
use crate::ipc::map::{NewState, StateMaker};
use crate::ipc::packed::{Packed, pack_range, unpack_to_table};
use crate::ipc::signal::{Signal, interrupted};

/// What a job calls.
enum Call {
    /// A function packed with the job.
    Packed(Packed),
    /// A function the thread keeps (see `Keep`), by its key: the scheduler's callables go to
    /// each thread once, then only their data travels.
    Kept(i64),
    /// Keep this function under this key (nil: forget the key); the job has no result.
    Keep(i64, Packed),
    /// A scheduler's chunk: the kept runner under this key is called as `runner(list, n)` with
    /// the job's arguments as one list, which it turns into the results in place; the job's
    /// results are then what the runner returned (its time, its errors) and the list's items.
    Chunk(i64),
}

struct Job {
    id: i64,
    call: Call,
    args: Vec<Packed>,
}

/// A job's end: its results, or its error message with the worker's traceback.
struct Finished {
    id: i64,
    thread: usize,
    /// A chunk's: the results after the first two go back as one list.
    chunk: bool,
    outcome: std::result::Result<Vec<Packed>, String>,
}

struct Queues {
    general: VecDeque<Job>,
    /// One per thread, for specific mode and the init functions.
    specific: Vec<VecDeque<Job>>,
    specific_mode: bool,
    finished: VecDeque<Finished>,
    closing: bool,
    /// Per thread: why it ended, once it ended other than by closing.
    gone: Vec<Option<String>>,
}

impl Queues {
    /// Turns `job` into an error at once: its thread (or every thread) ended.
    fn fail(&mut self, job: Job, thread: usize, why: &str) {
        if matches!(job.call, Call::Keep(..)) {
            return;
        }
        self.finished.push_back(Finished {
            id: job.id,
            thread,
            chunk: false,
            outcome: Err(format!("thread {thread} ended before it could run the job: {why}")),
        });
    }

    fn all_gone(&self) -> Option<String> {
        if self.gone.iter().all(Option::is_some) {
            self.gone.iter().flatten().next().cloned()
        } else {
            None
        }
    }
}

struct Shared {
    queues: Mutex<Queues>,
    /// Workers wait here for jobs.
    work: Signal,
    /// The owner waits here for finished jobs.
    done: Signal,
    /// Storages are copied (threads.serialize) rather than shared (threads.sharedserialize).
    copy: bool,
    /// Each thread's kernel id, so that a terminate can wait until they are gone.
    tids: Vec<Tid>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queues> {
        self.queues.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn pack(lua: &Lua, v: &Value, copy: bool) -> Result<Packed> {
    if copy {
        Packed::pack_copied(lua, v, true)
    } else {
        Packed::pack(lua, v, true)
    }
}

/// Calls a job under a traceback handler: `ok, results...` or `false, message`.
const CALL: &str = r#"
local traceback, tostring, xpcall = debug.traceback, tostring, xpcall
local function traced(e) return traceback(tostring(e), 1) end
return function(f, ...) return xpcall(f, traced, ...) end
"#;

fn setup(new_state: &NewState, thread: usize) -> Result<(Lua, Function)> {
    let lua = new_state()?;
    lua.load("require 'torch'").exec()?;
    lua.globals().set("__threadid", thread)?;
    let call = lua.load(CALL).set_name("=threads").eval::<Function>()?;
    Ok((lua, call))
}

/// Runs `job`: its outcome, or None for a job without one (`Keep`).
fn run_job(
    lua: &Lua,
    call: &Function,
    kept: &mut HashMap<i64, Function>,
    job: Job,
    copy: bool,
) -> Result<Option<std::result::Result<Vec<Packed>, String>>> {
    if let Call::Chunk(key) = job.call {
        return run_chunk(lua, call, kept, key, job.args, copy).map(Some);
    }
    let mut args = Vec::with_capacity(job.args.len() + 1);
    match &job.call {
        Call::Packed(f) => args.push(f.unpack(lua)?),
        Call::Kept(key) => match kept.get(key) {
            Some(f) => args.push(Value::Function(f.clone())),
            None => return Ok(Some(Err(format!("internal: no function kept under {key}")))),
        },
        Call::Chunk(_) => unreachable!("chunks are run above"),
        Call::Keep(key, f) => {
            match f.unpack(lua)? {
                Value::Function(f) => kept.insert(*key, f),
                Value::Nil => kept.remove(key),
                other => {
                    return Err(mlua::Error::runtime(format!(
                        "a function to keep expected, got {}",
                        type_name(&other)
                    )));
                }
            };
            return Ok(None);
        }
    }
    for a in &job.args {
        args.push(a.unpack(lua)?);
    }
    drop(job);
    let mut out = call.call::<MultiValue>(MultiValue::from_iter(args))?.into_iter();
    Ok(Some(match out.next() {
        Some(Value::Boolean(true)) => Ok(out.map(|v| pack(lua, &v, copy)).collect::<Result<_>>()?),
        _ => Err(error_text(out.next())),
    }))
}

/// Runs a scheduler's chunk (`Call::Chunk`): `elapsed, errors, results...`, or the runner's error.
fn run_chunk(
    lua: &Lua,
    call: &Function,
    kept: &HashMap<i64, Function>,
    key: i64,
    data: Vec<Packed>,
    copy: bool,
) -> Result<std::result::Result<Vec<Packed>, String>> {
    let Some(runner) = kept.get(&key) else {
        return Ok(Err(format!("internal: no function kept under {key}")));
    };
    let n = data.len();
    let list = unpack_to_table(lua, &data)?;
    drop(data);
    let mut out = call.call::<MultiValue>((runner, &list, n))?.into_iter();
    Ok(match out.next() {
        Some(Value::Boolean(true)) => {
            let mut results = Vec::with_capacity(n + 2);
            results.push(pack(lua, &out.next().unwrap_or(Value::Nil), copy)?);
            results.push(pack(lua, &out.next().unwrap_or(Value::Nil), copy)?);
            pack_range(&list, 1, n, &mut results, |v| pack(lua, v, copy))?;
            Ok(results)
        }
        _ => Err(error_text(out.next())),
    })
}

fn error_text(e: Option<Value>) -> String {
    match e {
        Some(Value::String(s)) => s.to_string_lossy(),
        other => format!("(error object is a {} value)", type_name(&other.unwrap_or(Value::Nil))),
    }
}

fn worker(shared: Arc<Shared>, thread: usize, new_state: NewState) {
    let i = thread - 1;
    shared.tids[i].note();
    let (lua, call) = match setup(&new_state, thread) {
        Ok(s) => s,
        Err(e) => {
            let why = format!("its Lua state could not be made: {}", message_of(&e));
            let mut q = shared.lock();
            q.gone[i] = Some(why.clone());
            for job in std::mem::take(&mut q.specific[i]) {
                q.fail(job, thread, &why);
            }
            if q.all_gone().is_some() {
                for job in std::mem::take(&mut q.general) {
                    q.fail(job, thread, &why);
                }
            }
            shared.done.changed();
            drop(q);
            shared.done.wake();
            return;
        }
    };
    drop(new_state);
    let mut kept = HashMap::new();
    loop {
        let job = {
            let mut q = shared.lock();
            loop {
                if let Some(job) = q.specific[i].pop_front() {
                    break Some(job);
                }
                if !q.specific_mode
                    && let Some(job) = q.general.pop_front()
                {
                    break Some(job);
                }
                if q.closing {
                    break None;
                }
                q = shared.work.wait(q);
            }
        };
        let Some(job) = job else { break };
        let id = job.id;
        let chunk = matches!(job.call, Call::Chunk(_));
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_job(&lua, &call, &mut kept, job, shared.copy)
        }));
        let outcome = match outcome {
            Ok(Ok(Some(o))) => o,
            Ok(Ok(None)) => continue,
            Ok(Err(e)) => Err(message_of(&e)),
            Err(_) => Err("the job panicked".to_string()),
        };
        let mut q = shared.lock();
        q.finished.push_back(Finished {
            id,
            thread,
            chunk,
            outcome,
        });
        shared.done.changed();
        drop(q);
        shared.done.wake();
    }
}

pub struct Pool {
    shared: Arc<Shared>,
    workers: RefCell<Vec<JoinHandle<()>>>,
    n: usize,
}

impl Pool {
    fn start(lua: &Lua, maker: StateMaker, n: usize, copy: bool) -> Result<Pool> {
        const M: &str = "threads.Threads";
        let shared = Arc::new(Shared {
            queues: Mutex::new(Queues {
                general: VecDeque::new(),
                specific: (0..n).map(|_| VecDeque::new()).collect(),
                specific_mode: true,
                finished: VecDeque::new(),
                closing: false,
                gone: vec![None; n],
            }),
            work: Signal::default(),
            done: Signal::default(),
            copy,
            tids: (0..n).map(|_| Tid::default()).collect(),
        });
        let pool = Pool {
            shared,
            workers: RefCell::new(Vec::with_capacity(n)),
            n,
        };
        for thread in 1..=n {
            let shared = pool.shared.clone();
            let new_state = maker(lua)?;
            let h = std::thread::Builder::new()
                .name(format!("threads {thread}"))
                .stack_size(8 << 20)
                .spawn(move || worker(shared, thread, new_state))
                .map_err(|e| error(M, format!("cannot start thread {thread} of {n}: {e}")))?;
            pool.workers.borrow_mut().push(h);
        }
        Ok(pool)
    }

    /// Queues `f(args...)` as job `id`, for thread `target` (1..n) or any thread (0); `f` is a
    /// function, or the key of one the threads keep.
    fn add(&self, lua: &Lua, target: usize, id: i64, f: &Value, args: MultiValue, method: &str) -> Result<()> {
        let copy = self.shared.copy;
        let call = match f {
            Value::Integer(key) => Call::Kept(*key),
            f => Call::Packed(pack(lua, f, copy).map_err(|e| error(method, message_of(&e)))?),
        };
        let args = args
            .iter()
            .map(|a| pack(lua, a, copy))
            .collect::<Result<Vec<_>>>()
            .map_err(|e| error(method, message_of(&e)))?;
        self.queue(target, Job { id, call, args }, method)
    }

    /// Queues a scheduler's chunk `id`: the runner kept under `key` over `list[from .. from+n-1]`.
    fn add_chunk(&self, lua: &Lua, id: i64, key: i64, list: &Table, from: i64, n: usize) -> Result<()> {
        const M: &str = "scheduler";
        let copy = self.shared.copy;
        let mut args = Vec::new();
        pack_range(list, from, n, &mut args, |v| pack(lua, v, copy)).map_err(|e| error(M, message_of(&e)))?;
        let job = Job {
            id,
            call: Call::Chunk(key),
            args,
        };
        self.queue(0, job, M)
    }

    /// Has every thread keep `f` under `key`, before any job queued after this.
    fn keep(&self, lua: &Lua, key: i64, f: &Value, method: &str) -> Result<()> {
        for target in 1..=self.n {
            let f = pack(lua, f, self.shared.copy).map_err(|e| error(method, message_of(&e)))?;
            let job = Job {
                id: 0,
                call: Call::Keep(key, f),
                args: Vec::new(),
            };
            self.queue(target, job, method)?;
        }
        Ok(())
    }

    fn queue(&self, target: usize, job: Job, method: &str) -> Result<()> {
        let mut q = self.shared.lock();
        if q.closing {
            return Err(error(method, "the pool is terminated"));
        }
        if target == 0 {
            match q.all_gone() {
                Some(why) => q.fail(job, 0, &why),
                None => q.general.push_back(job),
            }
        } else {
            match q.gone[target - 1].clone() {
                Some(why) => q.fail(job, target, &why),
                None => q.specific[target - 1].push_back(job),
            }
        }
        self.shared.work.changed();
        self.shared.done.changed();
        drop(q);
        self.shared.work.wake();
        self.shared.done.wake();
        Ok(())
    }

    /// The next finished job: `id, thread, true, results...` or `id, thread, false, message`.
    fn take(&self, lua: &Lua) -> Result<MultiValue> {
        const M: &str = "threads.Threads:dojob";
        let mut q = self.shared.lock();
        let finished = loop {
            if let Some(f) = q.finished.pop_front() {
                break f;
            }
            if q.closing {
                return Err(error(M, "the pool is terminated"));
            }
            if interrupted() {
                return Err(error(M, "interrupted"));
            }
            let seen = self.shared.done.seen();
            drop(q);
            let changed = self.shared.done.spin(seen);
            q = self.shared.lock();
            if !changed && q.finished.is_empty() {
                q = self.shared.done.wait(q);
            }
        };
        drop(q);
        let mut out = vec![Value::Integer(finished.id), Value::Integer(finished.thread as i64)];
        match finished.outcome {
            Ok(values) if finished.chunk => {
                out.push(Value::Boolean(true));
                for v in values.iter().take(2) {
                    out.push(v.unpack(lua)?);
                }
                out.push(Value::Table(unpack_to_table(lua, values.get(2..).unwrap_or(&[]))?));
            }
            Ok(values) => {
                out.push(Value::Boolean(true));
                for v in &values {
                    out.push(v.unpack(lua)?);
                }
            }
            Err(message) => {
                out.push(Value::Boolean(false));
                out.push(Value::String(lua.create_string(message)?));
            }
        }
        Ok(MultiValue::from_iter(out))
    }

    /// Jobs waiting for thread `target` (or for any thread: 0), not yet taken.
    fn waiting(&self, target: usize) -> usize {
        let q = self.shared.lock();
        match target {
            0 => q.general.len(),
            t => q.specific.get(t - 1).map_or(0, VecDeque::len),
        }
    }

    /// Tells the threads to end after the job each runs now (jobs not yet taken are dropped);
    /// with `join`, waits for them.
    fn close(&self, join: bool) -> Result<()> {
        let mut q = self.shared.lock();
        q.closing = true;
        self.shared.work.changed();
        self.shared.done.changed();
        drop(q);
        self.shared.work.wake();
        self.shared.done.wake();
        if join {
            let mut panicked = false;
            for h in self.workers.borrow_mut().drain(..) {
                panicked |= h.join().is_err();
            }
            reaped::wait_gone(&self.shared.tids);
            if panicked {
                return Err(error("threads.Threads:terminate", "a thread panicked"));
            }
        }
        Ok(())
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Collected without terminate: the threads end after the job they run, unjoined (a
        // collection never waits on a job).
        let _ = self.close(false);
    }
}

fn job_id(v: Option<Value>, method: &str) -> Result<i64> {
    match v {
        Some(Value::Integer(i)) => Ok(i),
        Some(Value::Number(x)) if x.fract() == 0.0 => Ok(x as i64),
        _ => Err(error(method, "internal: a job id expected")),
    }
}

fn target(v: &Value, n: usize, method: &str) -> Result<usize> {
    let t = match v {
        Value::Integer(i) => *i as f64,
        Value::Number(x) => *x,
        other => {
            return Err(error(
                method,
                format!("bad argument #1 (a thread index expected, got {})", type_name(other)),
            ));
        }
    };
    if t.fract() != 0.0 || t < 0.0 || t > n as f64 {
        return Err(error(method, format!("thread index {t} out of range 1..{n}")));
    }
    Ok(t as usize)
}

impl UserData for Pool {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("add", |lua, p, mut args: MultiValue| {
            const M: &str = "threads.Threads:addjob";
            let t = target(&args.pop_front().unwrap_or(Value::Nil), p.n, M)?;
            let id = job_id(args.pop_front(), M)?;
            let f = args.pop_front().unwrap_or(Value::Nil);
            if !matches!(f, Value::Function(_)) {
                return Err(error(M, format!("function callback expected, got {}", type_name(&f))));
            }
            p.add(lua, t, id, &f, args, M)
        });
        // The scheduler's calls: `keep(key, f)` once per callable, then `run(id, key, data...)`;
        // `keep(key, nil)` forgets it.
        m.add_method("keep", |lua, p, (key, f): (i64, Value)| {
            const M: &str = "scheduler";
            if !matches!(f, Value::Function(_) | Value::Nil) {
                return Err(error(M, format!("a callable function expected, got {}", type_name(&f))));
            }
            p.keep(lua, key, &f, M)
        });
        m.add_method("run", |lua, p, mut args: MultiValue| {
            const M: &str = "scheduler";
            let id = job_id(args.pop_front(), M)?;
            let key = job_id(args.pop_front(), M)?;
            p.add(lua, 0, id, &Value::Integer(key), args, M)
        });
        // `chunk(id, key, list, from, n)`: the runner kept under `key` over list[from..from+n-1];
        // its results come back from `take` as `id, thread, true, elapsed, errors, results`.
        m.add_method(
            "chunk",
            |lua, p, (id, key, list, from, n): (i64, i64, Table, i64, usize)| p.add_chunk(lua, id, key, &list, from, n),
        );
        m.add_method("take", |lua, p, ()| p.take(lua));
        m.add_method("waiting", |_, p, t: Value| {
            Ok(p.waiting(target(&t, p.n, "threads.Threads:acceptsjob")?))
        });
        m.add_method("specific", |_, p, flag: bool| {
            p.shared.lock().specific_mode = flag;
            p.shared.work.changed();
            p.shared.work.wake();
            Ok(())
        });
        m.add_method("close", |_, p, join: Option<bool>| p.close(join.unwrap_or(true)));
    }
}

/// How the threads' states are made: the Lua state's app data, put there by `register`.
#[derive(Clone, Copy)]
struct Maker(StateMaker);

pub fn register(lua: &Lua, t: &Table, maker: StateMaker) -> Result<()> {
    calls::keep(lua, || Maker(maker));
    calls::add(lua, t, "_pool", new_pool)
}

/// `_pool(n, copy) -> pool`: n threads with Lua states of their own, under
/// lua/threads/threads.lua's `threads.Threads`.
fn new_pool(lua: &Lua, (n, copy): (Value, bool)) -> Result<Pool> {
    const M: &str = "threads.Threads";
    let n = match n {
        Value::Integer(i) if i >= 1 => i as usize,
        Value::Number(x) if x >= 1.0 && x.fract() == 0.0 => x as usize,
        Value::Integer(i) => return Err(error(M, format!("a pool needs at least 1 thread, got {i}"))),
        Value::Number(x) => {
            return Err(error(
                M,
                format!("a pool needs a whole number of threads, at least 1, got {x}"),
            ));
        }
        other => {
            return Err(error(
                M,
                format!(
                    "bad argument #1 (number of threads expected, got {})",
                    type_name(&other)
                ),
            ));
        }
    };
    let Maker(maker) = calls::state(lua)?;
    Pool::start(lua, maker, n, copy)
}
