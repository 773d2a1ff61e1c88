//! The text of a Lua error raised by Rust code: one line, without mlua's wrapping, placed at the
//! Lua line that called the Rust function as luaL_error placed Torch7's. Every layer that turns an
//! `mlua::Error` into words (the REPL, `th`'s messages, the threads and ipc workers reporting a
//! failed job) uses these, so a message reads the same wherever it surfaces.

/// Text of a compile or load error, without mlua's decorations.
pub fn describe(err: &mlua::Error) -> String {
    match err {
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        mlua::Error::RuntimeError(message) => message.clone(),
        mlua::Error::CallbackError { cause, .. } => describe(cause),
        mlua::Error::WithContext { context, cause } => format!("{context}: {}", describe(cause)),
        other => other.to_string(),
    }
}

/// A Rust error as one line of text: the cause without mlua's wrapping, and for a bad argument the
/// name of the function as Lua knows it.
pub fn message_of(err: &mlua::Error) -> String {
    match err {
        mlua::Error::CallbackError { cause, traceback } => {
            let text = match cause.as_ref() {
                mlua::Error::BadArgument {
                    to: None, pos, cause, ..
                } => {
                    let name = caller_name(traceback).unwrap_or_else(|| "?".into());
                    format!("bad argument #{pos} to '{name}' ({})", message_of(cause))
                }
                other => message_of(other),
            };
            located(text, traceback)
        }
        mlua::Error::BadArgument {
            to: Some(to),
            pos,
            cause,
            ..
        } => {
            format!("bad argument #{pos} to '{to}' ({})", message_of(cause))
        }
        mlua::Error::FromLuaConversionError { from, to, message } => match message {
            Some(m) => format!("{to} expected, got {from}: {m}"),
            None => format!("{to} expected, got {from}"),
        },
        other => describe(other),
    }
}

/// The message with the place of the Lua code that called the Rust function in front, as
/// luaL_error put it in Torch7 (`[luatorch]/nn/Linear.lua:57: addmv: size mismatch ...`): so an
/// error inside an nn module names the module's file and line. The torch package's own Lua
/// wrappers stand where Torch7 had C functions, so their frames are passed over for the code that
/// called them. A message that already has a place (a Lua error passing through) is left alone,
/// and so is one whose caller is not Lua code (`pcall(t.mv, ...)`), as luaL_where leaves it.
fn located(text: String, traceback: &str) -> String {
    if has_location(&text) {
        return text;
    }
    // The first frame is the Rust function itself.
    let frames = traceback
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("(tail call)") && !l.starts_with("..."))
        .skip(1);
    for frame in frames {
        let Some((place, _)) = frame.split_once(": in ") else {
            return text;
        };
        if place.starts_with("[C]") {
            return text;
        }
        if is_native_wrapper(place) {
            continue;
        }
        return if ends_with_line(place) {
            format!("{place}: {text}")
        } else {
            text
        };
    }
    text
}

/// Our Lua files that stand where the originals had C functions (torch's methods, parallel's,
/// torch-ipc's, ...): their frames are not the place of an error, their caller is. nn's modules
/// and the other Lua packages are, as in Torch7.
fn is_native_wrapper(place: &str) -> bool {
    const WRAPPERS: &[&str] = &[
        "torch",
        "luatorch",
        "paths",
        "sys",
        "parallel",
        "ipc",
        "threads",
        "scheduler",
        "cluster",
        "cutorch",
        "nccl",
        "gnuplot",
        "tds",
    ];
    place
        .strip_prefix("[luatorch]/")
        .and_then(|rest| rest.split('/').next())
        .is_some_and(|package| WRAPPERS.contains(&package))
}

/// `file:12`: a place with a line number.
fn ends_with_line(place: &str) -> bool {
    place
        .rsplit_once(':')
        .is_some_and(|(_, line)| !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether the message starts with a place (`script.lua:3: boom`), as Lua's `error` adds one.
fn has_location(text: &str) -> bool {
    let first_line = text.lines().next().unwrap_or("");
    first_line
        .split_once(": ")
        .is_some_and(|(place, _)| ends_with_line(place))
}

/// `[C]: in function 'sys.isatty'` -> `sys.isatty`, from the first frame of a traceback.
fn caller_name(traceback: &str) -> Option<String> {
    let line = traceback.lines().find(|l| l.contains("in function"))?;
    let start = line.find('\'')? + 1;
    let end = line[start..].find('\'')? + start;
    Some(line[start..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACEBACK: &str = "stack traceback:\n\t[C]: in function 'addmv'\n\t[luatorch]/torch/math.lua:40: in function 'addmv'\n\t[luatorch]/nn/Linear.lua:57: in function 'updateOutput'\n\t[C]: in function 'pcall'";

    #[test]
    fn a_rust_error_is_placed_at_its_lua_caller() {
        assert_eq!(
            located("addmv: size mismatch".into(), TRACEBACK),
            "[luatorch]/nn/Linear.lua:57: addmv: size mismatch"
        );
    }

    #[test]
    fn a_placed_message_or_a_c_caller_gets_no_place() {
        assert_eq!(located("x.lua:3: boom".into(), TRACEBACK), "x.lua:3: boom");
        let from_pcall =
            "stack traceback:\n\t[C]: in function 'mv'\n\t[C]: in function 'pcall'\n\tx.lua:1: in main chunk";
        assert_eq!(located("mv: bad".into(), from_pcall), "mv: bad");
        assert_eq!(located("mv: bad".into(), "<traceback unavailable>"), "mv: bad");
        let from_wrapper = "stack traceback:\n\t[C]: in function 'connect'\n\t[luatorch]/cluster/init.lua:257: in function 'client'\n\t[C]: in function 'pcall'";
        assert_eq!(located("no answer".into(), from_wrapper), "no answer");
    }
}
