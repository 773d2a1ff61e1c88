//! Ctrl-C while REPL code runs.
//!
//! While a chunk is evaluated (and only then) a SIGINT handler sets a flag, and a Lua count hook
//! (every `HOOK_INSTRUCTIONS` VM instructions) raises the error "interrupted" once the flag is set.
//! After the first such error the hook runs at every instruction until the evaluation ends, so
//! code that catches the error with `pcall` is interrupted again at its next instruction, and the
//! error climbs out of any number of `pcall`s. LuaJIT does not run hooks inside compiled traces, so the
//! REPL compiles its chunks with the JIT off (see `eval.rs`). At the prompt, rustyline has the
//! terminal in raw mode and reports Ctrl-C itself, so no handler is needed there.
//!
//! Code blocked in native code sees the interrupt when it next runs Lua instructions. As an escape
//! hatch, the third Ctrl-C during one evaluation restores the default action and ends `th`.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use mlua::debug::Debug;
use mlua::{HookTriggers, Lua, VmState};
use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};

const HOOK_INSTRUCTIONS: u32 = 1000;
const PRESSES_TO_QUIT: usize = 3;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static PRESSES: AtomicUsize = AtomicUsize::new(0);
/// Whether the hook was switched to run at every instruction.
static TIGHT: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    if PRESSES.fetch_add(1, Ordering::SeqCst) + 1 >= PRESSES_TO_QUIT {
        const MSG: &[u8] = b"\nth: interrupted again, quitting\n";
        // Shared memory of a parallel run goes first (async-signal-safe, like the rest).
        crate::parallel::sweep::sweep_now();
        // SAFETY: write, signal and raise are async-signal-safe.
        unsafe {
            libc::write(2, MSG.as_ptr().cast(), MSG.len());
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::raise(libc::SIGINT);
        }
    }
}

fn hook(lua: &Lua, _: &Debug) -> mlua::Result<VmState> {
    if !INTERRUPTED.load(Ordering::Relaxed) {
        return Ok(VmState::Continue);
    }
    if !TIGHT.swap(true, Ordering::SeqCst) {
        let _ = lua.set_global_hook(HookTriggers::new().every_nth_instruction(1), hook);
    }
    Err(mlua::Error::runtime("interrupted"))
}

/// Whether Ctrl-C was pressed during the current REPL evaluation: native code that waits (for a
/// child process, say) checks this and gives up with "interrupted".
pub fn pending() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// Interruption is armed while this lives: the handler and the hook are installed by `arm` and
/// removed on drop.
pub struct Armed<'a> {
    lua: &'a Lua,
    previous: Option<SigAction>,
}

pub fn arm(lua: &Lua) -> Armed<'_> {
    INTERRUPTED.store(false, Ordering::SeqCst);
    PRESSES.store(0, Ordering::SeqCst);
    TIGHT.store(false, Ordering::SeqCst);
    // No SA_RESTART: a blocking read in Lua code returns EINTR so the hook gets to run.
    let action = SigAction::new(SigHandler::Handler(on_sigint), SaFlags::empty(), SigSet::empty());
    // SAFETY: the handler only touches atomics and async-signal-safe libc calls.
    let previous = unsafe { sigaction(Signal::SIGINT, &action) }.ok();
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
        INTERRUPTED.load(Ordering::SeqCst)
    }
}

impl Drop for Armed<'_> {
    fn drop(&mut self) {
        self.lua.remove_global_hook();
        self.lua.remove_hook();
        if let Some(previous) = &self.previous {
            // SAFETY: restores the action that was in place before `arm`.
            let _ = unsafe { sigaction(Signal::SIGINT, previous) };
        }
    }
}
