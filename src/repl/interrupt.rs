//! Ctrl-C while REPL code runs.
//!
//! While a chunk is evaluated (and only then) the SIGINT handler of `crate::interrupt` sets its
//! flag, and a Lua count hook (every `HOOK_INSTRUCTIONS` VM instructions) raises the error
//! "interrupted" once the flag is set.
//! After the first such error the hook runs at every instruction until the evaluation ends, so
//! code that catches the error with `pcall` is interrupted again at its next instruction, and the
//! error climbs out of any number of `pcall`s. LuaJIT does not run hooks inside compiled traces, so the
//! REPL compiles its chunks with the JIT off (see `eval.rs`). At the prompt, rustyline has the
//! terminal in raw mode and reports Ctrl-C itself, so no handler is needed there.
//!
//! Code blocked in native code sees the interrupt when it next runs Lua instructions. As an escape
//! hatch, the third Ctrl-C during one evaluation restores the default action and ends `th`.

use std::sync::atomic::{AtomicBool, Ordering};

use mlua::debug::Debug;
use mlua::{HookTriggers, Lua, VmState};
use nix::sys::signal::SigAction;

use crate::interrupt;

const HOOK_INSTRUCTIONS: u32 = 1000;

/// Whether the hook was switched to run at every instruction.
static TIGHT: AtomicBool = AtomicBool::new(false);

fn hook(lua: &Lua, _: &Debug) -> mlua::Result<VmState> {
    if !interrupt::pending() {
        return Ok(VmState::Continue);
    }
    if !TIGHT.swap(true, Ordering::SeqCst) {
        let _ = lua.set_global_hook(HookTriggers::new().every_nth_instruction(1), hook);
    }
    Err(mlua::Error::runtime("interrupted"))
}

/// Interruption is armed while this lives: the handler and the hook are installed by `arm` and
/// removed on drop.
pub struct Armed<'a> {
    lua: &'a Lua,
    previous: Option<SigAction>,
}

pub fn arm(lua: &Lua) -> Armed<'_> {
    TIGHT.store(false, Ordering::SeqCst);
    let previous = interrupt::install();
    // A global hook: on LuaJIT hooks are per state, and a per-thread mlua hook would remove itself
    // as soon as a coroutine runs.
    let hooked = lua.set_global_hook(HookTriggers::new().every_nth_instruction(HOOK_INSTRUCTIONS), hook);
    if let Err(e) = hooked {
        eprintln!("th: cannot install the interrupt hook: {e}");
    }
    Armed { lua, previous }
}

impl Armed<'_> {
    /// Whether Ctrl-C was pressed since `arm`.
    pub fn interrupted(&self) -> bool {
        interrupt::pending()
    }
}

impl Drop for Armed<'_> {
    fn drop(&mut self) {
        self.lua.remove_global_hook();
        self.lua.remove_hook();
        if let Some(previous) = &self.previous {
            interrupt::restore(previous);
        }
    }
}
