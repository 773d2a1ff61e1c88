//! Ctrl-C, process-wide: the flag that native code waiting on something (a child, a socket, a
//! peer) polls to give up with "interrupted", and the SIGINT handler that sets it.
//!
//! The handler is installed only while the REPL evaluates a chunk (`repl::interrupt` arms it and
//! adds the Lua hook that raises the error). The third Ctrl-C during one evaluation ends `th`:
//! first the quit hooks run, so that what would otherwise outlive the process (a parallel run's
//! shared memory) is removed. Layers below the REPL register those hooks (`on_quit`) instead of
//! the REPL knowing them.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};

const PRESSES_TO_QUIT: usize = 3;
/// Room for the quit hooks; each layer with something to remove registers one.
const MAX_QUIT_HOOKS: usize = 4;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static PRESSES: AtomicUsize = AtomicUsize::new(0);
/// The quit hooks, as `fn()` pointers (0: free): atomics, so the handler reads them safely.
static QUIT_HOOKS: [AtomicUsize; MAX_QUIT_HOOKS] = [const { AtomicUsize::new(0) }; MAX_QUIT_HOOKS];

/// Runs `hook` when a third Ctrl-C ends the process. It runs inside a signal handler, so it must
/// be async-signal-safe. Registering the same hook twice keeps one copy.
pub fn on_quit(hook: fn()) {
    let address = hook as usize;
    for slot in &QUIT_HOOKS {
        match slot.compare_exchange(0, address, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => return,
            Err(current) if current == address => return,
            Err(_) => {}
        }
    }
    debug_assert!(false, "interrupt::on_quit: more than {MAX_QUIT_HOOKS} hooks");
}

extern "C" fn on_sigint(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    if PRESSES.fetch_add(1, Ordering::SeqCst) + 1 >= PRESSES_TO_QUIT {
        const MSG: &[u8] = b"\nth: interrupted again, quitting\n";
        for slot in &QUIT_HOOKS {
            let address = slot.load(Ordering::SeqCst);
            if address != 0 {
                // SAFETY: only `on_quit` stores here, and it stores `fn()` pointers.
                let hook: fn() = unsafe { std::mem::transmute::<usize, fn()>(address) };
                hook();
            }
        }
        // SAFETY: write, signal and raise are async-signal-safe.
        unsafe {
            libc::write(2, MSG.as_ptr().cast(), MSG.len());
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::raise(libc::SIGINT);
        }
    }
}

/// Whether Ctrl-C was pressed during the current REPL evaluation: native code that waits (for a
/// child process, say) checks this and gives up with "interrupted".
pub fn pending() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// Clears the flag and the count of presses, and installs the SIGINT handler; returns the action
/// it replaced, for `restore`.
pub fn install() -> Option<SigAction> {
    INTERRUPTED.store(false, Ordering::SeqCst);
    PRESSES.store(0, Ordering::SeqCst);
    // No SA_RESTART: a blocking read in Lua code returns EINTR so the REPL's hook gets to run.
    let action = SigAction::new(SigHandler::Handler(on_sigint), SaFlags::empty(), SigSet::empty());
    // SAFETY: the handler only touches atomics, async-signal-safe libc calls and the quit hooks,
    // which must be async-signal-safe themselves.
    unsafe { sigaction(Signal::SIGINT, &action) }.ok()
}

/// Puts back the SIGINT action that `install` replaced.
pub fn restore(previous: &SigAction) {
    // SAFETY: restores an action that was in place before.
    let _ = unsafe { sigaction(Signal::SIGINT, previous) };
}
