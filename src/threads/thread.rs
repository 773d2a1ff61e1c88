//! `threads.Thread(code)`: an OS thread running a string of Lua code in a fresh state of its own
//! (torch loaded), as torch/threads' low-level Thread. `free()` waits for it to end. A thread
//! whose handle is collected without `free()` runs on to its end, unjoined: collection never
//! waits on a thread.

use std::cell::RefCell;
use std::sync::Arc;
use std::thread::JoinHandle;

use mlua::{Lua, Result, Table, UserData, UserDataMethods, Value};

use super::reaped::{self, Tid};
use crate::args::{error, type_name};
use crate::calls;
use crate::error::message::message_of;
use crate::ipc::map::{NewState, StateMaker};

pub struct Thread(RefCell<Option<JoinHandle<()>>>, Arc<Tid>);

/// Runs `code`; its error, with traceback, goes to stderr, where the thread's output goes.
fn run(new_state: NewState, code: Vec<u8>, tid: Arc<Tid>) {
    tid.note();
    let outcome = (|| -> Result<()> {
        let lua = new_state()?;
        lua.load("require 'torch'").exec()?;
        let f = lua.load(code).set_name("=threads.Thread").into_function()?;
        let traced = lua
            .load("return function(e) return debug.traceback(tostring(e), 1) end")
            .eval::<mlua::Function>()?;
        let xpcall: mlua::Function = lua.globals().get("xpcall")?;
        let (ok, err): (bool, Value) = xpcall.call((f, traced))?;
        if !ok {
            return Err(mlua::Error::runtime(match err {
                Value::String(s) => s.to_string_lossy(),
                other => format!("(error object is a {} value)", type_name(&other)),
            }));
        }
        Ok(())
    })();
    if let Err(e) = outcome {
        eprintln!("threads.Thread: {}", message_of(&e));
    }
}

impl UserData for Thread {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("free", |_, t, ()| {
            if let Some(h) = t.0.borrow_mut().take() {
                let joined = h.join();
                reaped::wait_gone([&*t.1]);
                joined.map_err(|_| error("threads.Thread:free", "the thread panicked"))?;
            }
            Ok(())
        });
    }
}

/// How the threads' states are made: the Lua state's app data, put there by `register`.
#[derive(Clone, Copy)]
struct Maker(StateMaker);

pub fn register(lua: &Lua, t: &Table, maker: StateMaker) -> Result<()> {
    calls::keep(lua, || Maker(maker));
    calls::add(lua, t, "Thread", new_thread)
}

/// `threads.Thread(code) -> thread`: `code` run on a thread of its own, in a Lua state of its own.
fn new_thread(lua: &Lua, code: Value) -> Result<mlua::AnyUserData> {
    const M: &str = "threads.Thread";
    let Value::String(code) = &code else {
        return Err(error(
            M,
            format!(
                "bad argument #1 (a string of Lua code expected, got {})",
                type_name(&code)
            ),
        ));
    };
    let code = code.as_bytes().to_vec();
    let Maker(maker) = calls::state(lua)?;
    let new_state = maker(lua)?;
    let tid = Arc::new(Tid::default());
    let noted = tid.clone();
    let handle = std::thread::Builder::new()
        .name("threads.Thread".into())
        .stack_size(4 << 20)
        .spawn(move || run(new_state, code, noted))
        .map_err(|e| error(M, format!("cannot start a thread: {e}")))?;
    lua.create_userdata(Thread(RefCell::new(Some(handle)), tid))
}
