//! The native half of `paths`: path arithmetic and the file-system queries that need the OS.
//! `lua/paths/init.lua` builds the rest of the Torch API (files, iterdirs, thisfile, dofile, ...)
//! on top.
//!
//! Paths travel as bytes, so names that are not UTF-8 survive a round trip through Lua.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use mlua::{Lua, MultiValue, Result, Table, Value, Variadic};

use crate::calls;

/// Argument `pos` of `fname` as bytes: a string, or a number converted as Lua would.
pub(crate) fn arg_bytes(lua: &Lua, fname: &str, pos: usize, v: Value) -> Result<Vec<u8>> {
    let tn = v.type_name();
    match v {
        Value::String(s) => Ok(s.as_bytes().to_vec()),
        v @ (Value::Integer(_) | Value::Number(_)) => match lua.coerce_string(v)? {
            Some(s) => Ok(s.as_bytes().to_vec()),
            None => Err(bad_arg(fname, pos, "string expected, got number")),
        },
        _ => Err(bad_arg(fname, pos, &format!("string expected, got {tn}"))),
    }
}

pub(crate) fn bad_arg(fname: &str, pos: usize, what: &str) -> mlua::Error {
    mlua::Error::runtime(format!("{fname}: bad argument #{pos} ({what})"))
}

/// An optional string argument: `None` for nil or absent.
fn opt_arg_bytes(lua: &Lua, fname: &str, pos: usize, v: Option<Value>) -> Result<Option<Vec<u8>>> {
    match v {
        None | Some(Value::Nil) => Ok(None),
        Some(v) => arg_bytes(lua, fname, pos, v).map(Some),
    }
}

fn os_path(bytes: &[u8]) -> &Path {
    Path::new(OsStr::from_bytes(bytes))
}

fn lua_bytes(lua: &Lua, bytes: &[u8]) -> Result<Value> {
    Ok(Value::String(lua.create_string(bytes)?))
}

/// The current directory; `$PWD` and then `.` when it cannot be read (it was removed, say).
fn cwd_bytes() -> Vec<u8> {
    match std::env::current_dir() {
        Ok(p) => p.into_os_string().into_vec(),
        Err(_) => match std::env::var_os("PWD") {
            Some(p) if p.as_bytes().starts_with(b"/") => p.into_vec(),
            _ => b".".to_vec(),
        },
    }
}

/// Resolves `next` against the absolute path `base` (an absolute `next` replaces it) and normalises
/// the result lexically: `.` dropped, `..` removes a component (never above `/`), repeated `/`
/// collapsed, no trailing `/`.
pub fn concat_one(base: &[u8], next: &[u8]) -> Vec<u8> {
    let mut parts: Vec<&[u8]> = Vec::new();
    let start: &[u8] = if next.starts_with(b"/") { b"" } else { base };
    let relative_base = !start.is_empty() && !start.starts_with(b"/");
    for piece in start.split(|&c| c == b'/').chain(next.split(|&c| c == b'/')) {
        match piece {
            b"" | b"." => {}
            b".." => {
                if matches!(parts.last(), Some(p) if *p != b"..") {
                    parts.pop();
                } else if relative_base {
                    // Only reachable when the cwd itself could not be made absolute.
                    parts.push(piece);
                }
            }
            p => parts.push(p),
        }
    }
    let mut out = Vec::new();
    if relative_base {
        out.extend_from_slice(&parts.join(&b'/'));
        if out.is_empty() {
            out.push(b'.');
        }
    } else {
        for p in parts {
            out.push(b'/');
            out.extend_from_slice(p);
        }
        if out.is_empty() {
            out.push(b'/');
        }
    }
    out
}

/// `paths.concat(p1, ..., pn)`: an absolute, normalised path starting from the current directory.
pub fn concat_all(pieces: &[Vec<u8>]) -> Vec<u8> {
    let mut path = concat_one(&cwd_bytes(), b"");
    for p in pieces {
        path = concat_one(&path, p);
    }
    path
}

/// POSIX `dirname`: `a/b/` -> `a`, `a` -> `.`, `/a` -> `/`, `/` -> `/`.
pub fn dirname(p: &[u8]) -> Vec<u8> {
    let trimmed = trim_trailing_slashes(p);
    if trimmed.is_empty() {
        return if p.is_empty() { b".".to_vec() } else { b"/".to_vec() };
    }
    match trimmed.iter().rposition(|&c| c == b'/') {
        None => b".".to_vec(),
        Some(i) => {
            let dir = trim_trailing_slashes(&trimmed[..i]);
            if dir.is_empty() { b"/".to_vec() } else { dir.to_vec() }
        }
    }
}

fn trim_trailing_slashes(p: &[u8]) -> &[u8] {
    let end = p.iter().rposition(|&c| c != b'/').map_or(0, |i| i + 1);
    &p[..end]
}

/// The last component, trailing `/` ignored (`/` for a path of slashes only). With a suffix (with
/// or without its leading dot), `name.suffix` loses `.suffix`.
pub fn basename(p: &[u8], suffix: Option<&[u8]>) -> Vec<u8> {
    let trimmed = trim_trailing_slashes(p);
    if trimmed.is_empty() {
        return if p.is_empty() { Vec::new() } else { b"/".to_vec() };
    }
    let name = match trimmed.iter().rposition(|&c| c == b'/') {
        Some(i) => &trimmed[i + 1..],
        None => trimmed,
    };
    if let Some(suffix) = suffix {
        let suffix = suffix.strip_prefix(b".").unwrap_or(suffix);
        if !suffix.is_empty() && name.len() > suffix.len() + 1 && name.ends_with(suffix) {
            let dot = name.len() - suffix.len() - 1;
            if name[dot] == b'.' {
                return name[..dot].to_vec();
            }
        }
    }
    name.to_vec()
}

/// The extension of the last component, without its dot; `None` when there is none.
pub fn extname(p: &[u8]) -> Option<Vec<u8>> {
    let name = basename(p, None);
    let dot = name.iter().rposition(|&c| c == b'.')?;
    let ext = &name[dot + 1..];
    if ext.is_empty() { None } else { Some(ext.to_vec()) }
}

/// `nil, "path: reason", errno`, the way Torch's paths reports a failed system call.
fn failure(lua: &Lua, path: &[u8], err: &std::io::Error) -> Result<MultiValue> {
    let mut msg = path.to_vec();
    msg.extend_from_slice(format!(": {}", strerror(err)).as_bytes());
    Ok(MultiValue::from_vec(vec![
        Value::Nil,
        lua_bytes(lua, &msg)?,
        Value::Integer(err.raw_os_error().unwrap_or(0).into()),
    ]))
}

/// The C library's text for an error (`No such file or directory`), without Rust's `(os error 2)`.
fn strerror(err: &std::io::Error) -> String {
    match err.raw_os_error() {
        Some(code) => {
            let full = std::io::Error::from_raw_os_error(code).to_string();
            match full.rfind(" (os error") {
                Some(i) => full[..i].to_string(),
                None => full,
            }
        }
        None => err.to_string(),
    }
}

fn success() -> Result<MultiValue> {
    Ok(MultiValue::from_vec(vec![Value::Boolean(true)]))
}

/// `mkdir -p`: missing parents are created first.
fn mkdir(p: &[u8]) -> std::io::Result<()> {
    let path = os_path(p);
    let parent = dirname(p);
    if parent != p && !os_path(&parent).is_dir() {
        // A failure here shows up as the final mkdir's error.
        let _ = mkdir(&parent);
    }
    std::fs::create_dir(path)
}

/// Temporary names handed out by `paths.tmpname`, across all Lua states: removed at process exit
/// (which also covers `os.exit`), or earlier when the state that asked for them closes. Each name
/// keeps the id of the process that made it, so a forked child that exits leaves them alone.
static TMPNAMES: Mutex<Vec<(u32, PathBuf)>> = Mutex::new(Vec::new());
static ATEXIT: std::sync::Once = std::sync::Once::new();

fn tmpnames() -> std::sync::MutexGuard<'static, Vec<(u32, PathBuf)>> {
    TMPNAMES.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

extern "C" fn remove_tmpnames_at_exit() {
    let names = std::mem::take(&mut *tmpnames());
    let me = std::process::id();
    for (pid, p) in names {
        if pid == me {
            remove_tmp(&p);
        }
    }
}

fn remove_tmp(p: &Path) {
    if std::fs::remove_file(p).is_err() {
        let _ = std::fs::remove_dir(p);
    }
}

/// Lives in a state's registry; closing the state removes the names it handed out.
struct StateTmpNames(Vec<(u32, PathBuf)>);

impl Drop for StateTmpNames {
    fn drop(&mut self) {
        let me = std::process::id();
        let mut global = tmpnames();
        for entry in &self.0 {
            if entry.0 == me {
                remove_tmp(&entry.1);
                global.retain(|g| g != entry);
            }
        }
    }
}

const TMPNAMES_KEY: &str = "luatorch.paths.tmpnames";

fn tmpname(lua: &Lua) -> Result<Value> {
    let dir = std::env::var_os("TMPDIR")
        .filter(|d| !d.is_empty() && Path::new(d).is_dir())
        .unwrap_or_else(|| OsString::from("/tmp"));
    let mut template = dir.into_vec();
    if !template.ends_with(b"/") {
        template.push(b'/');
    }
    template.extend_from_slice(b"luatmpXXXXXX\0");
    // SAFETY: `template` is a writable NUL-terminated buffer ending in XXXXXX, as mkstemp wants.
    let fd = unsafe { libc::mkstemp(template.as_mut_ptr().cast()) };
    if fd < 0 {
        let e = std::io::Error::last_os_error();
        return Err(mlua::Error::runtime(format!(
            "paths.tmpname: cannot create a temporary file: {}",
            strerror(&e)
        )));
    }
    // SAFETY: fd was just returned by mkstemp and is owned here.
    unsafe { libc::close(fd) };
    template.pop();
    let path = PathBuf::from(OsString::from_vec(template.clone()));

    ATEXIT.call_once(|| {
        // SAFETY: registering a plain extern "C" function without arguments.
        unsafe { libc::atexit(remove_tmpnames_at_exit) };
    });
    let entry = (std::process::id(), path);
    tmpnames().push(entry.clone());
    let sentinel = match lua.named_registry_value::<Option<mlua::AnyUserData>>(TMPNAMES_KEY)? {
        Some(ud) => ud,
        None => {
            let ud = lua.create_any_userdata(StateTmpNames(Vec::new()))?;
            lua.set_named_registry_value(TMPNAMES_KEY, &ud)?;
            ud
        }
    };
    sentinel.borrow_mut::<StateTmpNames>()?.0.push(entry);
    lua_bytes(lua, &template)
}

/// `paths.rmall(d, 'yes')`: removes a file or a whole tree; symbolic links are removed, never
/// followed.
fn rmall(lua: &Lua, p: &[u8], confirm: Option<&[u8]>) -> Result<MultiValue> {
    if confirm != Some(b"yes") {
        return Ok(MultiValue::from_vec(vec![
            Value::Nil,
            Value::String(lua.create_string("missing second argument ('yes')")?),
        ]));
    }
    let path = os_path(p);
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(_) => {
            return Ok(MultiValue::from_vec(vec![
                Value::Nil,
                Value::String(lua.create_string("not a file or directory")?),
                lua_bytes(lua, p)?,
            ]));
        }
    };
    let result = if meta.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    };
    match result {
        Ok(()) => success(),
        Err(e) => failure(lua, p, &e),
    }
}

/// sysname, nodename, machine.
pub fn uname() -> (String, String, String) {
    // SAFETY: utsname is plain data; uname fills it with NUL-terminated strings.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut u) } != 0 {
        return ("Unknown".into(), String::new(), String::new());
    }
    fn field(f: &[libc::c_char]) -> String {
        let bytes: Vec<u8> = f.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
    (field(&u.sysname), field(&u.nodename), field(&u.machine))
}

fn is_executable_file(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(p) {
        Ok(m) => m.is_file() && m.permissions().mode() & 0o111 != 0,
        Err(_) => false,
    }
}

/// The first of `names` found as an executable in `$PATH` (a name with a `/` is checked as is).
fn findprogram(names: &[Vec<u8>]) -> Option<Vec<u8>> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| OsString::from("/usr/bin:/bin"));
    for name in names {
        if name.is_empty() {
            continue;
        }
        if name.contains(&b'/') {
            if is_executable_file(os_path(name)) {
                return Some(concat_all(std::slice::from_ref(name)));
            }
            continue;
        }
        for dir in path.as_bytes().split(|&c| c == b':') {
            let dir: &[u8] = if dir.is_empty() { b"." } else { dir };
            let candidate = concat_all(&[dir.to_vec(), name.clone()]);
            if is_executable_file(os_path(&candidate)) {
                return Some(candidate);
            }
        }
    }
    None
}

/// The directory of the running executable.
pub fn execdir() -> Option<PathBuf> {
    std::env::current_exe().ok()?.parent().map(Path::to_path_buf)
}

/// Loads `[luatorch]/dir/file.lua`, a file embedded in the binary, as a function; nil if there is
/// no such file. `paths.dofile` uses it for files next to an embedded caller.
fn load_embedded(lua: &Lua, rel: &[u8]) -> Result<Value> {
    let Ok(rel) = std::str::from_utf8(rel) else {
        return Ok(Value::Nil);
    };
    let rel = rel.strip_prefix("[luatorch]/").unwrap_or(rel);
    let normalized = concat_one(b"/", rel.as_bytes());
    let Ok(normalized) = std::str::from_utf8(&normalized[1..]) else {
        return Ok(Value::Nil);
    };
    Ok(match super::embedded::load_file(lua, normalized)? {
        Some(f) => Value::Function(f),
        None => Value::Nil,
    })
}

pub fn open(lua: &Lua) -> Result<Table> {
    let t = lua.create_table()?;
    calls::add(lua, &t, "cwd", paths_cwd)?;
    calls::add(lua, &t, "concat", paths_concat)?;
    calls::add(lua, &t, "dirname", paths_dirname)?;
    calls::add(lua, &t, "basename", paths_basename)?;
    calls::add(lua, &t, "extname", paths_extname)?;
    calls::add(lua, &t, "filep", paths_filep)?;
    calls::add(lua, &t, "dirp", paths_dirp)?;
    calls::add(lua, &t, "dir", paths_dir)?;
    calls::add(lua, &t, "mkdir", paths_mkdir)?;
    calls::add(lua, &t, "rmdir", paths_rmdir)?;
    calls::add(lua, &t, "rmall", paths_rmall)?;
    calls::add(lua, &t, "tmpname", paths_tmpname)?;
    calls::add(lua, &t, "uname", paths_uname)?;
    calls::add(lua, &t, "execdir", paths_execdir)?;
    calls::add(lua, &t, "findprogram", paths_findprogram)?;
    calls::add(lua, &t, "loadembedded", paths_loadembedded)?;
    Ok(t)
}

// The Lua functions are named paths_<name>: the plain names are the byte helpers above.

/// `paths.cwd() -> dir`
fn paths_cwd(lua: &Lua, (): ()) -> Result<Value> {
    lua_bytes(lua, &cwd_bytes())
}

/// Every argument of `fname` as bytes.
fn all_arg_bytes(lua: &Lua, fname: &str, args: Variadic<Value>) -> Result<Vec<Vec<u8>>> {
    args.into_iter()
        .enumerate()
        .map(|(i, v)| arg_bytes(lua, fname, i + 1, v))
        .collect()
}

/// `paths.concat(p1, p2, ...) -> path`: each relative piece joined to the path so far.
fn paths_concat(lua: &Lua, args: Variadic<Value>) -> Result<Value> {
    let pieces = all_arg_bytes(lua, "paths.concat", args)?;
    lua_bytes(lua, &concat_all(&pieces))
}

/// `paths.dirname(p) -> dir`
fn paths_dirname(lua: &Lua, p: Value) -> Result<Value> {
    let p = arg_bytes(lua, "paths.dirname", 1, p)?;
    lua_bytes(lua, &dirname(&p))
}

/// `paths.basename(p, [suffix]) -> name`
fn paths_basename(lua: &Lua, (p, suffix): (Value, Option<Value>)) -> Result<Value> {
    let p = arg_bytes(lua, "paths.basename", 1, p)?;
    let suffix = opt_arg_bytes(lua, "paths.basename", 2, suffix)?;
    lua_bytes(lua, &basename(&p, suffix.as_deref()))
}

/// `paths.extname(p) -> ext | nil`
fn paths_extname(lua: &Lua, p: Value) -> Result<Value> {
    let p = arg_bytes(lua, "paths.extname", 1, p)?;
    match extname(&p) {
        Some(e) => lua_bytes(lua, &e),
        None => Ok(Value::Nil),
    }
}

/// `paths.filep(p) -> bool`: something other than a directory is there.
fn paths_filep(lua: &Lua, p: Value) -> Result<bool> {
    let p = arg_bytes(lua, "paths.filep", 1, p)?;
    Ok(std::fs::metadata(os_path(&p)).is_ok_and(|m| !m.is_dir()))
}

/// `paths.dirp(p) -> bool`
fn paths_dirp(lua: &Lua, p: Value) -> Result<bool> {
    let p = arg_bytes(lua, "paths.dirp", 1, p)?;
    Ok(std::fs::metadata(os_path(&p)).is_ok_and(|m| m.is_dir()))
}

/// `paths.dir(p) -> {".", "..", names...} | nil`: the sorted entries of a directory.
fn paths_dir(lua: &Lua, p: Value) -> Result<Value> {
    let p = arg_bytes(lua, "paths.dir", 1, p)?;
    let Ok(entries) = std::fs::read_dir(os_path(&p)) else {
        return Ok(Value::Nil);
    };
    let mut names: Vec<Vec<u8>> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().into_vec())
        .collect();
    names.sort();
    let list = lua.create_table_with_capacity(names.len() + 2, 0)?;
    list.raw_push(".")?;
    list.raw_push("..")?;
    for n in names {
        list.raw_push(lua.create_string(&n)?)?;
    }
    Ok(Value::Table(list))
}

/// `paths.mkdir(p) -> true | nil, why`
fn paths_mkdir(lua: &Lua, p: Value) -> Result<MultiValue> {
    let p = arg_bytes(lua, "paths.mkdir", 1, p)?;
    if p.is_empty() {
        return Err(bad_arg("paths.mkdir", 1, "empty path"));
    }
    match mkdir(&p) {
        Ok(()) => success(),
        Err(e) => failure(lua, &p, &e),
    }
}

/// `paths.rmdir(p) -> true | nil, why`
fn paths_rmdir(lua: &Lua, p: Value) -> Result<MultiValue> {
    let p = arg_bytes(lua, "paths.rmdir", 1, p)?;
    match std::fs::remove_dir(os_path(&p)) {
        Ok(()) => success(),
        Err(e) => failure(lua, &p, &e),
    }
}

/// `paths.rmall(p, 'yes')`: removes `p` and all below it, when confirmed.
fn paths_rmall(lua: &Lua, (p, confirm): (Value, Option<Value>)) -> Result<MultiValue> {
    let p = arg_bytes(lua, "paths.rmall", 1, p)?;
    let confirm = match confirm {
        Some(Value::String(s)) => Some(s.as_bytes().to_vec()),
        _ => None,
    };
    rmall(lua, &p, confirm.as_deref())
}

/// `paths.tmpname() -> path`
fn paths_tmpname(lua: &Lua, (): ()) -> Result<Value> {
    tmpname(lua)
}

/// `paths.uname() -> sysname, nodename, machine`
fn paths_uname(_: &Lua, (): ()) -> Result<(String, String, String)> {
    Ok(uname())
}

/// `paths.execdir() -> dir | nil`: the directory of the running binary.
fn paths_execdir(lua: &Lua, (): ()) -> Result<Value> {
    match execdir() {
        Some(d) => lua_bytes(lua, d.as_os_str().as_bytes()),
        None => Ok(Value::Nil),
    }
}

/// `paths.findprogram(name, ...) -> path | nil`: the first of the names found on PATH.
fn paths_findprogram(lua: &Lua, args: Variadic<Value>) -> Result<Value> {
    let names = all_arg_bytes(lua, "paths.findprogram", args)?;
    match findprogram(&names) {
        Some(p) => lua_bytes(lua, &p),
        None => Ok(Value::Nil),
    }
}

/// `paths.loadembedded(path) -> function | nil`: a file embedded in the binary, loaded.
fn paths_loadembedded(lua: &Lua, p: Value) -> Result<Value> {
    let p = arg_bytes(lua, "paths.loadembedded", 1, p)?;
    load_embedded(lua, &p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(base: &str, next: &str) -> String {
        String::from_utf8(concat_one(base.as_bytes(), next.as_bytes())).unwrap()
    }

    #[test]
    fn concat_normalises() {
        assert_eq!(c("/a", "b"), "/a/b");
        assert_eq!(c("/a/", "b/"), "/a/b");
        assert_eq!(c("/a", "/b"), "/b");
        assert_eq!(c("/a/b", ".."), "/a");
        assert_eq!(c("/", "../.."), "/");
        assert_eq!(c("/a", "./b//c/./"), "/a/b/c");
        assert_eq!(c("/a", ""), "/a");
        assert_eq!(c("//a//", ""), "/a");
        assert_eq!(c("/a", "b/../../c"), "/c");
    }

    #[test]
    fn names() {
        let d = |p: &str| String::from_utf8(dirname(p.as_bytes())).unwrap();
        assert_eq!(d("/a/b"), "/a");
        assert_eq!(d("/a/b/"), "/a");
        assert_eq!(d("a"), ".");
        assert_eq!(d("/a"), "/");
        assert_eq!(d("/"), "/");
        assert_eq!(d("a//b"), "a");
        let b = |p: &str, s: Option<&str>| String::from_utf8(basename(p.as_bytes(), s.map(str::as_bytes))).unwrap();
        assert_eq!(b("/a/b.lua", None), "b.lua");
        assert_eq!(b("/a/b.lua", Some("lua")), "b");
        assert_eq!(b("/a/b.lua", Some(".lua")), "b");
        assert_eq!(b("/a/b.lua", Some("txt")), "b.lua");
        assert_eq!(b("/a/b/", None), "b");
        assert_eq!(b("/", None), "/");
        let e = |p: &str| extname(p.as_bytes()).map(|v| String::from_utf8(v).unwrap());
        assert_eq!(e("a/b.tar.gz").as_deref(), Some("gz"));
        assert_eq!(e("a.b/c"), None);
        assert_eq!(e("noext"), None);
    }

    #[test]
    fn tmpnames_go_when_their_state_closes() {
        let lua = Lua::new();
        let tmpname: mlua::Function = open(&lua).unwrap().get("tmpname").unwrap();
        let name: String = tmpname.call(()).unwrap();
        assert!(Path::new(&name).is_file());
        drop(tmpname);
        drop(lua);
        assert!(!Path::new(&name).exists(), "{name} outlived its state");
        assert!(!tmpnames().iter().any(|(_, p)| p == Path::new(&name)));
    }
}
