//! The interactive REPL, in the manner of trepl's `th`.
//!
//! - Prompt `th> `; while the input is an incomplete chunk the loop reads more lines under `..> `
//!   (the loop does this rather than a rustyline `Validator`, since rustyline shows no prompt on
//!   continuation lines). Ctrl-C at a prompt drops the pending input; Ctrl-D exits with status 0.
//! - `expr` prints every value it returns through the global `print` (trepl's readable `print`);
//!   a trailing `;` keeps it quiet; a leading `=` is accepted; `$ cmd` runs a shell command.
//!   The first value goes to `_RESULTS`, and `_LAST` is the latest one (see `eval.rs`).
//! - Ctrl-C while code runs stops it with "interrupted"; globals set before stay (`interrupt.rs`).
//!   For that, code typed at the prompt (functions defined there included) runs with the JIT off;
//!   loops inside JIT-compiled library code are only stopped by a third Ctrl-C, which ends `th`.
//! - History lives in `$TREPL_HISTORY`, else `~/.luahistory`, and is written after every input; a
//!   multi-line input is one entry.
//! - Tab completes globals, keywords, `a.b.c` fields, `obj:method`s and file names in strings
//!   (`complete.rs`).
//!
//! - Input that is not a terminal (`printf 'x = 3\nx * 2\n' | th`) is read the same way, line by
//!   line, without banner or prompts (`run_piped`).
//!
//! trepl's timing line after every command is left out: it doubles the output of every line.

pub mod complete;
pub mod eval;
pub mod interrupt;

use std::io::{BufRead, IsTerminal as _, Write as _};
use std::path::PathBuf;

use mlua::Lua;
use rustyline::Editor;
use rustyline::config::{CompletionType, Config};
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;

use complete::LuaHelper;

const PROMPT: &str = "th> ";
const CONTINUATION: &str = "..> ";
const HISTORY_SIZE: usize = 10_000;

/// `$TREPL_HISTORY`, else `$HOME/.luahistory`; none when neither is set.
fn history_path() -> Option<PathBuf> {
    match std::env::var_os("TREPL_HISTORY") {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".luahistory")),
    }
}

pub fn banner(lua: &Lua) -> String {
    let jit = lua
        .load("return jit and jit.version or _VERSION")
        .eval::<String>()
        .unwrap_or_else(|_| "LuaJIT".into());
    format!(
        "luatorch th {} | {jit}\nType Lua; `expr;` stays quiet, `$ cmd` runs a shell command. Ctrl-C interrupts, Ctrl-D exits.",
        env!("CARGO_PKG_VERSION")
    )
}

/// trepl's REPL starts with torch, paths, sys and xlua loaded; `th` makes them lazy globals for fast
/// script start-up. Loading them here lets Tab see them (`torch.Flo<Tab>`); a missing one is skipped.
fn load_torch_globals(lua: &Lua) {
    let _ = lua
        .load("for _, k in ipairs { 'torch', 'paths', 'sys', 'xlua' } do pcall(function() return _G[k] end) end")
        .set_name("=[th repl]")
        .exec();
}

/// Output written by Lua through C stdio (`io.write`) or by Rust must be out before the prompt.
fn flush_output() {
    // SAFETY: fflush(NULL) flushes every C output stream.
    unsafe {
        libc::fflush(std::ptr::null_mut());
    }
    let _ = std::io::stdout().flush();
}

fn editor(lua: &Lua) -> rustyline::Result<Editor<LuaHelper, DefaultHistory>> {
    let config = Config::builder()
        .max_history_size(HISTORY_SIZE)?
        .history_ignore_dups(true)?
        .history_ignore_space(true)
        .auto_add_history(false)
        .completion_type(CompletionType::List)
        .build();
    let mut rl = Editor::with_config(config)?;
    rl.set_helper(Some(LuaHelper::new(lua)));
    Ok(rl)
}

/// Runs the REPL until the user exits; returns the exit status. Input that is not a terminal is
/// read line by line as if typed (`run_piped`).
pub fn run(lua: &Lua) -> i32 {
    if !std::io::stdin().is_terminal() {
        return run_piped(lua, std::io::stdin().lock());
    }
    let mut rl = match editor(lua) {
        Ok(rl) => rl,
        Err(e) => {
            eprintln!("th: cannot start the line editor: {e}");
            return 1;
        }
    };
    load_torch_globals(lua);
    let mut history = history_path();
    if let Some(path) = &history {
        // A missing file is the normal first run; an unreadable one just starts empty.
        let _ = rl.load_history(path);
    }
    println!("{}", banner(lua));

    let mut pending = String::new();
    loop {
        flush_output();
        let prompt = if pending.is_empty() { PROMPT } else { CONTINUATION };
        let line = match rl.readline(prompt) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => {
                pending.clear();
                continue;
            }
            Err(ReadlineError::Eof) => {
                println!();
                return 0;
            }
            Err(e) => {
                eprintln!("th: cannot read input: {e}");
                return 1;
            }
        };
        if pending.is_empty() && line.trim() == "exit" {
            return 0;
        }
        // From here until the next prompt the terminal is in cooked mode, so Ctrl-C is a signal.
        let armed = interrupt::arm(lua);
        let Some(input) = complete_input(lua, &mut pending, &line) else {
            continue;
        };
        if input.trim().is_empty() {
            continue;
        }
        if rl.add_history_entry(input.as_str()).unwrap_or(false)
            && let Some(path) = &history
            && let Err(e) = rl.append_history(path)
        {
            // Said once; the REPL goes on without a history file.
            eprintln!("th: cannot write history to {}: {e}", path.display());
            history = None;
        }
        match eval::run(lua, &input, Some(&armed)) {
            eval::Outcome::Done => {}
            eval::Outcome::Failed(message) => {
                flush_output();
                eprintln!("{message}");
            }
            eval::Outcome::Interrupted => {
                flush_output();
                // After the terminal's `^C` echo.
                eprintln!("\ninterrupted");
            }
        }
    }
}

/// Adds `line` to the input read so far; returns the whole input once it is complete Lua (or
/// cannot become so), leaving `pending` empty.
fn complete_input(lua: &Lua, pending: &mut String, line: &str) -> Option<String> {
    if !pending.is_empty() {
        pending.push('\n');
    }
    pending.push_str(line);
    if eval::needs_more(lua, pending) {
        return None;
    }
    Some(std::mem::take(pending))
}

/// The REPL over input that is not a terminal (`printf 'x = 3\nx * 2\n' | th`), as trepl's `th`
/// treats it: each complete input is evaluated in turn and expressions print their values; an
/// error is reported on stderr and the next input still runs. No banner, prompts or history, so
/// the output is the program's alone. The status is 1 when an input failed (trepl's is always 0:
/// a pipeline should see the failure), else 0; `exit` or the end of the input ends it.
pub fn run_piped(lua: &Lua, input: impl BufRead) -> i32 {
    let mut status = 0;
    let mut pending = String::new();
    let mut lines = input.lines();
    loop {
        let line = match lines.next() {
            Some(Ok(line)) => Some(line),
            Some(Err(e)) => {
                eprintln!("th: cannot read input: {e}");
                return 1;
            }
            None => None,
        };
        let Some(line) = line else {
            // An unfinished input at the end is run for its error.
            if !pending.trim().is_empty() && failed(lua, &pending) {
                status = 1;
            }
            flush_output();
            return status;
        };
        if pending.is_empty() && line.trim() == "exit" {
            flush_output();
            return status;
        }
        let Some(input) = complete_input(lua, &mut pending, &line) else {
            continue;
        };
        if failed(lua, &input) {
            status = 1;
        }
    }
}

/// Evaluates one piped input; reports its error and says whether there was one.
fn failed(lua: &Lua, input: &str) -> bool {
    match eval::run(lua, input, None) {
        eval::Outcome::Done => false,
        eval::Outcome::Failed(message) => {
            flush_output();
            eprintln!("{message}");
            true
        }
        eval::Outcome::Interrupted => {
            flush_output();
            eprintln!("interrupted");
            true
        }
    }
}
