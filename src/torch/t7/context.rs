//! What one readObject/writeObject call works with: the File's state and Lua object, the Lua
//! helpers the format needs, the device classes of another tensor family, and the bound on
//! nesting.

use std::cell::RefCell;
use std::rc::Rc;

use mlua::{Function, Lua, Result, Value};

use super::bytecode;
use super::codec::FileCore;
use super::file_object::file_object;
use crate::args::error;
use crate::error::Named;
use crate::torch::base::dtype::DType;
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::Tensor;

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
                let v = file_object(self.lua, core.clone(), "torch.MemoryFile")?;
                Ok(made.get_or_init(|| v).clone())
            }
        }
    }

    /// Runs `f` on the File's state. No borrow outlives it, so Lua code called between two of
    /// these (class read/write methods) can use the same File.
    pub fn with<R>(&self, method: &str, f: impl FnOnce(&mut FileCore) -> crate::error::Result<R>) -> Result<R> {
        let mut core = self
            .core
            .try_borrow_mut()
            .map_err(|_| error(method, "the file is in use"))?;
        f(&mut core).named(method)
    }
}

/// Counts nesting for the lifetime of one object; fails past MAX_DEPTH.
pub struct DepthGuard<'a>(&'a RefCell<FileCore>);

impl<'a> DepthGuard<'a> {
    pub fn enter(core: &'a RefCell<FileCore>, method: &str) -> Result<DepthGuard<'a>> {
        let mut c = core.try_borrow_mut().map_err(|_| error(method, "the file is in use"))?;
        let out_of_stack = stack_remaining().is_some_and(|left| left < STACK_RESERVE);
        if c.depth >= MAX_DEPTH || out_of_stack {
            return Err(error(
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
    pub to_host: fn(&Storage) -> crate::error::Result<Storage>,
    /// A storage of the family holding a host storage's data.
    pub from_host: fn(Storage) -> crate::error::Result<Storage>,
    /// Whether objects of the family can be made here now (why not, otherwise).
    pub available: fn() -> crate::error::Result<()>,
}

pub fn set_device_classes(lua: &Lua, classes: DeviceClasses) {
    lua.set_app_data(classes);
}

pub fn device_classes(lua: &Lua) -> Option<DeviceClasses> {
    lua.app_data_ref::<DeviceClasses>().map(|c| *c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::t7::codec::Kind;
    use crate::torch::t7::stream::MemoryStream;

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
