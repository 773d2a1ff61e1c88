//! `ipc.map(n, fn, ...)`: n OS threads, each with a fresh Lua state (torch and ipc loaded, none of
//! the caller's globals), running `fn(args..., i)`. `join` returns every thread's results in
//! thread order and raises a worker's error with its traceback.

use std::cell::RefCell;
use std::sync::Arc;
use std::thread::JoinHandle;

use mlua::{Function, Lua, MultiValue, Result, Table, UserData, UserDataMethods, Value};

use super::args::fail;
use super::packed::{Packed, pack_all, unpack_all};
use crate::args::error;
use crate::calls;
use crate::error::Error;

/// What a worker thread ends with: its packed results, or its error (message and traceback).
type Outcome = crate::error::Result<Vec<Packed>>;

/// Fresh Lua states for the threads, any thread calling it: each finds the modules its caller
/// finds.
pub type NewState = Arc<dyn Fn() -> Result<Lua> + Send + Sync>;

/// The runtime's recipe for a thread's state, given the calling state. The runtime hands it over
/// when it opens `libipc`, so that ipc does not reach up into the runtime that registers it.
pub type StateMaker = fn(&Lua) -> Result<NewState>;

enum Slot {
    Running(JoinHandle<Outcome>),
    Done(Outcome),
    Taken,
}

pub struct Map {
    slots: RefCell<Vec<Slot>>,
}

/// The work one thread is given.
struct Work {
    new_state: NewState,
    init: Option<Packed>,
    f: Packed,
    args: Vec<Packed>,
}

/// Runs `f(args...)` under a traceback handler; returns `ok, results...`.
const CALL: &str = r#"
local f, init = ...
local args = { n = select('#', ...) - 2, select(3, ...) }
local function traced(e) return debug.traceback(tostring(e), 1) end
if init ~= nil then
   local ok, err = xpcall(function()
      if type(init) == 'string' then assert(loadstring(init))() else init() end
   end, traced)
   if not ok then return false, err end
end
return xpcall(function() return f(unpack(args, 1, args.n)) end, traced)
"#;

fn worker(work: Arc<Work>, index: usize) -> Outcome {
    let run = move || -> Result<Outcome> {
        let lua = (work.new_state)()?;
        lua.load("require 'torch'; require 'libipc'").exec()?;
        let f = work.f.unpack(&lua)?;
        let init = match &work.init {
            Some(m) => m.unpack(&lua)?,
            None => Value::Nil,
        };
        let mut args = vec![f, init];
        for a in &work.args {
            args.push(a.unpack(&lua)?);
        }
        args.push(Value::Integer(index as i64));
        // The packed arguments hold references to the handles among them: let them go, so that a
        // handle this thread is the last holder of counts as such (a read that nothing can answer).
        drop(work);
        let call: Function = lua.load(CALL).set_name("=ipc.map").into_function()?;
        let mut out = call.call::<MultiValue>(MultiValue::from_iter(args))?.into_iter();
        match out.next() {
            Some(Value::Boolean(true)) => Ok(Ok(pack_all(&lua, out, false)?)),
            _ => Ok(Err(Error::peer(
                out.next()
                    .and_then(|v| v.as_string().map(|s| s.to_string_lossy()))
                    .unwrap_or_else(|| "(error object is not a string)".into()),
            ))),
        }
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(e)) => Err(Error::peer(crate::error::message::message_of(&e))),
        Err(_) => Err(Error::peer("the worker thread panicked")),
    }
}

impl Map {
    fn start(
        lua: &Lua,
        maker: StateMaker,
        n: usize,
        init: Option<&Value>,
        f: &Value,
        args: MultiValue,
        method: &str,
    ) -> Result<Map> {
        let pack = |v: &Value| Packed::pack(lua, v, false).map_err(|e| fail(method, e));
        let work = Arc::new(Work {
            new_state: maker(lua).map_err(|e| fail(method, e))?,
            init: init.map(pack).transpose()?,
            f: pack(f)?,
            args: pack_all(lua, args, false).map_err(|e| fail(method, e))?,
        });
        let mut slots = Vec::with_capacity(n);
        for i in 1..=n {
            let work = work.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("ipc.map {i}"))
                .stack_size(4 << 20)
                .spawn(move || worker(work, i));
            match spawned {
                Ok(h) => slots.push(Slot::Running(h)),
                Err(e) => {
                    // The threads already started finish on their own.
                    return Err(error(method, format!("cannot start thread {i} of {n}: {e}")));
                }
            }
        }
        Ok(Map {
            slots: RefCell::new(slots),
        })
    }
}

fn finish(slot: &mut Slot) -> Option<Outcome> {
    match std::mem::replace(slot, Slot::Taken) {
        Slot::Running(h) => Some(
            h.join()
                .unwrap_or_else(|_| Err(Error::peer("the worker thread panicked"))),
        ),
        Slot::Done(o) => Some(o),
        Slot::Taken => None,
    }
}

impl UserData for Map {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_function("join", |lua, this: Value| {
            const M: &str = "ipc.map:join";
            let map = this_map(&this, M)?;
            let mut slots = map.slots.try_borrow_mut().map_err(|_| error(M, "the map is in use"))?;
            let mut results = Vec::new();
            let mut failure = None;
            for (i, slot) in slots.iter_mut().enumerate() {
                match finish(slot) {
                    Some(Ok(values)) => results.push(values),
                    Some(Err(e)) => failure = Some(format!("thread {} failed: {e}", i + 1)),
                    None => {}
                }
            }
            slots.clear();
            if let Some(f) = failure {
                return Err(error(M, f));
            }
            let mut out = Vec::new();
            for values in &results {
                out.extend(unpack_all(lua, values)?);
            }
            Ok(MultiValue::from_iter(out))
        });
        m.add_function("checkErrors", |_, this: Value| {
            const M: &str = "ipc.map:checkErrors";
            let map = this_map(&this, M)?;
            let mut slots = map.slots.try_borrow_mut().map_err(|_| error(M, "the map is in use"))?;
            for (i, slot) in slots.iter_mut().enumerate() {
                if matches!(slot, Slot::Running(h) if h.is_finished()) {
                    let outcome = finish(slot).expect("running");
                    *slot = Slot::Done(outcome);
                }
                if matches!(slot, Slot::Done(Err(_)))
                    && let Some(Err(e)) = finish(slot)
                {
                    return Err(error(M, format!("thread {} failed: {e}", i + 1)));
                }
            }
            Ok(())
        });
    }
}

/// The map a method is called on.
fn this_map(this: &Value, method: &str) -> Result<mlua::UserDataRef<Map>> {
    match this {
        Value::UserData(ud) => ud.borrow::<Map>().ok(),
        _ => None,
    }
    .ok_or_else(|| {
        error(
            method,
            format!(
                "expected an ipc.map as self, got {} (call it with ':')",
                crate::args::type_name(this)
            ),
        )
    })
}

/// The number of threads: a whole number of at least 1 (or a string of one, as Lua converts).
fn count(v: &Value, method: &str) -> Result<usize> {
    let n = match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Number(n) => Some(*n),
        Value::String(s) => s.to_str().ok().and_then(|s| s.trim().parse::<f64>().ok()),
        _ => None,
    };
    match n {
        Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= 4096.0 => Ok(n as usize),
        Some(n) => Err(error(
            method,
            format!("bad argument #1 (a number of threads from 1 to 4096 expected, got {n})"),
        )),
        None => Err(error(
            method,
            format!(
                "bad argument #1 (a number of threads expected, got {})",
                crate::args::type_name(v)
            ),
        )),
    }
}

/// How `ipc.map` makes its threads' states: the Lua state's app data, put there by `register`.
#[derive(Clone, Copy)]
struct Maker(StateMaker);

pub fn register(lua: &Lua, ipc: &Table, maker: StateMaker) -> Result<()> {
    calls::keep(lua, || Maker(maker));
    calls::add(lua, ipc, "map", map)?;
    calls::add(lua, ipc, "map_extended", map_extended)
}

/// `ipc.map(n, f, ...) -> map`: `f(..., i)` run on n threads, each in a Lua state of its own.
fn map(lua: &Lua, mut args: MultiValue) -> Result<Map> {
    const M: &str = "ipc.map";
    let n = count(&args.pop_front().unwrap_or(Value::Nil), M)?;
    let f = args.pop_front().unwrap_or(Value::Nil);
    if !matches!(f, Value::Function(_)) {
        return Err(error(M, "map arg #2 expected a function"));
    }
    let Maker(maker) = calls::state(lua)?;
    Map::start(lua, maker, n, None, &f, args, M)
}

/// `ipc.map_extended(n, init, f, ...) -> map`: as `ipc.map`, each thread first running `init` (a
/// function, code, or nil).
fn map_extended(lua: &Lua, mut args: MultiValue) -> Result<Map> {
    const M: &str = "ipc.map_extended";
    let n = count(&args.pop_front().unwrap_or(Value::Nil), M)?;
    let init = args.pop_front().unwrap_or(Value::Nil);
    if !matches!(init, Value::Function(_) | Value::String(_) | Value::Nil) {
        return Err(error(M, "map_extended arg #2 expected a function, string or nil"));
    }
    let f = args.pop_front().unwrap_or(Value::Nil);
    if !matches!(f, Value::Function(_)) {
        return Err(error(M, "map_extended arg #3 expected a function"));
    }
    let init = (!init.is_nil()).then_some(init);
    let Maker(maker) = calls::state(lua)?;
    Map::start(lua, maker, n, init.as_ref(), &f, args, M)
}
