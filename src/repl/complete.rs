//! Tab completion: globals and keywords, `a.b.c` fields, `obj:method` names, and file names inside
//! an open string. Candidates for Lua names come from `lua/trepl/complete.lua`, which only does raw
//! table accesses; it is called protected, so completing never raises, and its loops are bounded.

use std::path::Path;

use mlua::{Function, Lua};
use rustyline::completion::{Completer, Pair};
use rustyline::{Context, Helper, Highlighter, Hinter, Validator};

/// The editor's helper. Validation stays rustyline's default (always complete): the REPL loop does
/// its own continuation so that it can show the `..> ` prompt (see `mod.rs`).
#[derive(Helper, Highlighter, Hinter, Validator)]
pub struct LuaHelper {
    candidates: Option<Function>,
}

impl LuaHelper {
    pub fn new(lua: &Lua) -> Self {
        let candidates = lua
            .globals()
            .raw_get::<Function>("require")
            .and_then(|require| require.call::<Function>("trepl.complete"))
            .ok();
        LuaHelper { candidates }
    }

    pub fn lua_names(&self, path: &str, sep: &str, partial: &str) -> Vec<String> {
        match &self.candidates {
            Some(f) => f.call::<Vec<String>>((path, sep, partial)).unwrap_or_default(),
            None => Vec::new(),
        }
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// What the text before the cursor asks to complete.
#[derive(Debug, PartialEq)]
pub enum Target<'a> {
    /// `path sep partial`: path is '' or a dotted name, sep is '', '.' or ':'.
    Name {
        start: usize,
        path: &'a str,
        sep: &'a str,
        partial: &'a str,
    },
    /// A file name: the text from the opening quote to the cursor.
    File {
        start: usize,
        text: &'a str,
    },
    Nothing,
}

/// Where the cursor is: in an unclosed string (returns the offset after its quote), or in code.
/// Long strings (`[[...]]`) and comments are not tracked; a `--` outside strings ends the scan.
fn open_string(before: &str) -> Option<usize> {
    let mut quote: Option<(char, usize)> = None;
    let mut chars = before.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match quote {
            Some((q, _)) => {
                if c == '\\' {
                    chars.next();
                } else if c == q || c == '\n' {
                    quote = None;
                }
            }
            None => {
                if c == '"' || c == '\'' {
                    quote = Some((c, i + 1));
                } else if c == '-' && matches!(chars.peek(), Some((_, '-'))) {
                    return None;
                }
            }
        }
    }
    quote.map(|(_, start)| start)
}

/// Parses the text before the cursor into what to complete.
pub fn target(line: &str, pos: usize) -> Target<'_> {
    let Some(before) = line.get(..pos) else {
        return Target::Nothing;
    };
    if let Some(start) = open_string(before) {
        return Target::File {
            start,
            text: &before[start..],
        };
    }
    let word_start = before
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_name_char(c) || c == '.' || c == ':')
        .last()
        .map_or(pos, |(i, _)| i);
    let word = &before[word_start..];
    // `x = 1.5<Tab>` or `a..b` is not a name.
    if word.starts_with(|c: char| c.is_ascii_digit() || c == '.' || c == ':') || word.contains("..") {
        return Target::Nothing;
    }
    let (path, sep, partial) = match word.rfind(['.', ':']) {
        Some(i) => (&word[..i], &word[i..i + 1], &word[i + 1..]),
        None => ("", "", word),
    };
    if path.contains(':') || (!path.is_empty() && path.split('.').any(|p| p.is_empty())) {
        return Target::Nothing;
    }
    Target::Name {
        start: pos - partial.len(),
        path,
        sep,
        partial,
    }
}

/// File names starting with `text` (which may contain directories), folders ending in `/`.
pub fn file_names(text: &str) -> (usize, Vec<Pair>) {
    let (dir, base_start) = match text.rfind('/') {
        Some(i) => (&text[..=i], i + 1),
        None => ("", 0),
    };
    let partial = &text[base_start..];
    let dir_path = if dir.is_empty() { Path::new(".") } else { Path::new(dir) };
    let mut names: Vec<Pair> = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir_path) {
        for entry in entries.flatten().take(5000) {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.starts_with(partial) || (partial.is_empty() && name.starts_with('.')) {
                continue;
            }
            let is_dir = entry.path().is_dir();
            let shown = if is_dir { format!("{name}/") } else { name };
            names.push(Pair {
                display: shown.clone(),
                replacement: shown,
            });
        }
    }
    names.sort_by(|a, b| a.display.cmp(&b.display));
    (base_start, names)
}

impl Completer for LuaHelper {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        match target(line, pos) {
            Target::Name {
                start,
                path,
                sep,
                partial,
            } => {
                let names = self.lua_names(path, sep, partial);
                let pairs = names
                    .into_iter()
                    .map(|n| Pair {
                        display: n.clone(),
                        replacement: n,
                    })
                    .collect();
                Ok((start, pairs))
            }
            Target::File { start, text } => {
                let (offset, names) = file_names(text);
                Ok((start + offset, names))
            }
            Target::Nothing => Ok((pos, Vec::new())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Point;

    impl mlua::UserData for Point {
        fn add_fields<F: mlua::UserDataFields<Self>>(fields: &mut F) {
            fields.add_field_method_get("x", |_, _| Ok(1));
        }

        fn add_methods<M: mlua::UserDataMethods<Self>>(methods: &mut M) {
            methods.add_method("narrow", |_, _, ()| Ok(()));
            methods.add_method("nDimension", |_, _, ()| Ok(1));
        }
    }

    fn candidates(lua: &Lua, path: &str, sep: &str, partial: &str) -> Vec<String> {
        let f: Function = lua.load(include_str!("../../lua/trepl/complete.lua")).eval().unwrap();
        f.call((path, sep, partial)).unwrap()
    }

    #[test]
    fn lua_candidates() {
        // SAFETY: the debug library is needed, as in `th`.
        let lua = unsafe { Lua::unsafe_new() };
        lua.globals().set("pt", Point).unwrap();
        lua.load(
            r#"
            Base = {}; Base.__index = Base
            function Base:describe() end
            Derived = setmetatable({}, Base); Derived.__index = Derived
            function Derived:draw() end
            obj = setmetatable({ data = 1, dance = 2 }, Derived)
            loopy = setmetatable({}, { __index = setmetatable({}, { __index = function() end }) })
            A = {}; B = setmetatable({ bee = 1 }, { __index = A }); setmetatable(A, { __index = B })
            nested = { inner = { value = 1, valid = true } }
            "#,
        )
        .exec()
        .unwrap();
        assert_eq!(candidates(&lua, "string", ".", "fo"), ["format"]);
        assert_eq!(candidates(&lua, "", "", "whi"), ["while"]);
        assert_eq!(candidates(&lua, "", "", "nes"), ["nested"]);
        assert_eq!(candidates(&lua, "nested.inner", ".", "va"), ["valid", "value"]);
        assert_eq!(candidates(&lua, "obj", ":", "d"), ["describe", "draw"]);
        assert_eq!(candidates(&lua, "obj", ".", "da"), ["dance", "data"]);
        assert_eq!(candidates(&lua, "pt", ":", "n"), ["nDimension", "narrow"]);
        assert!(candidates(&lua, "loopy", ":", "").is_empty());
        assert_eq!(candidates(&lua, "B", ".", "b"), ["bee"]);
        assert!(candidates(&lua, "nosuch.deeper", ".", "").is_empty());
    }

    fn name(line: &str) -> (String, String, String) {
        match target(line, line.len()) {
            Target::Name { path, sep, partial, .. } => (path.into(), sep.into(), partial.into()),
            other => panic!("{line:?} gave {other:?}"),
        }
    }

    #[test]
    fn parses_names() {
        assert_eq!(name("torch.Flo"), ("torch".into(), ".".into(), "Flo".into()));
        assert_eq!(name("x = t:na"), ("t".into(), ":".into(), "na".into()));
        assert_eq!(name("print(a.b.c"), ("a.b".into(), ".".into(), "c".into()));
        assert_eq!(name("pri"), ("".into(), "".into(), "pri".into()));
        assert_eq!(name("f("), ("".into(), "".into(), "".into()));
        assert_eq!(name("a."), ("a".into(), ".".into(), "".into()));
    }

    #[test]
    fn rejects_what_is_not_a_name() {
        assert_eq!(target("x = 1.5", 7), Target::Nothing);
        assert_eq!(target("a..b", 4), Target::Nothing);
        assert_eq!(target("a:b.c", 5), Target::Nothing);
        assert_eq!(target("f():", 4), Target::Nothing);
    }

    #[test]
    fn finds_open_strings() {
        assert_eq!(
            target("dofile('src/ma", 14),
            Target::File {
                start: 8,
                text: "src/ma"
            }
        );
        assert_eq!(name("print('a', 'b') str"), ("".into(), "".into(), "str".into()));
        assert_eq!(name("x = \"it\\\"s\" .. y"), ("".into(), "".into(), "y".into()));
        assert_eq!(name("x = 1 -- 'str"), ("".into(), "".into(), "str".into()));
    }
}
