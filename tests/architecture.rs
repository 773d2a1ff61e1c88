//! The shape of `src/`, checked as CI runs the tests (ARCHITECTURE.md says why each rule holds):
//! - no import circles between files: a file's module paths (`crate::a::b`, `super::c`, in `use`
//!   lines and in code) name the files it depends on, and those dependencies form no cycle;
//! - no file over MAX_LINES lines;
//! - the layers that must not know Lua (the kernels, the wire format) do not name mlua;
//! - the folders of `src/` are layered: a file may only name files of its own folder or of the
//!   folders below its own in LAYERS;
//! - Lua functions are registered one way (src/calls.rs): outside that file, `create_function(`
//!   stands only on a line marked `// calls: <why>` (on it or just above it).
//!
//! The lists of exceptions below are what the code had when the check was written; they may only
//! shrink.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Longest file, in lines, tests included.
const MAX_LINES: usize = 800;

/// Files still over MAX_LINES (each to be split).
const OVERSIZE: &[&str] = &[];

/// Import circles still there, each as its files (sorted).
const CIRCLES: &[&[&str]] = &[];

/// Folders whose files must not use mlua: code below the Lua layer.
const NO_LUA: &[&str] = &[
    "src/cuda/kernels",
    "src/cuda/ops",
    "src/image/kernels",
    "src/torch/base",
    "src/torch/kernels",
    "src/wire",
];

/// The top-level folders (and single-file modules) of `src/`, from the top down: the binaries and
/// the REPL over the composition root (runtime, which opens every native module), the native
/// modules, then the value format, torch's tensors, and the leaves every layer may use. Native
/// modules on neighbouring lines that do not import each other (cluster and ipc, image and the
/// rest) keep an order that is arbitrary but fixed.
const LAYERS: &[&str] = &[
    "bin",
    "jupyter",
    "repl",
    "rocks",
    "runtime",
    "threads",
    "cluster",
    "ipc",
    "parallel",
    "process",
    "image",
    "tds",
    "cuda",
    "wire",
    "torch",
    "fastcall",
    "reserve",
    "interrupt",
    "settings",
    "calls",
    "args",
    "error",
];

/// Files whose Lua functions are still made by `create_function` unmarked (none now; it may only
/// stay empty).
const UNMARKED_FUNCTIONS: &[&str] = &[];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `src/a/b.rs` or `src/a/b/mod.rs` -> ["a", "b"]; `src/lib.rs` and `src/main.rs` -> [].
fn module_of(rel: &str) -> Vec<String> {
    let trimmed = rel.trim_start_matches("src/").trim_end_matches(".rs");
    let mut parts: Vec<String> = trimmed.split('/').map(String::from).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// The code of a file without comments, string contents and its `#[cfg(test)]` tail (a test
/// module's `super` is the file itself).
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'r' && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#')) {
            // A raw string r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') || (i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) {
                out.push(b[i] as char);
                i += 1;
                continue;
            }
            j += 1;
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            while j < b.len() && !b[j..].starts_with(&close) {
                j += 1;
            }
            i = j + close.len();
            out.push_str("\"\"");
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && b.get(i + 2) == Some(&b'\'') {
            // A char literal such as '"'.
            i += 3;
        } else if b[i] == b'\'' && b.get(i + 1) == Some(&b'\\') {
            i += 2;
            while i < b.len() && b[i] != b'\'' {
                i += 1;
            }
            i += 1;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// The child modules a file declares (`mod x;`, `pub(crate) mod x;`).
fn children_of(code: &str) -> Vec<String> {
    code.split(';')
        .filter_map(|stmt| {
            let words: Vec<&str> = stmt.split_whitespace().collect();
            match words.as_slice() {
                [.., "mod", name] if name.chars().all(|c| c.is_alphanumeric() || c == '_') => Some(name.to_string()),
                _ => None,
            }
        })
        .collect()
}

/// Every module path the code names, expanded from `use` trees: `crate::a::{b, c::d}` gives
/// `crate::a::b` and `crate::a::c::d`; a path in code (`super::memory::drv(...)`) gives itself;
/// a path through a child module the file declares (`kernel::apply`) is `self::kernel::apply`.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let children = children_of(code);
    let mut out = Vec::new();
    let b: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < b.len() {
        let starts_word = i == 0 || !(b[i - 1].is_alphanumeric() || b[i - 1] == '_' || b[i - 1] == ':');
        if starts_word && (at(&b, i, "crate::") || at(&b, i, "super::") || at(&b, i, "self::")) {
            let (mut found, end) = tree(&b, i);
            out.append(&mut found);
            i = end.max(i + 1);
        } else if starts_word && children.iter().any(|c| at(&b, i, &format!("{c}::"))) {
            let (found, end) = tree(&b, i);
            out.extend(found.into_iter().map(|mut p| {
                p.insert(0, "self".to_string());
                p
            }));
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

fn at(b: &[char], i: usize, word: &str) -> bool {
    word.chars().enumerate().all(|(k, c)| b.get(i + k) == Some(&c))
}

/// Parses a path or use tree starting at `i`; returns its leaves and where it ended.
fn tree(b: &[char], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let mut prefix = Vec::new();
    loop {
        while b.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        if b.get(i) == Some(&'{') {
            i += 1;
            let mut leaves = Vec::new();
            loop {
                while b.get(i).is_some_and(|c| c.is_whitespace() || *c == ',') {
                    i += 1;
                }
                match b.get(i) {
                    None => return (leaves, i),
                    Some('}') => {
                        i += 1;
                        break;
                    }
                    _ => {}
                }
                let (sub, end) = tree(b, i);
                for s in sub {
                    let mut p = prefix.clone();
                    p.extend(s);
                    leaves.push(p);
                }
                if end == i {
                    i += 1;
                } else {
                    i = end;
                }
            }
            return (leaves, i);
        }
        let start = i;
        while b.get(i).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
            i += 1;
        }
        if start == i {
            return (vec![prefix], i);
        }
        prefix.push(b[start..i].iter().collect());
        if at(b, i, "::") {
            i += 2;
        } else {
            return (vec![prefix], i);
        }
    }
}

/// The file that a module path lands in: the longest prefix that is a file's module.
fn resolve(path: &[String], from: &[String], modules: &BTreeMap<Vec<String>, String>) -> Option<String> {
    let mut abs: Vec<String> = Vec::new();
    let mut rest = path;
    if rest.first().map(String::as_str) == Some("crate") {
        rest = &rest[1..];
    } else if rest.first().map(String::as_str) == Some("self") {
        abs = from.to_vec();
        rest = &rest[1..];
    } else {
        abs = from.to_vec();
        while rest.first().map(String::as_str) == Some("super") {
            abs.pop();
            rest = &rest[1..];
        }
    }
    abs.extend(rest.iter().filter(|s| s.as_str() != "self").cloned());
    (0..=abs.len()).rev().find_map(|n| modules.get(&abs[..n]).cloned())
}

struct Tree {
    /// Path relative to the repository ("src/...") -> its text.
    files: BTreeMap<String, String>,
}

fn read_tree() -> Tree {
    let mut paths = Vec::new();
    rust_files(&src_dir(), &mut paths);
    let root = src_dir().parent().unwrap().to_path_buf();
    let files = paths
        .into_iter()
        .filter(|p| !p.ends_with("main.rs"))
        .map(|p| {
            let rel = p.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    Tree { files }
}

/// File -> the files it names.
fn graph(t: &Tree) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeMap<Vec<String>, String> = t.files.keys().map(|f| (module_of(f), f.clone())).collect();
    let mut g = BTreeMap::new();
    for (file, text) in &t.files {
        let from = module_of(file);
        // A mod.rs's `super` is its folder's parent, a leaf's its folder.
        let mut deps = BTreeSet::new();
        for p in paths_in(&code_of(text)) {
            if let Some(target) = resolve(&p, &from, &modules)
                && &target != file
            {
                deps.insert(target);
            }
        }
        g.insert(file.clone(), deps);
    }
    g
}

/// The strongly connected components of more than one file (Tarjan's algorithm).
fn circles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct S<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut S<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in s.g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = S {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// One path from `a` back to `a` inside a circle, to show which imports close it.
fn one_loop(g: &BTreeMap<String, BTreeSet<String>>, members: &[String]) -> Vec<String> {
    let inside: BTreeSet<&str> = members.iter().map(String::as_str).collect();
    let start = members[0].as_str();
    let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in g[v].iter().map(String::as_str).filter(|w| inside.contains(w)) {
            if w == start {
                let mut path = vec![start.to_string()];
                let mut cur = v;
                while cur != start {
                    path.push(cur.to_string());
                    cur = prev[cur];
                }
                path.push(start.to_string());
                let last = path.len() - 1;
                path[1..last].reverse();
                return path;
            }
            if !prev.contains_key(w) && w != start {
                prev.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    members.to_vec()
}

#[test]
fn no_import_circles_between_files() {
    let t = read_tree();
    let g = graph(&t);
    let found = circles(&g);
    let known: Vec<Vec<String>> = CIRCLES
        .iter()
        .map(|c| c.iter().map(|s| s.to_string()).collect())
        .collect();
    let new: Vec<String> = found
        .iter()
        .filter(|c| !known.contains(c))
        .map(|c| {
            format!(
                "{} files: {}\n    members: {:?}",
                c.len(),
                one_loop(&g, c).join(" -> "),
                c
            )
        })
        .collect();
    assert!(
        new.is_empty(),
        "import circles between files of src/:\n{}",
        new.join("\n")
    );
    let gone: Vec<&Vec<String>> = known.iter().filter(|c| !found.contains(c)).collect();
    assert!(
        gone.is_empty(),
        "circles no longer there (remove them from CIRCLES): {gone:?}"
    );
}

/// `src/ipc/net/conn.rs` -> "ipc", `src/error/mod.rs` -> "error", `src/interrupt.rs` -> "interrupt";
/// `src/lib.rs` (which only declares the modules) -> None.
fn folder_of(file: &str) -> Option<&str> {
    let rest = file.strip_prefix("src/")?;
    match rest.split_once('/') {
        Some((folder, _)) => Some(folder),
        None => rest.strip_suffix(".rs").filter(|m| *m != "lib"),
    }
}

#[test]
fn imports_only_point_down_the_layers() {
    let t = read_tree();
    let g = graph(&t);
    let rank = |file: &str| folder_of(file).map(|f| LAYERS.iter().position(|l| *l == f));
    let mut bad = Vec::new();
    for (file, deps) in &g {
        let from = match rank(file) {
            Some(Some(r)) => r,
            Some(None) => {
                bad.push(format!("{file}: its folder is not in LAYERS (add it where it belongs)"));
                continue;
            }
            None => continue,
        };
        for dep in deps {
            if let Some(Some(to)) = rank(dep)
                && to < from
            {
                bad.push(format!("{file} -> {dep}: {} is above {}", LAYERS[to], LAYERS[from]));
            }
        }
    }
    assert!(bad.is_empty(), "imports that run up the layers:\n{}", bad.join("\n"));
}

/// Lines of `text` outside comments (`//` in Rust, `--` in Lua) that read a `LUATORCH_` variable
/// from the environment themselves: a setting read in place.
fn settings_named_in(text: &str, comment: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split(comment).next().unwrap_or(""))
        .filter(|code| code.contains("LUATORCH_") && (code.contains("env::var") || code.contains("getenv")))
        .map(|code| code.trim().to_string())
        .collect()
}

#[test]
fn settings_are_read_from_the_one_list() {
    let t = read_tree();
    let mut bad = Vec::new();
    for (file, text) in &t.files {
        if file == "src/settings.rs" {
            continue;
        }
        let code = match text.find("#[cfg(test)]") {
            Some(i) => &text[..i],
            None => text,
        };
        bad.extend(
            settings_named_in(code, "//")
                .into_iter()
                .map(|l| format!("{file}: {l}")),
        );
    }
    let mut lua = Vec::new();
    lua_files(&src_dir().parent().unwrap().join("lua"), &mut lua);
    for path in lua {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines = settings_named_in(&text, "--");
        bad.extend(lines.into_iter().map(|l| format!("{}: {l}", path.display())));
    }
    assert!(
        bad.is_empty(),
        "LUATORCH_ settings read in place (read them through src/settings.rs, or libsettings from Lua):\n{}",
        bad.join("\n")
    );
}

fn lua_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            lua_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "lua") {
            out.push(p);
        }
    }
}

#[test]
fn no_file_over_the_limit() {
    let t = read_tree();
    let mut over = Vec::new();
    for (file, text) in &t.files {
        let n = text.lines().count();
        if n > MAX_LINES && !OVERSIZE.contains(&file.as_str()) {
            over.push(format!("{file}: {n} lines"));
        }
        if n <= MAX_LINES && OVERSIZE.contains(&file.as_str()) {
            over.push(format!("{file}: {n} lines now: remove it from OVERSIZE"));
        }
    }
    for f in OVERSIZE {
        assert!(t.files.contains_key(*f), "{f} is gone: remove it from OVERSIZE");
    }
    assert!(over.is_empty(), "files over {MAX_LINES} lines:\n{}", over.join("\n"));
}

#[test]
fn the_layers_below_lua_do_not_use_mlua() {
    let t = read_tree();
    let bad: Vec<&String> = t
        .files
        .iter()
        .filter(|(f, text)| NO_LUA.iter().any(|d| f.starts_with(&format!("{d}/"))) && code_of(text).contains("mlua"))
        .map(|(f, _)| f)
        .collect();
    assert!(bad.is_empty(), "files below the Lua layer that use mlua: {bad:?}");
}

#[test]
fn the_checker_reads_paths_and_finds_circles() {
    let p = paths_in("use crate::a::{b, c::{d, e}};\nlet x = super::f::g(1); // crate::z\n\"crate::s\"");
    let want: Vec<Vec<String>> = [
        vec!["crate", "a", "b"],
        vec!["crate", "a", "c", "d"],
        vec!["crate", "a", "c", "e"],
        vec!["super", "f", "g"],
    ]
    .iter()
    .map(|v| v.iter().map(|s| s.to_string()).collect())
    .collect();
    assert_eq!(
        paths_in(&code_of(
            "use crate::a::{b, c::{d, e}};\nlet x = super::f::g(1); // crate::z\n\"crate::s\""
        )),
        want
    );
    assert_eq!(p.len(), 6, "without code_of, comments and strings count: {p:?}");
    let modules: BTreeMap<Vec<String>, String> = ["src/a/mod.rs", "src/a/b.rs", "src/c.rs"]
        .iter()
        .map(|f| (module_of(f), f.to_string()))
        .collect();
    let from = module_of("src/a/b.rs");
    let up = vec!["super".to_string(), "x".to_string()];
    assert_eq!(resolve(&up, &from, &modules).as_deref(), Some("src/a/mod.rs"));
    let c = vec!["crate".to_string(), "c".to_string(), "f".to_string()];
    assert_eq!(resolve(&c, &from, &modules).as_deref(), Some("src/c.rs"));
    let g: BTreeMap<String, BTreeSet<String>> =
        [("a", vec!["b"]), ("b", vec!["c"]), ("c", vec!["a"]), ("d", vec!["a"])]
            .iter()
            .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
            .collect();
    assert_eq!(
        circles(&g),
        vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]
    );
    assert_eq!(one_loop(&g, &circles(&g)[0]), ["a", "b", "c", "a"]);
}

/// The lines (1-based) of `text` whose code calls `create_function(` without a `// calls:` comment
/// saying why, on that line or the one above. A file's `#[cfg(test)]` tail is not looked at.
fn unmarked_create_functions(text: &str) -> Vec<usize> {
    let code = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    let lines: Vec<&str> = code.lines().collect();
    // Marked on the line itself or on the line above.
    let marked = |i: usize| lines[i.saturating_sub(1)..=i].iter().any(|l| l.contains("// calls:"));
    (0..lines.len())
        .filter(|&i| lines[i].split("//").next().unwrap_or("").contains("create_function("))
        .filter(|&i| !marked(i))
        .map(|i| i + 1)
        .collect()
}

#[test]
fn lua_functions_are_registered_one_way() {
    let t = read_tree();
    let mut bad = Vec::new();
    for (file, text) in &t.files {
        if file == "src/calls.rs" || UNMARKED_FUNCTIONS.iter().any(|p| file.starts_with(p)) {
            continue;
        }
        bad.extend(
            unmarked_create_functions(text)
                .into_iter()
                .map(|n| format!("{file}:{n}")),
        );
    }
    assert!(
        bad.is_empty(),
        "create_function outside src/calls.rs (register a named fn with calls::add, or mark a closure \
         that must capture a per-call value with `// calls: <why>`):\n{}",
        bad.join("\n")
    );
    assert_eq!(
        unmarked_create_functions(
            "let f = lua.create_function(g)?;\n// calls: captures the queue\nlua.create_function(h)?;\n\
             x(lua.create_function(k)?); // calls: captures k\n// create_function( in a comment\n\
             #[cfg(test)]\nlua.create_function(t)?;"
        ),
        [1]
    );
}
