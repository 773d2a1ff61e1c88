//! The torch.File classes' native side. Instances are tables of the torch classes `torch.DiskFile`,
//! `torch.MemoryFile` and `torch.PipeFile` (made in lua/torch/File.lua, inheriting `torch.File`)
//! holding a `FileHandle` userdata under `__handle`; the methods here find the File's state
//! through it. The format itself lives in `crate::torch::t7`.

use std::cell::RefCell;
use std::rc::Rc;

use mlua::{Lua, MultiValue, Result, Table, Value};

use super::base::dtype::DType;
use super::base::storage::Storage;
use super::methods::{one, receiver};
use super::t7::ascii::Scalar;
use super::t7::codec::{FileCore, Kind, StringFormat};
use super::t7::context::{Ctx, FileObject, helpers};
use super::t7::file_object::{FileHandle, HANDLE};
use super::t7::stream::{BufferedStream, MemoryStream};
use super::t7::{read, write};
use super::userdata::{classify, push_storage, storage_of};
use crate::args::{Args, arg, error, int_arg, number, type_name};
use crate::calls;
use crate::dispatch;
use crate::error::Named;

type OpenFiles = RefCell<Vec<std::rc::Weak<RefCell<FileCore>>>>;

thread_local! {
    /// Disk and pipe files of this thread, flushed at process exit: `os.exit()` skips the Lua
    /// state's destructors, and Torch's stdio-buffered files do reach the disk then. A raw
    /// pointer (leaked once per thread) rather than a value with a destructor, because glibc runs
    /// thread-local destructors before atexit handlers.
    static OPEN_FILES: std::cell::Cell<*const OpenFiles> = const { std::cell::Cell::new(std::ptr::null()) };
}

fn open_files() -> &'static OpenFiles {
    OPEN_FILES.with(|cell| {
        if cell.get().is_null() {
            cell.set(Box::into_raw(Box::new(RefCell::new(Vec::new()))));
        }
        // SAFETY: leaked above, never freed, and only reached from its own thread.
        unsafe { &*cell.get() }
    })
}

extern "C" fn flush_open_files() {
    let Ok(ptr) = OPEN_FILES.try_with(|cell| cell.get()) else {
        return;
    };
    if ptr.is_null() {
        return;
    }
    // SAFETY: see open_files.
    let files = unsafe { &*ptr };
    if let Ok(files) = files.try_borrow() {
        for f in files.iter().filter_map(|w| w.upgrade()) {
            if let Ok(mut c) = f.try_borrow_mut()
                && c.is_open()
            {
                let _ = c.synchronize();
            }
        }
    }
}

fn track_for_exit(core: &Rc<RefCell<FileCore>>) {
    static REGISTER: std::sync::Once = std::sync::Once::new();
    REGISTER.call_once(|| {
        // SAFETY: registering a plain function without captured state.
        unsafe { libc::atexit(flush_open_files) };
    });
    let mut files = open_files().borrow_mut();
    files.retain(|w| w.strong_count() > 0);
    files.push(Rc::downgrade(core));
}

fn new_object(lua: &Lua, class: &Table, core: FileCore) -> Result<Value> {
    let t = lua.create_table()?;
    let core = Rc::new(RefCell::new(core));
    if core.borrow().kind != Kind::Memory {
        track_for_exit(&core);
    }
    t.raw_set(HANDLE, lua.create_userdata(FileHandle(core))?)?;
    t.set_metatable(Some(class.clone()))?;
    Ok(Value::Table(t))
}

fn core_of(a: &Args, method: &str) -> Result<Rc<RefCell<FileCore>>> {
    let this = arg(a, 1);
    if let Some(core) = super::t7::file_object::core_of(this) {
        return Ok(core);
    }
    Err(error(
        method,
        format!(
            "expected a torch.File as receiver (call it with ':'), got {}",
            type_name(this)
        ),
    ))
}

/// Runs `f` on the receiver's state, Torch-style errors named after `method`.
fn with<R>(a: &Args, method: &str, f: impl FnOnce(&mut FileCore) -> crate::error::Result<R>) -> Result<R> {
    let core = core_of(a, method)?;
    let mut c = core.try_borrow_mut().map_err(|_| error(method, "the file is in use"))?;
    f(&mut c).named(method)
}

fn boolean(v: bool) -> Result<MultiValue> {
    one(Value::Boolean(v))
}

/// Sets a flag of the receiver's state; the receiver is the result.
fn flag(a: &Args, name: &str, set: impl FnOnce(&mut FileCore)) -> Result<MultiValue> {
    with(a, name, |c| {
        set(c);
        Ok(())
    })?;
    receiver(a)
}

/// A flag of the receiver's state.
fn query(a: &Args, name: &str, get: impl FnOnce(&FileCore) -> bool) -> Result<MultiValue> {
    let v = with(a, name, |c| Ok(get(c)))?;
    boolean(v)
}

fn read_typed<T: Scalar>(lua: &Lua, a: Args) -> Result<MultiValue> {
    let d = T::DTYPE;
    let method = format!("read{}", d.name());
    let target = arg(&a, 2);
    match target {
        Value::Nil => {
            let v: T = with(&a, &method, |c| c.read_scalar::<T>())?;
            one(Value::Number(v.to_f64()))
        }
        _ if number(target).is_some() => {
            let n = int_arg(&a, 2, &method)?;
            if n < 0 {
                return Err(error(&method, format!("cannot read {n} elements")));
            }
            let (s, _) = with(&a, &method, |c| c.read_storage(d, n as usize))?;
            one(push_storage(lua, s)?)
        }
        _ => match storage_of(target) {
            Some(s) if s.dtype() == d => {
                // SAFETY: the storage is only written by this read; no Lua code runs meanwhile.
                let got = with(&a, &method, |c| c.read_into(unsafe { s.as_mut_slice::<T>() }))?;
                one(Value::Number(got as f64))
            }
            _ => Err(error(
                &method,
                format!(
                    "bad argument #1 (nothing, a number or a {} expected, got {})",
                    d.storage_typename(),
                    type_name(target)
                ),
            )),
        },
    }
}

fn write_typed<T: Scalar>(_lua: &Lua, a: Args) -> Result<MultiValue> {
    let d = T::DTYPE;
    let method = format!("write{}", d.name());
    let source = arg(&a, 2);
    let n = if let Some(v) = number(source) {
        with(&a, &method, |c| c.write_scalar(T::from_f64(v)))?
    } else {
        match storage_of(source) {
            Some(s) if s.dtype() == d => {
                // SAFETY: read-only view while it is written; no Lua code runs meanwhile.
                with(&a, &method, |c| c.write_from(unsafe { s.as_slice::<T>() }))?
            }
            _ => {
                return Err(error(
                    &method,
                    format!(
                        "bad argument #1 (a number or a {} expected, got {})",
                        d.storage_typename(),
                        type_name(source)
                    ),
                ));
            }
        }
    };
    one(Value::Number(n as f64))
}

fn install_typed(lua: &Lua, t: &Table) -> Result<()> {
    for d in DType::ALL {
        let (r, w): (super::methods::Method, super::methods::Method) =
            dispatch!(d, T => (read_typed::<T>, write_typed::<T>));
        calls::add(lua, t, &format!("read{}", d.name()), r)?;
        calls::add(lua, t, &format!("write{}", d.name()), w)?;
    }
    Ok(())
}

fn ctx_call<R>(lua: &Lua, a: &Args, method: &str, f: impl FnOnce(&Ctx) -> Result<R>) -> Result<R> {
    let core = core_of(a, method)?;
    let h = helpers(lua)?;
    let ctx = Ctx {
        lua,
        core: &core,
        file: FileObject::Given(arg(a, 1)),
        helpers: &h,
    };
    f(&ctx)
}

/// The methods every File class has (torch.File's).
fn file_methods(lua: &Lua) -> Result<Table> {
    let t = lua.create_table()?;
    install_typed(lua, &t)?;
    calls::add(lua, &t, "binary", binary)?;
    calls::add(lua, &t, "ascii", ascii)?;
    calls::add(lua, &t, "autoSpacing", auto_spacing)?;
    calls::add(lua, &t, "noAutoSpacing", no_auto_spacing)?;
    calls::add(lua, &t, "quiet", quiet)?;
    calls::add(lua, &t, "pedantic", pedantic)?;
    calls::add(lua, &t, "clearError", clear_error)?;
    calls::add(lua, &t, "hasError", has_error)?;
    calls::add(lua, &t, "isQuiet", is_quiet)?;
    calls::add(lua, &t, "isReadable", is_readable)?;
    calls::add(lua, &t, "isWritable", is_writable)?;
    calls::add(lua, &t, "isBinary", is_binary)?;
    calls::add(lua, &t, "isAutoSpacing", is_auto_spacing)?;
    calls::add(lua, &t, "isReferenced", is_referenced)?;
    calls::add(lua, &t, "referenced", referenced)?;
    calls::add(lua, &t, "longSize", long_size)?;
    calls::add(lua, &t, "seek", seek)?;
    calls::add(lua, &t, "seekEnd", seek_end)?;
    calls::add(lua, &t, "position", position)?;
    calls::add(lua, &t, "synchronize", synchronize)?;
    calls::add(lua, &t, "close", close)?;
    calls::add(lua, &t, "readBool", read_bool)?;
    calls::add(lua, &t, "writeBool", write_bool)?;
    calls::add(lua, &t, "readString", read_string)?;
    calls::add(lua, &t, "writeString", write_string)?;
    calls::add(lua, &t, "readObject", read_object)?;
    calls::add(lua, &t, "writeObject", write_object)?;
    calls::add(lua, &t, "isWritableObject", is_writable_object)?;
    Ok(t)
}

fn disk_methods(lua: &Lua) -> Result<Table> {
    let t = lua.create_table()?;
    calls::add(lua, &t, "nativeEndianEncoding", native_endian_encoding)?;
    calls::add(lua, &t, "littleEndianEncoding", little_endian_encoding)?;
    calls::add(lua, &t, "bigEndianEncoding", big_endian_encoding)?;
    calls::add(lua, &t, "isLittleEndianCPU", is_little_endian_cpu)?;
    calls::add(lua, &t, "isBigEndianCPU", is_big_endian_cpu)?;
    calls::add(lua, &t, "noBuffer", no_buffer)?;
    Ok(t)
}

fn memory_methods(lua: &Lua) -> Result<Table> {
    let t = lua.create_table()?;
    calls::add(lua, &t, "storage", storage)?;
    Ok(t)
}

/// `file:binary() -> file`: binary format.
fn binary(_: &Lua, a: Args) -> Result<MultiValue> {
    flag(&a, "binary", |c| c.binary = true)
}

/// `file:ascii() -> file`: text format.
fn ascii(_: &Lua, a: Args) -> Result<MultiValue> {
    flag(&a, "ascii", |c| c.binary = false)
}

/// `file:autoSpacing() -> file`: spaces between text items.
fn auto_spacing(_: &Lua, a: Args) -> Result<MultiValue> {
    flag(&a, "autoSpacing", |c| c.auto_spacing = true)
}

/// `file:noAutoSpacing() -> file`: no spaces between text items.
fn no_auto_spacing(_: &Lua, a: Args) -> Result<MultiValue> {
    flag(&a, "noAutoSpacing", |c| c.auto_spacing = false)
}

/// `file:quiet() -> file`: failed reads set the error flag instead of raising.
fn quiet(_: &Lua, a: Args) -> Result<MultiValue> {
    flag(&a, "quiet", |c| c.quiet = true)
}

/// `file:pedantic() -> file`: failed reads raise.
fn pedantic(_: &Lua, a: Args) -> Result<MultiValue> {
    flag(&a, "pedantic", |c| c.quiet = false)
}

/// `file:clearError() -> file`: the error flag cleared.
fn clear_error(_: &Lua, a: Args) -> Result<MultiValue> {
    flag(&a, "clearError", |c| c.has_error = false)
}

/// `file:nativeEndianEncoding() -> file`: binary numbers in this machine's byte order.
fn native_endian_encoding(_: &Lua, a: Args) -> Result<MultiValue> {
    flag(&a, "nativeEndianEncoding", |c| c.swap = false)
}

/// `file:littleEndianEncoding() -> file`: binary numbers little-endian.
fn little_endian_encoding(_: &Lua, a: Args) -> Result<MultiValue> {
    flag(&a, "littleEndianEncoding", |c| c.swap = cfg!(target_endian = "big"))
}

/// `file:bigEndianEncoding() -> file`: binary numbers big-endian.
fn big_endian_encoding(_: &Lua, a: Args) -> Result<MultiValue> {
    flag(&a, "bigEndianEncoding", |c| c.swap = cfg!(target_endian = "little"))
}

/// `file:hasError() -> bool`
fn has_error(_: &Lua, a: Args) -> Result<MultiValue> {
    query(&a, "hasError", |c| c.has_error)
}

/// `file:isQuiet() -> bool`
fn is_quiet(_: &Lua, a: Args) -> Result<MultiValue> {
    query(&a, "isQuiet", |c| c.quiet)
}

/// `file:isReadable() -> bool`
fn is_readable(_: &Lua, a: Args) -> Result<MultiValue> {
    query(&a, "isReadable", |c| c.is_readable())
}

/// `file:isWritable() -> bool`
fn is_writable(_: &Lua, a: Args) -> Result<MultiValue> {
    query(&a, "isWritable", |c| c.is_writable())
}

/// `file:isBinary() -> bool`
fn is_binary(_: &Lua, a: Args) -> Result<MultiValue> {
    query(&a, "isBinary", |c| c.binary)
}

/// `file:isAutoSpacing() -> bool`
fn is_auto_spacing(_: &Lua, a: Args) -> Result<MultiValue> {
    query(&a, "isAutoSpacing", |c| c.auto_spacing)
}

/// `file:isReferenced() -> bool`
fn is_referenced(_: &Lua, a: Args) -> Result<MultiValue> {
    query(&a, "isReferenced", |c| c.refs.enabled)
}

/// `file:isLittleEndianCPU() -> bool`
fn is_little_endian_cpu(_: &Lua, _: Args) -> Result<bool> {
    Ok(cfg!(target_endian = "little"))
}

/// `file:isBigEndianCPU() -> bool`
fn is_big_endian_cpu(_: &Lua, _: Args) -> Result<bool> {
    Ok(cfg!(target_endian = "big"))
}

/// `file:referenced(on) -> file`: whether objects written twice are written as references.
fn referenced(_: &Lua, a: Args) -> Result<MultiValue> {
    let on = !matches!(arg(&a, 2), Value::Nil | Value::Boolean(false));
    with(&a, "referenced", |c| {
        c.refs.enabled = on;
        Ok(())
    })?;
    receiver(&a)
}

/// `file:longSize(n) -> file`: the size of a long in binary files: 4, or 8 (0: the default, 8).
fn long_size(_: &Lua, a: Args) -> Result<MultiValue> {
    let n = int_arg(&a, 2, "longSize")?;
    with(&a, "longSize", |c| c.set_long_size(n.max(-1) as usize))?;
    receiver(&a)
}

/// `file:seek(pos) -> file` (1-based)
fn seek(_: &Lua, a: Args) -> Result<MultiValue> {
    let pos = int_arg(&a, 2, "seek")?;
    if pos < 1 {
        return Err(error("seek", format!("position must be positive, got {pos}")));
    }
    with(&a, "seek", |c| c.seek(pos as u64 - 1))?;
    receiver(&a)
}

/// `file:seekEnd() -> file`
fn seek_end(_: &Lua, a: Args) -> Result<MultiValue> {
    with(&a, "seekEnd", |c| c.seek_end())?;
    receiver(&a)
}

/// `file:position() -> pos` (1-based)
fn position(_: &Lua, a: Args) -> Result<MultiValue> {
    let p = with(&a, "position", |c| c.position())?;
    one(Value::Number(p as f64 + 1.0))
}

/// `file:synchronize() -> file`: flushes what is written.
fn synchronize(_: &Lua, a: Args) -> Result<MultiValue> {
    with(&a, "synchronize", |c| c.synchronize())?;
    receiver(&a)
}

/// `file:close() -> file`
fn close(_: &Lua, a: Args) -> Result<MultiValue> {
    with(&a, "close", |c| c.close())?;
    receiver(&a)
}

/// `file:readBool() -> bool`
fn read_bool(_: &Lua, a: Args) -> Result<MultiValue> {
    let v = with(&a, "readBool", |c| c.read_scalar::<i32>())?;
    boolean(v == 1)
}

/// `file:writeBool(v) -> count`
fn write_bool(_: &Lua, a: Args) -> Result<MultiValue> {
    let v = !matches!(arg(&a, 2), Value::Nil | Value::Boolean(false));
    let n = with(&a, "writeBool", |c| c.write_scalar::<i32>(v as i32))?;
    one(Value::Number(n as f64))
}

/// `file:readString('*a' | '*l' | n) -> string`
fn read_string(lua: &Lua, a: Args) -> Result<MultiValue> {
    let format = match arg(&a, 2) {
        Value::String(s) if s.as_bytes().starts_with(b"*a") => StringFormat::All,
        Value::String(s) if s.as_bytes().starts_with(b"*l") => StringFormat::Line,
        v if number(v).is_some() => {
            let n = int_arg(&a, 2, "readString")?;
            if n < 0 {
                return Err(error("readString", format!("cannot read {n} bytes")));
            }
            StringFormat::Bytes(n as usize)
        }
        v => {
            return Err(error(
                "readString",
                format!("format must be '*a', '*l' or a byte count, got {}", type_name(v)),
            ));
        }
    };
    let bytes = with(&a, "readString", |c| c.read_string(format))?;
    one(Value::String(lua.create_string(bytes)?))
}

/// `file:writeString(s) -> count`
fn write_string(_: &Lua, a: Args) -> Result<MultiValue> {
    let s = match arg(&a, 2) {
        Value::String(s) => s.as_bytes().to_vec(),
        v if number(v).is_some() => v.to_string()?.into_bytes(),
        v => {
            return Err(error(
                "writeString",
                format!("bad argument #1 (string expected, got {})", type_name(v)),
            ));
        }
    };
    let n = with(&a, "writeString", |c| c.write_string(&s))?;
    one(Value::Number(n as f64))
}

/// `file:readObject() -> value`
fn read_object(lua: &Lua, a: Args) -> Result<MultiValue> {
    let core = core_of(&a, "readObject")?;
    let had = std::mem::replace(&mut core.borrow_mut().has_error, false);
    let r = ctx_call(lua, &a, "readObject", read::read_object);
    let mut c = core.borrow_mut();
    let failed_read = c.has_error;
    c.has_error |= had;
    match r {
        Ok(v) => one(v),
        // Quiet mode: a short read gives nil and the error flag, as Torch's reads do.
        Err(_) if c.quiet && failed_read => one(Value::Nil),
        Err(e) => Err(e),
    }
}

/// `file:writeObject(value, [name], [hook]) -> file`
fn write_object(lua: &Lua, a: Args) -> Result<MultiValue> {
    let hook = match arg(&a, 4) {
        Value::Function(f) => Some(f.clone()),
        Value::Nil => None,
        v => {
            return Err(error(
                "writeObject",
                format!("bad argument #3 (hook function expected, got {})", type_name(v)),
            ));
        }
    };
    let name = match arg(&a, 3) {
        Value::String(s) => Some(s.to_string_lossy()),
        _ => None,
    };
    let value = arg(&a, 2).clone();
    ctx_call(lua, &a, "writeObject", |ctx| {
        write::write_object(ctx, value, name, hook)
    })?;
    receiver(&a)
}

/// `file:isWritableObject(value) -> tag | nil`: the type tag `value` would be written under.
fn is_writable_object(lua: &Lua, a: Args) -> Result<MultiValue> {
    let v = arg(&a, 2).clone();
    let tag = ctx_call(lua, &a, "isWritableObject", |ctx| write::writable_tag(ctx, &v))?;
    one(tag.map(|t| Value::Number(t as f64)).unwrap_or(Value::Nil))
}

/// `file:noBuffer() -> file`: writes go to the disk unbuffered.
fn no_buffer(_: &Lua, a: Args) -> Result<MultiValue> {
    with(&a, "noBuffer", |c| {
        c.stream()?.set_unbuffered();
        Ok(())
    })?;
    receiver(&a)
}

/// `file:storage() -> torch.CharStorage`: a memory file's contents, with a terminating NUL.
fn storage(lua: &Lua, a: Args) -> Result<MultiValue> {
    let mut data = with(&a, "storage", |c| {
        c.stream()?;
        Ok(c.memory_data().map(|d| d.to_vec()).unwrap_or_default())
    })?;
    // Torch hands out the buffer with its terminating NUL.
    data.push(0);
    // SAFETY: u8 and i8 have the same layout.
    let chars = unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<i8>(), data.len()) };
    let s = Storage::from_slice(chars).map_err(|e| error("storage", e))?;
    one(push_storage(lua, s)?)
}

/// 'r', 'w' or 'rw' -> (readable, writable).
fn parse_mode(v: &Value, default: &str, allowed: &[&str], method: &str) -> Result<(bool, bool)> {
    let mode = match v {
        Value::Nil => default.to_string(),
        Value::String(s) => s.to_string_lossy(),
        other => {
            return Err(error(
                method,
                format!("bad argument (mode string expected, got {})", type_name(other)),
            ));
        }
    };
    if !allowed.contains(&mode.as_str()) {
        let list = allowed.iter().map(|m| format!("'{m}'")).collect::<Vec<_>>().join(", ");
        return Err(error(
            method,
            format!("file mode should be one of {list}, got '{mode}'"),
        ));
    }
    Ok((mode.contains('r'), mode.contains('w')))
}

fn new_disk(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "torch.DiskFile";
    let Value::Table(class) = arg(&a, 1).clone() else {
        return Err(error(M, "internal error: no class"));
    };
    let name = match arg(&a, 2) {
        Value::String(s) => s.to_str()?.to_string(),
        v => {
            return Err(error(
                M,
                format!("bad argument #1 (file name expected, got {})", type_name(v)),
            ));
        }
    };
    let (r, w) = parse_mode(arg(&a, 3), "r", &["r", "w", "rw"], M)?;
    let quiet = !matches!(arg(&a, 4), Value::Nil | Value::Boolean(false));
    match BufferedStream::open_file(&name, r, w) {
        Ok(stream) => one(new_object(
            lua,
            &class,
            FileCore::new(Box::new(stream), Kind::Disk, r, w),
        )?),
        Err(_) if quiet => one(Value::Nil),
        Err(e) => Err(error(
            M,
            format!(
                "cannot open <{name}> in mode {}{} ({e})",
                if r { "r" } else { "" },
                if w { "w" } else { "" }
            ),
        )),
    }
}

fn new_memory(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "torch.MemoryFile";
    let Value::Table(class) = arg(&a, 1).clone() else {
        return Err(error(M, "internal error: no class"));
    };
    let (data, mode_arg) = match classify(arg(&a, 2)) {
        Some(_) => {
            let s = storage_of(arg(&a, 2))
                .filter(|s| s.dtype() == DType::Char)
                .ok_or_else(|| {
                    error(
                        M,
                        format!(
                            "bad argument #1 (torch.CharStorage expected, got {})",
                            type_name(arg(&a, 2))
                        ),
                    )
                })?;
            // SAFETY: read-only copy.
            let bytes = unsafe { s.bytes() };
            match bytes.split_last() {
                Some((0, body)) => (body.to_vec(), arg(&a, 3)),
                _ => return Err(error(M, "provided CharStorage must be terminated by 0")),
            }
        }
        None => (Vec::new(), arg(&a, 2)),
    };
    let (r, w) = parse_mode(mode_arg, "rw", &["r", "w", "rw"], M)?;
    let core = FileCore::new(Box::new(MemoryStream::new(data)), Kind::Memory, r, w);
    one(new_object(lua, &class, core)?)
}

fn new_pipe(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "torch.PipeFile";
    let Value::Table(class) = arg(&a, 1).clone() else {
        return Err(error(M, "internal error: no class"));
    };
    let cmd = match arg(&a, 2) {
        Value::String(s) => s.to_str()?.to_string(),
        v => {
            return Err(error(
                M,
                format!("bad argument #1 (command expected, got {})", type_name(v)),
            ));
        }
    };
    let (r, w) = parse_mode(arg(&a, 3), "r", &["r", "w"], M)?;
    let quiet = !matches!(arg(&a, 4), Value::Nil | Value::Boolean(false));
    match BufferedStream::open_pipe(&cmd, r) {
        Ok(stream) => one(new_object(
            lua,
            &class,
            FileCore::new(Box::new(stream), Kind::Pipe, r, w),
        )?),
        Err(_) if quiet => one(Value::Nil),
        Err(e) => Err(error(M, format!("cannot run <{cmd}> ({e})"))),
    }
}

/// `libtorch.file`: method tables and constructors for lua/torch/File.lua.
pub fn open(lua: &Lua) -> Result<Table> {
    // Taken now, before scripts can replace debug/string.
    helpers(lua)?;
    let m = lua.create_table()?;
    m.set("methods", file_methods(lua)?)?;
    m.set("diskMethods", disk_methods(lua)?)?;
    m.set("memoryMethods", memory_methods(lua)?)?;
    calls::add(lua, &m, "newDiskFile", new_disk)?;
    calls::add(lua, &m, "newMemoryFile", new_memory)?;
    calls::add(lua, &m, "newPipeFile", new_pipe)?;
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_with_defaults_and_errors() {
        let lua = Lua::new();
        let s = |m: &str| Value::String(lua.create_string(m).unwrap());
        let all = ["r", "w", "rw"];
        assert_eq!(parse_mode(&Value::Nil, "r", &all, "m").unwrap(), (true, false));
        assert_eq!(parse_mode(&s("w"), "r", &all, "m").unwrap(), (false, true));
        assert_eq!(parse_mode(&s("rw"), "r", &all, "m").unwrap(), (true, true));
        let err = parse_mode(&s("rw"), "r", &["r", "w"], "m").unwrap_err().to_string();
        assert!(err.contains("file mode should be one of 'r', 'w', got 'rw'"), "{err}");
        let err = parse_mode(&Value::Integer(1), "r", &all, "m").unwrap_err().to_string();
        assert!(err.contains("mode string expected, got number"), "{err}");
    }
}
