//! The `.t7` format: Torch7's `File:writeObject`/`readObject` over any byte stream.
//!
//! Layers, bottom up: `stream` (memory, disk, pipe bytes), `codec` (THFile's typed binary/ASCII
//! elements and error modes, plus the per-File reference tables), `write`/`read` (walking Lua
//! values through mlua: tags, references, torch classes, tensors, functions). `bytecode` checks
//! function dumps before LuaJIT sees them. `crate::torch::file` puts the torch.File classes on top.
//!
//! Other Rust code sends Lua values in this format with [`serialize`] and [`deserialize`].

pub mod bytecode;
pub mod codec;
pub mod read;
pub mod stream;
pub mod write;

use std::cell::RefCell;
use std::rc::Rc;

use mlua::{Function, Lua, Result, Value};

use crate::torch::dtype::DType;
use crate::torch::storage::Storage;
use crate::torch::tensor::Tensor;
use codec::{FileCore, Kind};
use stream::MemoryStream;

pub const TYPE_NIL: i32 = 0;
pub const TYPE_NUMBER: i32 = 1;
pub const TYPE_STRING: i32 = 2;
pub const TYPE_TABLE: i32 = 3;
pub const TYPE_TORCH: i32 = 4;
pub const TYPE_BOOLEAN: i32 = 5;
/// Legacy: bytecode and upvalue values, no index (read only).
pub const TYPE_FUNCTION: i32 = 6;
/// Legacy: index, bytecode and upvalue values (read only).
pub const LEGACY_TYPE_RECUR_FUNCTION: i32 = 7;
/// What Torch writes for Lua functions: index, bytecode, `{name, id, value}` upvalue entries.
pub const TYPE_RECUR_FUNCTION: i32 = 8;
/// Ours, within one process only: a handle passed beside the bytes (see `codec::Handles`).
pub const TYPE_HANDLE: i32 = 100;

/// Deepest nesting of objects read or written (Torch's Lua recursion gives out a few thousand
/// levels down). Past about 4000 levels mlua runs out of reference slots and LuaJIT out of Lua
/// stack (class methods recurse through Lua); this stops before either. In debug builds the
/// stack check below can stop first: how much stack a level takes depends on the build.
pub const MAX_DEPTH: usize = 3000;

/// Stack kept free below the deepest object: what one more level, mlua, LuaJIT and a class's
/// Lua read/write method need before the next check.
const STACK_RESERVE: usize = 256 * 1024;

/// Bytes of stack left below the caller on this thread, when the platform can tell.
fn stack_remaining() -> Option<usize> {
    thread_local! {
        static BOUNDS: std::cell::Cell<Option<(usize, usize)>> = const { std::cell::Cell::new(None) };
    }
    let (low, high) = match BOUNDS.with(|b| b.get()) {
        Some(b) => b,
        None => {
            let b = stack_bounds()?;
            BOUNDS.with(|c| c.set(Some(b)));
            b
        }
    };
    let sp = stack_pointer()?;
    // Outside the thread's stack (a coroutine's or sanitizer's stack, say): no estimate.
    (low..high).contains(&sp).then(|| sp - low)
}

/// The real stack pointer: a local's address is not it under AddressSanitizer, which moves
/// locals to a heap "fake stack".
#[inline(always)]
fn stack_pointer() -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        let sp: usize;
        // SAFETY: reads a register, touches no memory.
        unsafe { std::arch::asm!("mov {}, rsp", out(reg) sp, options(nomem, nostack, preserves_flags)) };
        Some(sp)
    }
    #[cfg(target_arch = "aarch64")]
    {
        let sp: usize;
        // SAFETY: reads a register, touches no memory.
        unsafe { std::arch::asm!("mov {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags)) };
        Some(sp)
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        None
    }
}

/// This thread's stack as (lowest address, one past the highest); stacks grow down on every
/// target we build for.
#[cfg(target_os = "linux")]
fn stack_bounds() -> Option<(usize, usize)> {
    // SAFETY: plain libc queries about the calling thread, with the attribute object initialised
    // by pthread_getattr_np and destroyed after use.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let mut addr: *mut libc::c_void = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        let r = libc::pthread_attr_getstack(&attr, &mut addr, &mut size);
        libc::pthread_attr_destroy(&mut attr);
        if r != 0 || addr.is_null() {
            return None;
        }
        Some((addr as usize, addr as usize + size))
    }
}

#[cfg(not(target_os = "linux"))]
fn stack_bounds() -> Option<(usize, usize)> {
    None
}

/// Tensors and storages of another family (cutorch's device classes, `torch.Cuda*`): written with
/// the host classes' payload under their own class names, as cutorch wrote them, and read back into
/// that family. The module that defines the family installs this in the Lua state
/// ([`set_device_classes`]); without it, those class names load as host tensors.
#[derive(Clone, Copy)]
pub struct DeviceClasses {
    /// The class names of an element type (`torch.CudaTensor`, `torch.CudaStorage`), if the family
    /// has that type.
    pub tensor_typename: fn(DType) -> Option<&'static str>,
    pub storage_typename: fn(DType) -> Option<&'static str>,
    pub tensor_of: fn(&Value) -> Option<Tensor>,
    pub storage_of: fn(&Value) -> Option<Storage>,
    pub push_tensor: fn(&Lua, Tensor) -> Result<Value>,
    pub push_storage: fn(&Lua, Storage) -> Result<Value>,
    /// A host copy of a whole storage of the family.
    pub to_host: fn(&Storage) -> std::result::Result<Storage, String>,
    /// A storage of the family holding a host storage's data.
    pub from_host: fn(Storage) -> std::result::Result<Storage, String>,
    /// Whether objects of the family can be made here now (why not, otherwise).
    pub available: fn() -> std::result::Result<(), String>,
}

pub fn set_device_classes(lua: &Lua, classes: DeviceClasses) {
    lua.set_app_data(classes);
}

pub fn device_classes(lua: &Lua) -> Option<DeviceClasses> {
    lua.app_data_ref::<DeviceClasses>().map(|c| *c)
}

/// What the writer keys references on: Lua objects by address, storages by their buffer, so
/// that two tensors over one storage write it once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Identity {
    Lua(usize),
    Storage(usize),
}

/// Lua functions the format needs, taken when libtorch loads so that scripts replacing `debug`
/// or `string` do not change what serialization does.
pub struct LuaHelpers {
    pub getupvalue: Function,
    pub setupvalue: Function,
    pub upvalueid: Function,
    pub upvaluejoin: Function,
    pub getmetatable: Function,
    pub dump: Function,
    /// Version and flags of this LuaJIT's own dumps (None when they cannot be made).
    pub native: Option<bytecode::Native>,
}

impl LuaHelpers {
    fn capture(lua: &Lua) -> Result<LuaHelpers> {
        let g = lua.globals();
        let debug: mlua::Table = g.get("debug")?;
        let string: mlua::Table = g.get("string")?;
        let dump: Function = string.get("dump")?;
        let probe = lua.load("return function() end").eval::<Function>()?;
        let native = dump
            .call::<mlua::LuaString>(probe)
            .ok()
            .and_then(|d| bytecode::Native::from_dump(&d.as_bytes()));
        Ok(LuaHelpers {
            getupvalue: debug.get("getupvalue")?,
            setupvalue: debug.get("setupvalue")?,
            upvalueid: debug.get("upvalueid")?,
            upvaluejoin: debug.get("upvaluejoin")?,
            getmetatable: debug.get("getmetatable")?,
            dump,
            native,
        })
    }
}

/// The helpers of this state, captured on first use (libtorch asks at load time).
pub fn helpers(lua: &Lua) -> Result<Rc<LuaHelpers>> {
    if let Some(h) = lua.app_data_ref::<Rc<LuaHelpers>>() {
        return Ok(h.clone());
    }
    let h = Rc::new(LuaHelpers::capture(lua)?);
    lua.set_app_data(h.clone());
    Ok(h)
}

/// One readObject/writeObject call: the File's state and the Lua File object that class
/// `read`/`write` methods receive.
pub struct Ctx<'a> {
    pub lua: &'a Lua,
    pub core: &'a RefCell<FileCore>,
    pub file: FileObject<'a>,
    pub helpers: &'a LuaHelpers,
}

/// The Lua File object of a call: given (a method on a File), or made on first need (the
/// in-memory helpers: most values never call a class method, and making the object costs more
/// than writing a small value).
pub enum FileObject<'a> {
    Given(&'a Value),
    Memory(Rc<RefCell<FileCore>>, std::cell::OnceCell<Value>),
}

impl Ctx<'_> {
    pub fn file(&self) -> Result<Value> {
        match &self.file {
            FileObject::Given(v) => Ok((*v).clone()),
            FileObject::Memory(core, made) => {
                if let Some(v) = made.get() {
                    return Ok(v.clone());
                }
                let v = crate::torch::file::file_object(self.lua, core.clone(), "torch.MemoryFile")?;
                Ok(made.get_or_init(|| v).clone())
            }
        }
    }

    /// Runs `f` on the File's state. No borrow outlives it, so Lua code called between two of
    /// these (class read/write methods) can use the same File.
    pub fn with<R>(&self, method: &str, f: impl FnOnce(&mut FileCore) -> std::result::Result<R, String>) -> Result<R> {
        let mut core = self
            .core
            .try_borrow_mut()
            .map_err(|_| crate::torch::args::error(method, "the file is in use"))?;
        f(&mut core).map_err(|m| crate::torch::args::error(method, m))
    }
}

/// Counts nesting for the lifetime of one object; fails past MAX_DEPTH.
pub struct DepthGuard<'a>(&'a RefCell<FileCore>);

impl<'a> DepthGuard<'a> {
    pub fn enter(core: &'a RefCell<FileCore>, method: &str) -> Result<DepthGuard<'a>> {
        let mut c = core
            .try_borrow_mut()
            .map_err(|_| crate::torch::args::error(method, "the file is in use"))?;
        let out_of_stack = stack_remaining().is_some_and(|left| left < STACK_RESERVE);
        if c.depth >= MAX_DEPTH || out_of_stack {
            return Err(crate::torch::args::error(
                method,
                format!(
                    "objects nested more than {} deep (a cycle written with referenced(false)?)",
                    c.depth
                ),
            ));
        }
        c.depth += 1;
        Ok(DepthGuard(core))
    }
}

impl Drop for DepthGuard<'_> {
    fn drop(&mut self) {
        if let Ok(mut c) = self.0.try_borrow_mut() {
            c.depth = c.depth.saturating_sub(1);
        }
    }
}

/// Serialization mode of the in-memory helpers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Binary,
    Ascii,
}

/// Runs `f` with a context over a fresh MemoryFile holding `bytes`.
fn with_memory_file<R>(lua: &Lua, bytes: Vec<u8>, mode: Mode, f: impl FnOnce(&Ctx) -> Result<R>) -> Result<R> {
    let mut core = FileCore::new(Box::new(MemoryStream::new(bytes)), Kind::Memory, true, true);
    core.binary = mode == Mode::Binary;
    let core = Rc::new(RefCell::new(core));
    let h = helpers(lua)?;
    let ctx = Ctx {
        lua,
        core: &core,
        file: FileObject::Memory(core.clone(), std::cell::OnceCell::new()),
        helpers: &h,
    };
    let result = f(&ctx);
    // The reference tables are registry references held from Rust: dropped now, what was read
    // becomes collectable in one cycle rather than after the File object's own collection.
    if let Ok(mut c) = core.try_borrow_mut() {
        c.refs = codec::Refs::default();
    }
    result
}

/// `torch.serialize(value, mode)` without the Lua wrapper: the bytes of one writeObject.
pub fn serialize(lua: &Lua, value: &Value, mode: Mode) -> Result<Vec<u8>> {
    with_memory_file(lua, Vec::new(), mode, |ctx| {
        write::write_object(ctx, value.clone(), None, None)?;
        Ok(ctx.core.borrow().memory_data().map(|d| d.to_vec()).unwrap_or_default())
    })
}

/// `torch.deserialize(bytes, mode)` without the Lua wrapper: one readObject.
pub fn deserialize(lua: &Lua, bytes: &[u8], mode: Mode) -> Result<Value> {
    with_memory_file(lua, bytes.to_vec(), mode, read::read_object)
}

/// One binary writeObject with what `oob` asks to carry beside the bytes; returns the bytes and
/// `oob` with what was put beside them.
pub fn serialize_with(lua: &Lua, value: &Value, oob: codec::OutOfBand) -> Result<(Vec<u8>, codec::OutOfBand)> {
    with_memory_file(lua, Vec::new(), Mode::Binary, |ctx| {
        ctx.core.borrow_mut().out_of_band = Some(oob);
        let written = write::write_object(ctx, value.clone(), None, None);
        let mut core = ctx.core.borrow_mut();
        let oob = core.out_of_band.take().unwrap_or_default();
        written?;
        Ok((core.memory_data().map(|d| d.to_vec()).unwrap_or_default(), oob))
    })
}

/// Reads what [`serialize_with`] wrote, taking what went beside from `oob`.
pub fn deserialize_with(lua: &Lua, bytes: &[u8], oob: codec::OutOfBand) -> Result<Value> {
    with_memory_file(lua, bytes.to_vec(), Mode::Binary, |ctx| {
        ctx.core.borrow_mut().out_of_band = Some(oob);
        read::read_object(ctx)
    })
}

/// One binary writeObject whose storages of at least `min_bytes` bytes, and device storages of any
/// size, are left out of the bytes and returned beside them, in the order [`deserialize_beside`]
/// wants them back.
pub fn serialize_beside(lua: &Lua, value: &Value, min_bytes: usize) -> Result<(Vec<u8>, Vec<Storage>)> {
    let oob = codec::OutOfBand {
        min_bytes,
        device_storages: true,
        ..Default::default()
    };
    serialize_with(lua, value, oob).map(|(bytes, oob)| (bytes, oob.written))
}

/// Reads what [`serialize_beside`] wrote, taking the large storages from `storages`.
pub fn deserialize_beside(lua: &Lua, bytes: &[u8], storages: Vec<Storage>, min_bytes: usize) -> Result<Value> {
    let oob = codec::OutOfBand {
        min_bytes,
        to_read: storages.into(),
        device_storages: true,
        ..Default::default()
    };
    deserialize_with(lua, bytes, oob)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn torch_state() -> Lua {
        let lua = crate::runtime::new_state().unwrap();
        lua.load("require 'torch'").exec().unwrap();
        lua
    }

    #[test]
    fn rust_api_round_trips_values() {
        let lua = torch_state();
        let v: Value = lua
            .load("local t = {x = torch.FloatTensor({1, 2}), s = 'str'}; t.me = t; return t")
            .eval()
            .unwrap();
        for mode in [Mode::Binary, Mode::Ascii] {
            let bytes = serialize(&lua, &v, mode).unwrap();
            let back = deserialize(&lua, &bytes, mode).unwrap();
            let check: mlua::Function = lua
                .load("return function(t) return t.me == t and t.s == 'str' and t.x[2] == 2 end")
                .eval()
                .unwrap();
            assert!(check.call::<bool>(back).unwrap(), "{mode:?}");
        }
        // The bytes are torch.serialize's.
        let lua_bytes: mlua::LuaString = lua.load("return torch.serialize({hello = 123})").eval().unwrap();
        let hello = lua.load("return {hello = 123}").eval::<Value>().unwrap();
        assert_eq!(
            serialize(&lua, &hello, Mode::Binary).unwrap(),
            lua_bytes.as_bytes().to_vec()
        );
    }

    #[test]
    fn rust_api_reports_errors() {
        let lua = torch_state();
        let err = deserialize(&lua, &[9, 0, 0, 0], Mode::Binary).unwrap_err().to_string();
        assert!(err.contains("unknown object"), "{err}");
        let err = deserialize(&lua, &[3, 0, 0], Mode::Binary).unwrap_err().to_string();
        assert!(err.contains("read error"), "{err}");
        let co = lua.load("return coroutine.create(print)").eval::<Value>().unwrap();
        let err = serialize(&lua, &co, Mode::Binary).unwrap_err().to_string();
        assert!(err.contains("Unwritable object <thread>"), "{err}");
    }

    #[test]
    fn works_without_the_torch_package() {
        // A state with libtorch but no torch classes: plain values still go through.
        let lua = crate::runtime::new_state().unwrap();
        let v = lua.load("return {1, 'two', {three = true}}").eval::<Value>().unwrap();
        let bytes = serialize(&lua, &v, Mode::Binary).unwrap();
        let back = deserialize(&lua, &bytes, Mode::Binary).unwrap();
        let Value::Table(t) = back else { panic!("not a table") };
        assert_eq!(t.get::<String>(2).unwrap(), "two");
        // A torch object needs its class: without torch.factory it is unknown.
        let obj = [4u8, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, b'V', b' ', b'1', 1, 0, 0, 0, b'X'];
        let err = deserialize(&lua, &obj, Mode::Binary).unwrap_err().to_string();
        assert!(err.contains("unknown Torch class <X>"), "{err}");
    }

    #[test]
    fn depth_guard_counts_and_limits() {
        let core = RefCell::new(FileCore::new(
            Box::new(MemoryStream::default()),
            Kind::Memory,
            true,
            true,
        ));
        {
            let _a = DepthGuard::enter(&core, "m").unwrap();
            let _b = DepthGuard::enter(&core, "m").unwrap();
            assert_eq!(core.borrow().depth, 2);
        }
        assert_eq!(core.borrow().depth, 0);
        core.borrow_mut().depth = MAX_DEPTH;
        let err = DepthGuard::enter(&core, "m").err().unwrap().to_string();
        assert!(err.contains("nested more than"), "{err}");
        assert!(stack_remaining().is_some_and(|left| left > STACK_RESERVE));
    }
}
