//! Compiling and running what was typed at the prompt, trepl-style: `return <input>` is tried first
//! so that expressions print their values; otherwise the input runs as statements.

use mlua::{Function, Lua, MultiValue, Table, Value};

use super::interrupt;
use crate::error::message::describe;
use crate::runtime::errors;

/// Chunk name of typed input, as in the stand-alone `lua` interpreter: errors read `stdin:1: ...`.
const CHUNK_NAME: &str = "=stdin";

/// What was typed, with trepl's markers taken off.
pub struct Input<'a> {
    /// The Lua text, without a leading `=`.
    pub code: &'a str,
    /// A trailing `;` asks for no printing.
    pub quiet: bool,
}

pub fn parse(text: &str) -> Input<'_> {
    let trimmed = text.trim();
    let code = trimmed.strip_prefix('=').map_or(trimmed, str::trim_start);
    Input {
        code,
        quiet: code.trim_end().ends_with(';'),
    }
}

fn compile(lua: &Lua, code: &str) -> mlua::Result<Function> {
    lua.load(code).set_name(CHUNK_NAME).into_function()
}

fn is_incomplete(result: &mlua::Result<Function>) -> bool {
    matches!(
        result,
        Err(mlua::Error::SyntaxError {
            incomplete_input: true,
            ..
        })
    )
}

/// True when the text cannot compile yet but could with more lines: neither `return <text>` nor
/// `<text>` compiles, and at least one fails only for lack of input.
pub fn needs_more(lua: &Lua, text: &str) -> bool {
    let input = parse(text);
    if input.code.is_empty() || input.code.starts_with('$') {
        return false;
    }
    let returned = compile(lua, &format!("return {}", input.code));
    if returned.is_ok() {
        return false;
    }
    let plain = compile(lua, input.code);
    plain.is_err() && (is_incomplete(&returned) || is_incomplete(&plain))
}

/// The chunk to run. An expression list compiles as `return (...)(<list>)`, called with the
/// identity function: a plain `return <list>` would make a call in the list a tail call, and
/// `error('x')` would then lose its `stdin:1:` position and the main chunk its traceback line.
/// The flag tells which form was taken: only the expression form is called with the identity.
fn chunk_for(lua: &Lua, input: &Input) -> mlua::Result<(Function, bool)> {
    let as_values = |code: &str| {
        let code = code.trim_end().trim_end_matches(';');
        compile(lua, &format!("return {code}"))?;
        compile(lua, &format!("return (...)({code}\n)")).map(|f| (f, true))
    };
    if !input.quiet
        && let Ok(f) = as_values(input.code)
    {
        return Ok(f);
    }
    match compile(lua, input.code) {
        Ok(f) => Ok((f, false)),
        // `x;` is not a statement, but its value can still be computed quietly.
        Err(e) => as_values(input.code).map_err(|_| e),
    }
}

/// Turns off the JIT for `f` and every function defined inside it, so that the interrupt hook runs
/// in loops typed at the prompt (LuaJIT skips hooks in compiled traces).
fn jit_off(lua: &Lua, f: &Function) {
    let off = lua
        .globals()
        .raw_get::<Option<Table>>("jit")
        .ok()
        .flatten()
        .and_then(|jit| jit.raw_get::<Function>("off").ok());
    if let Some(off) = off {
        let _ = off.call::<()>((f.clone(), true));
    }
}

/// Drops the frames the REPL itself adds below the user's code (the `xpcall` in `call_traced` and
/// the string-error wrapper around it).
fn trim_traceback(message: &str) -> String {
    let mut lines: Vec<&str> = message.lines().collect();
    let Some(header) = lines.iter().rposition(|l| *l == "stack traceback:") else {
        return message.to_string();
    };
    while lines.len() > header + 1 {
        let frame = lines[lines.len() - 1].trim_start();
        let ours = frame.starts_with("[luatorch]")
            || frame.starts_with("[builtin#")
            || frame.starts_with("[C]: in function 'xpcall'")
            || frame.starts_with("[C]: in ?")
            || frame.starts_with("(...tail calls...)");
        if !ours {
            break;
        }
        lines.pop();
    }
    if lines.len() == header + 1 {
        lines.pop();
    }
    lines.join("\n")
}

fn push_result(lua: &Lua, value: &Value) {
    let globals = lua.globals();
    let results = match globals.raw_get::<Value>("_RESULTS") {
        Ok(Value::Table(t)) => t,
        _ => match lua.create_table() {
            Ok(t) => {
                let _ = globals.raw_set("_RESULTS", &t);
                t
            }
            Err(_) => return,
        },
    };
    if !value.is_nil() {
        let _ = results.raw_push(value.clone());
    }
    let last = results.raw_get::<Value>(results.raw_len()).unwrap_or(Value::Nil);
    let _ = globals.raw_set("_LAST", last);
}

/// Prints `values` with the global `print` (trepl's `print_new`, unless changed).
fn print_values(lua: &Lua, values: MultiValue) -> Result<(), errors::Raised> {
    let print: Function = lua
        .globals()
        .get("print")
        .map_err(|e| errors::Raised(format!("print: {}", describe(&e))))?;
    match errors::call_traced(lua, &print, values) {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(msg)) => Err(msg),
        Err(e) => Err(errors::Raised(describe(&e))),
    }
}

/// The outcome of running one input.
pub enum Outcome {
    Done,
    Failed(String),
    Interrupted,
}

/// Runs `text` (already complete) and prints its values; returns what happened. At the terminal the
/// caller keeps Ctrl-C armed for the whole evaluation, printing included; input piped in runs with
/// no interrupt (`armed` None) and so with the JIT on, as a script would.
pub fn run(lua: &Lua, text: &str, armed: Option<&interrupt::Armed>) -> Outcome {
    run_with(lua, text, armed, &mut print_values)
}

/// Whether `text` compiles, as statements or as an expression list (the REPL's two forms).
pub fn compiles(lua: &Lua, text: &str) -> bool {
    let input = parse(text);
    compile(lua, input.code).is_ok() || compile(lua, &format!("return {}", input.code)).is_ok()
}

/// `run`, with `show` given the values an expression returned (the REPL prints them; the Jupyter
/// kernel sends them as the cell's result).
pub fn run_with(
    lua: &Lua,
    text: &str,
    armed: Option<&interrupt::Armed>,
    show: &mut dyn FnMut(&Lua, MultiValue) -> Result<(), errors::Raised>,
) -> Outcome {
    let input = parse(text);
    if input.code.is_empty() {
        return Outcome::Done;
    }
    if let Some(command) = input.code.strip_prefix('$') {
        return shell(lua, command.trim());
    }
    let print = !input.quiet;
    let (f, expression) = match chunk_for(lua, &input) {
        Ok(chunk) => chunk,
        Err(e) => return Outcome::Failed(describe(&e)),
    };
    if armed.is_some() {
        jit_off(lua, &f);
    }
    let mut args = MultiValue::new();
    if expression {
        match lua.load("return function(...) return ... end").eval::<Function>() {
            Ok(identity) => args.push_back(Value::Function(identity)),
            Err(e) => return Outcome::Failed(describe(&e)),
        }
    }
    let result = errors::call_traced(lua, &f, args);
    let outcome = match result {
        Ok(Ok(values)) => {
            if print && !values.is_empty() {
                push_result(lua, values.front().unwrap_or(&Value::Nil));
                match show(lua, values) {
                    Ok(()) => Outcome::Done,
                    Err(raised) => Outcome::Failed(trim_traceback(&raised.0)),
                }
            } else {
                Outcome::Done
            }
        }
        Ok(Err(raised)) => Outcome::Failed(trim_traceback(&raised.0)),
        Err(e) => Outcome::Failed(describe(&e)),
    };
    match outcome {
        Outcome::Failed(_) if armed.is_some_and(|a| a.interrupted()) => Outcome::Interrupted,
        other => other,
    }
}

/// `$ cmd`: runs a shell command, shows its output and keeps it in `_RESULTS` (so in `_LAST`).
fn shell(lua: &Lua, command: &str) -> Outcome {
    let command = match command {
        "ls" => "ls -F",
        "ll" => "ls -lhF",
        "la" => "ls -aF",
        "lla" => "ls -lahF",
        other => other,
    };
    // Ctrl-C (armed by the caller) stops the command, not th.
    let output = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .stdin(std::process::Stdio::inherit())
        .stderr(std::process::Stdio::inherit())
        .output();
    match output {
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            print!("{text}");
            if let Ok(s) = lua.create_string(&out.stdout) {
                push_result(lua, &Value::String(s));
            }
            Outcome::Done
        }
        Err(e) => Outcome::Failed(format!("cannot run /bin/sh: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers() {
        let i = parse("  = 1 + 2 ");
        assert_eq!(i.code, "1 + 2");
        assert!(!i.quiet);
        assert!(parse("x = 3;").quiet);
    }

    #[test]
    fn completeness() {
        let lua = Lua::new();
        assert!(needs_more(&lua, "function f()"));
        assert!(needs_more(&lua, "{1, 2,"));
        assert!(needs_more(&lua, "x = [[abc"));
        assert!(needs_more(&lua, "for i = 1, 3 do\n print(i)"));
        assert!(needs_more(&lua, "1 +"));
        assert!(!needs_more(&lua, "x = = 1"));
        assert!(!needs_more(&lua, "function f() end"));
        assert!(!needs_more(&lua, "1 + 1"));
        assert!(!needs_more(&lua, "$ ls ("));
    }

    #[test]
    fn traceback_trimmed() {
        let msg = "stdin:1: boom\nstack traceback:\n\t[C]: in function 'error'\n\tstdin:1: in main chunk\n\t\
                   [builtin#21]: at 0x55c3d27a8020\n\t[luatorch]:9: in function 'xpcall'\n\t[C]: in ?";
        assert_eq!(
            trim_traceback(msg),
            "stdin:1: boom\nstack traceback:\n\t[C]: in function 'error'\n\tstdin:1: in main chunk"
        );
        assert_eq!(trim_traceback("x\nstack traceback:\n\t[C]: in ?"), "x");
        assert_eq!(trim_traceback("plain"), "plain");
    }
}
