//! The interactive REPL, in the manner of trepl.

use mlua::Lua;

/// Runs the REPL until the user exits; returns the exit status.
pub fn run(_lua: &Lua) -> i32 {
    eprintln!("th: the REPL is not available yet");
    1
}
