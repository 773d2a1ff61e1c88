//! readObject: the .t7 encoding back to Lua values. Every size read is checked before it is
//! used, nesting is bounded, and a short read is an error even in quiet mode (the binding turns
//! it into nil there), so hostile input ends in a Lua error.

use mlua::{Function, Value};

use super::bytecode;
use super::context::{Ctx, DepthGuard, DeviceClasses, device_classes};
use super::refs::lua_table;
use super::tags::{
    LEGACY_TYPE_RECUR_FUNCTION, TYPE_BOOLEAN, TYPE_FUNCTION, TYPE_HANDLE, TYPE_NIL, TYPE_NUMBER, TYPE_RECUR_FUNCTION,
    TYPE_STRING, TYPE_TABLE, TYPE_TORCH,
};
use super::write::{class_method, factory};
use crate::args::error;
use crate::error::{Error, Named};
use crate::torch::base::dtype::DType;
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::Tensor;
use crate::torch::userdata::{Object, classify, push_storage, push_tensor, set_view, storage_of};

const METHOD: &str = "readObject";

/// Tensors with more dimensions than this are refused (Torch never writes them; a hostile
/// count would otherwise size the reads below).
const MAX_DIMS: i32 = 1024;

/// A built-in class as read: element type, and tensor or storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Native {
    pub dtype: DType,
    pub tensor: bool,
}

/// `torch.FloatTensor`, `torch.CudaTensor` (float), `torch.CudaLongStorage`, `torch.HalfTensor`...
/// GPU classes load as the CPU class of the same element type.
pub fn native_class(name: &str) -> Option<Native> {
    let rest = name.strip_prefix("torch.")?;
    let rest = rest
        .strip_prefix("Cuda")
        .map(|r| {
            if r == "Tensor" || r == "Storage" {
                format!("Float{r}")
            } else {
                r.to_string()
            }
        })
        .unwrap_or_else(|| rest.to_string());
    let (elem, tensor) = if let Some(e) = rest.strip_suffix("Tensor") {
        (e, true)
    } else {
        (rest.strip_suffix("Storage")?, false)
    };
    DType::from_name(elem).map(|dtype| Native { dtype, tensor })
}

/// Lua's `tonumber` on the part after `V ` of a version string.
fn version_number(s: &str) -> Option<f64> {
    let t = s.trim();
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).ok().map(|v| v as f64);
    }
    if t.is_empty() || t.chars().any(|c| c.is_ascii_alphabetic() && !matches!(c, 'e' | 'E')) {
        return None;
    }
    t.parse::<f64>().ok()
}

struct Reader<'c, 'a> {
    ctx: &'c Ctx<'a>,
}

/// `file:readObject()`.
pub fn read_object(ctx: &Ctx) -> mlua::Result<Value> {
    Reader { ctx }.object()
}

impl Reader<'_, '_> {
    /// One element, pedantic whatever the File's mode: the object layer never goes on after a
    /// short read.
    fn scalar<T: super::ascii::Scalar>(&self) -> mlua::Result<T> {
        self.ctx.with(METHOD, |c| {
            let quiet = std::mem::replace(&mut c.quiet, false);
            let r = c.read_scalar::<T>();
            c.quiet = quiet;
            r
        })
    }

    fn int(&self) -> mlua::Result<i32> {
        self.scalar::<i32>()
    }

    fn longs(&self, n: usize) -> mlua::Result<Vec<i64>> {
        self.ctx.with(METHOD, |c| {
            let quiet = std::mem::replace(&mut c.quiet, false);
            let r = c.read_storage(DType::Long, n);
            c.quiet = quiet;
            // SAFETY: fresh storage owned here.
            r.map(|(s, _)| unsafe { s.as_slice::<i64>() }.to_vec())
        })
    }

    fn bytes(&self, what: &str) -> mlua::Result<Vec<u8>> {
        let len = self.int()?;
        if len < 0 {
            return Err(error(METHOD, format!("corrupt file: {what} of length {len}")));
        }
        self.ctx.with(METHOD, |c| {
            let quiet = std::mem::replace(&mut c.quiet, false);
            let r = c.read_bytes(len as usize);
            c.quiet = quiet;
            r
        })
    }

    fn lookup(&self, index: i32) -> mlua::Result<Option<Value>> {
        let table = {
            let Ok(c) = self.ctx.core.try_borrow() else {
                return Ok(None);
            };
            if !c.refs.enabled {
                return Ok(None);
            }
            c.refs.read.clone()
        };
        match table.map(|t| t.raw_get::<Value>(index)).transpose()? {
            Some(Value::Nil) | None => Ok(None),
            Some(v) => Ok(Some(v)),
        }
    }

    fn remember(&self, index: i32, v: &Value) -> mlua::Result<()> {
        let table = match self.ctx.core.try_borrow_mut() {
            Ok(mut c) if c.refs.enabled => lua_table(self.ctx.lua, &mut c.refs.read)?,
            _ => return Ok(()),
        };
        table.raw_set(index, v.clone())
    }

    fn object(&self) -> mlua::Result<Value> {
        let _depth = DepthGuard::enter(self.ctx.core, METHOD)?;
        let tag = self.int()?;
        match tag {
            TYPE_NIL => Ok(Value::Nil),
            TYPE_NUMBER => Ok(Value::Number(self.scalar::<f64>()?)),
            TYPE_BOOLEAN => Ok(Value::Boolean(self.int()? == 1)),
            TYPE_STRING => Ok(Value::String(self.ctx.lua.create_string(self.bytes("string")?)?)),
            TYPE_FUNCTION => self.legacy_function(),
            TYPE_HANDLE => {
                let handle = self.ctx.with(METHOD, |c| {
                    c.out_of_band
                        .as_mut()
                        .and_then(|o| o.handles.as_mut())
                        .and_then(|h| h.to_read.pop_front())
                        .ok_or_else(|| Error::corrupt("corrupt message: a handle is missing"))
                })?;
                handle.push(self.ctx.lua)
            }
            TYPE_TABLE | TYPE_TORCH | TYPE_RECUR_FUNCTION | LEGACY_TYPE_RECUR_FUNCTION => {
                let index = self.int()?;
                if let Some(v) = self.lookup(index)? {
                    return Ok(v);
                }
                match tag {
                    TYPE_TABLE => self.table(index),
                    TYPE_TORCH => self.torch(index),
                    _ => self.function(index, tag == LEGACY_TYPE_RECUR_FUNCTION),
                }
            }
            _ => Err(error(
                METHOD,
                format!("unknown object (type index {tag}): not a .t7 file, or the wrong mode (binary/ascii)"),
            )),
        }
    }

    fn table(&self, index: i32) -> mlua::Result<Value> {
        let n = self.int()?;
        if n < 0 {
            return Err(error(METHOD, format!("corrupt file: table of {n} entries")));
        }
        let t = self.ctx.lua.create_table()?;
        let v = Value::Table(t.clone());
        self.remember(index, &v)?;
        for _ in 0..n {
            let k = self.object()?;
            let val = self.object()?;
            check_key(&k)?;
            t.raw_set(k, val)?;
        }
        Ok(v)
    }

    fn torch(&self, index: i32) -> mlua::Result<Value> {
        let version = self.bytes("class version")?;
        let version = String::from_utf8_lossy(&version).into_owned();
        let (class, version) = match version.strip_prefix("V ").and_then(version_number) {
            Some(v) => (String::from_utf8_lossy(&self.bytes("class name")?).into_owned(), v),
            // Files from before versioning hold the class name alone.
            None => (version, 0.0),
        };
        if let Some(native) = native_class(&class) {
            // With cutorch loaded, its classes load onto the device; without it, as host tensors.
            // A device storage that travelled as itself needs cutorch: it is loaded for it.
            if class.starts_with("torch.Cuda") && self.device_storages_beside()? {
                self.ensure_cutorch()?;
            }
            let device = device_classes(self.ctx.lua)
                .filter(|dev| class.starts_with("torch.Cuda") && (dev.tensor_typename)(native.dtype).is_some());
            if let Some(dev) = device {
                (dev.available)().map_err(|why| error(METHOD, format!("cannot load a {class}: {why}")))?;
                if native.tensor {
                    return self.tensor(index, native, Some(dev));
                }
                let storage = match self.device_storage_beside(native)? {
                    Some(s) => s,
                    None => (dev.from_host)(self.storage_body(native)?).named(METHOD)?,
                };
                let v = (dev.push_storage)(self.ctx.lua, storage)?;
                self.remember(index, &v)?;
                return Ok(v);
            }
            return if native.tensor {
                self.tensor(index, native, None)
            } else {
                let v = push_storage(self.ctx.lua, self.storage_body(native)?)?;
                self.remember(index, &v)?;
                Ok(v)
            };
        }
        let Some(factory) = factory(self.ctx, &class)? else {
            return Err(error(
                METHOD,
                format!("unknown Torch class <{class}> (require the package that defines it before loading)"),
            ));
        };
        let object: Value = factory.call(self.ctx.file()?)?;
        self.remember(index, &object)?;
        if let Some(read) = class_method(self.ctx, &class, "read")? {
            read.call::<()>((object.clone(), self.ctx.file()?, version))?;
            return Ok(object);
        }
        let Value::Table(target) = &object else {
            return Err(error(METHOD, format!("Cannot load object class <{class}>")));
        };
        match self.object()? {
            Value::Table(fields) => {
                for pair in fields.pairs::<Value, Value>() {
                    let (k, v) = pair?;
                    target.set(k, v)?;
                }
            }
            other => {
                return Err(error(
                    METHOD,
                    format!("corrupt file: the fields of <{class}> are a {}", other.type_name()),
                ));
            }
        }
        Ok(object)
    }

    fn device_storages_beside(&self) -> mlua::Result<bool> {
        self.ctx.with(METHOD, |c| {
            Ok(c.out_of_band.as_ref().is_some_and(|o| o.device_storages))
        })
    }

    /// `require 'cutorch'`, for a device storage that arrived as itself in a state without it.
    fn ensure_cutorch(&self) -> mlua::Result<()> {
        if device_classes(self.ctx.lua).is_some() {
            return Ok(());
        }
        let require: Function = self.ctx.lua.globals().get("require")?;
        require.call::<Value>("cutorch").map(|_| ()).map_err(|e| {
            error(
                METHOD,
                format!("a CUDA tensor arrived and cutorch cannot be loaded: {e}"),
            )
        })
    }

    /// The device storage the transport carried beside the stream, when it carries them.
    fn device_storage_beside(&self, native: Native) -> mlua::Result<Option<Storage>> {
        if !self.device_storages_beside()? {
            return Ok(None);
        }
        let n = self.scalar::<i64>()?;
        self.ctx.with(METHOD, |c| {
            let oob = c.out_of_band.as_mut().expect("checked above");
            match oob.to_read.pop_front() {
                Some(s) if s.is_device() && s.dtype() == native.dtype && s.len() as i64 == n => Ok(Some(s)),
                _ => Err(Error::corrupt(format!(
                    "corrupt message: no {n}-element {:?} device storage beside it",
                    native.dtype
                ))),
            }
        })
    }

    fn storage_body(&self, native: Native) -> mlua::Result<Storage> {
        let n = self.scalar::<i64>()?;
        if n < 0 {
            return Err(error(METHOD, format!("corrupt file: storage of {n} elements")));
        }
        let n = usize::try_from(n).map_err(|_| error(METHOD, "storage too large"))?;
        let read_dtype = native.dtype;
        let beside = self.ctx.with(METHOD, |c| match c.out_of_band.as_mut() {
            Some(oob) if oob.carries(read_dtype, n) => match oob.to_read.pop_front() {
                Some(s) if s.dtype() == read_dtype && s.len() == n => Ok(Some(s)),
                _ => Err(Error::corrupt(format!(
                    "corrupt message: no {n}-element {read_dtype:?} storage beside it"
                ))),
            },
            _ => Ok(None),
        })?;
        if let Some(storage) = beside {
            return Ok(storage);
        }
        let storage = self.ctx.with(METHOD, |c| {
            let quiet = std::mem::replace(&mut c.quiet, false);
            let r = c.read_storage(read_dtype, n);
            c.quiet = quiet;
            r.map(|(s, _)| s)
        })?;
        Ok(storage)
    }

    /// A tensor's payload; `dev` for a tensor of that family (its storage must be one too).
    fn tensor(&self, index: i32, native: Native, dev: Option<DeviceClasses>) -> mlua::Result<Value> {
        let dtype = native.dtype;
        // Registered empty before its storage is read, as Torch does. (A device tensor is made
        // once read: nothing in its storage can refer back to it.)
        let host = match dev {
            None => {
                let v = push_tensor(self.ctx.lua, Tensor::empty(dtype))?;
                self.remember(index, &v)?;
                Some(v)
            }
            Some(_) => None,
        };
        let ndim = self.int()?;
        if !(0..=MAX_DIMS).contains(&ndim) {
            return Err(error(METHOD, format!("corrupt file: tensor with {ndim} dimensions")));
        }
        let ndim = ndim as usize;
        let size = self.longs(ndim)?;
        let stride = self.longs(ndim)?;
        let offset = self.scalar::<i64>()?;
        let storage = match self.object()? {
            Value::Nil => None,
            s => match (dev, storage_of(&s), classify(&s)) {
                (None, Some(st), Some(Object::Storage(_, d))) if d == dtype => Some(st),
                (Some(dev), ..) if (dev.storage_of)(&s).is_some_and(|st| st.dtype() == dtype) => (dev.storage_of)(&s),
                _ => {
                    return Err(error(
                        METHOD,
                        format!(
                            "corrupt file: the storage of a {} is a {}",
                            dev.and_then(|d| (d.tensor_typename)(dtype))
                                .unwrap_or(dtype.tensor_typename()),
                            crate::args::type_name(&s)
                        ),
                    ));
                }
            },
        };
        let mut t = checked_view(dtype, storage, &size, &stride, offset)?;
        let (None, Some(dev)) = (host.as_ref(), dev) else {
            // A host tensor: made before its payload was read.
            let v = host.unwrap_or(Value::Nil);
            set_view(&v, t)?;
            return Ok(v);
        };
        // checked_view gives an empty tensor with sizes an empty host storage.
        if let Some(s) = t.storage.take_if(|s| !s.is_device()) {
            t.storage = Some((dev.from_host)(s).named(METHOD)?);
        }
        let v = (dev.push_tensor)(self.ctx.lua, t)?;
        self.remember(index, &v)?;
        Ok(v)
    }

    fn load(&self, code: &[u8]) -> Option<Function> {
        let lua = self.ctx.lua;
        let result = if code.first() == Some(&0x1b) {
            match self.ctx.helpers.native {
                Some(native) => bytecode::check(code, native).map_err(|e| e.to_string()),
                None => Err(bytecode::INCOMPATIBLE.to_string()),
            }
            .and_then(|()| {
                lua.load(code)
                    .set_mode(mlua::chunk::ChunkMode::Binary)
                    .set_name("=(t7 function)")
                    .into_function()
                    .map_err(|e| load_error_text(&e))
            })
        } else {
            // Torch's loadstring takes source text as well.
            lua.load(code)
                .set_mode(mlua::chunk::ChunkMode::Text)
                .set_name("=(t7 function)")
                .into_function()
                .map_err(|e| load_error_text(&e))
        };
        match result {
            Ok(f) => Some(f),
            Err(e) => {
                // Torch's behaviour: warn and go on with nil.
                eprintln!("Warning: Failed to load function from bytecode: {e}");
                None
            }
        }
    }

    fn legacy_function(&self) -> mlua::Result<Value> {
        let code = self.bytes("function")?;
        let f = self.load(&code);
        let upvalues = self.object()?;
        if let (Some(f), Value::Table(ups)) = (&f, &upvalues) {
            for (i, v) in ups.sequence_values::<Value>().enumerate() {
                self.ctx
                    .helpers
                    .setupvalue
                    .call::<Value>((f.clone(), i as i64 + 1, v?))?;
            }
        }
        Ok(f.map(Value::Function).unwrap_or(Value::Nil))
    }

    fn function(&self, index: i32, legacy: bool) -> mlua::Result<Value> {
        let code = self.bytes("function")?;
        let f = self.load(&code);
        if let Some(f) = &f {
            self.remember(index, &Value::Function(f.clone()))?;
        }
        let upvalues = self.object()?;
        let (Some(f), Value::Table(ups)) = (f, upvalues) else {
            return Ok(Value::Nil);
        };
        let h = self.ctx.helpers;
        for (i, entry) in ups.sequence_values::<Value>().enumerate() {
            let entry = entry?;
            let i = i as i64 + 1;
            if legacy {
                h.setupvalue.call::<Value>((f.clone(), i, entry))?;
                continue;
            }
            let Value::Table(entry) = entry else {
                return Err(error(METHOD, "corrupt file: a function upvalue entry is not a table"));
            };
            let name: Value = entry.raw_get("name")?;
            let is_env = matches!(&name, Value::String(s) if s.as_bytes().as_ref() == b"_ENV");
            let value: Value = if is_env { Value::Nil } else { entry.raw_get("value")? };
            // setupvalue answers nil for an index the function does not have: nothing to join.
            if h.setupvalue.call::<Value>((f.clone(), i, value))?.is_nil() || is_env {
                continue;
            }
            let id = match entry.raw_get::<Value>("id")? {
                Value::Integer(id) => id,
                Value::Number(n) if n.fract() == 0.0 && n.abs() < 9e15 => n as i64,
                _ => continue,
            };
            let (funcs, index) = {
                let mut c = self
                    .ctx
                    .core
                    .try_borrow_mut()
                    .map_err(|_| error(METHOD, "the file is in use"))?;
                let index = c.refs.upvalue_index.get(&id).copied();
                (lua_table(self.ctx.lua, &mut c.refs.upvalue_funcs)?, index)
            };
            match (index, funcs.raw_get::<Value>(id)?) {
                (Some(j), Value::Function(other)) => h.upvaluejoin.call::<()>((f.clone(), i, other, j))?,
                // Recorded with references off too, as Torch does: joining is not dedupe.
                _ => {
                    funcs.raw_set(id, f.clone())?;
                    if let Ok(mut c) = self.ctx.core.try_borrow_mut() {
                        c.refs.upvalue_index.insert(id, i);
                    }
                }
            }
        }
        Ok(Value::Function(f))
    }
}

/// The text of an error from loading a chunk, without mlua's decorations.
fn load_error_text(e: &mlua::Error) -> String {
    match e {
        mlua::Error::SyntaxError { message, .. } | mlua::Error::RuntimeError(message) => message.clone(),
        other => other.to_string(),
    }
}

fn check_key(k: &Value) -> mlua::Result<()> {
    match k {
        Value::Nil => Err(error(METHOD, "corrupt file: table key is nil")),
        Value::Number(n) if n.is_nan() => Err(error(METHOD, "corrupt file: table key is NaN")),
        _ => Ok(()),
    }
}

/// The view a file describes, checked to lie inside its storage.
fn checked_view(
    dtype: DType,
    storage: Option<Storage>,
    size: &[i64],
    stride: &[i64],
    offset: i64,
) -> mlua::Result<Tensor> {
    let corrupt = |what: &str| error(METHOD, format!("corrupt file: {} {what}", dtype.tensor_typename()));
    if size.iter().chain(stride).any(|&v| v < 0) {
        return Err(corrupt("with a negative size or stride"));
    }
    if offset < 1 {
        return Err(corrupt("with a storage offset below 1"));
    }
    let size: Vec<usize> = size.iter().map(|&s| s as usize).collect();
    let stride: Vec<usize> = stride.iter().map(|&s| s as usize).collect();
    let offset = (offset - 1) as usize;
    // The other sizes must multiply without overflow even when one is zero: code elsewhere takes
    // the plain product of the sizes.
    let nonzero = size
        .iter()
        .filter(|&&s| s != 0)
        .try_fold(1usize, |a, &s| a.checked_mul(s));
    if nonzero.is_none_or(|n| n > i64::MAX as usize) {
        return Err(corrupt("with sizes whose product overflows"));
    }
    let empty = size.is_empty() || size.contains(&0);
    // Last element touched, computed without overflow.
    let mut last = Some(offset);
    if !empty {
        for (&s, &st) in size.iter().zip(&stride) {
            last = last.and_then(|l| (s - 1).checked_mul(st).and_then(|d| l.checked_add(d)));
        }
    }
    let storage = match storage {
        Some(s) => {
            if !empty && last.is_none_or(|l| l >= s.len()) {
                return Err(corrupt("whose view extends past the end of its storage"));
            }
            if offset > s.len() {
                return Err(corrupt("whose storage offset is past the end of its storage"));
            }
            Some(s)
        }
        None if empty => {
            if size.is_empty() {
                None
            } else {
                Some(Storage::new(dtype, 0).map_err(|e| error(METHOD, e))?)
            }
        }
        None => return Err(corrupt("with elements but no storage")),
    };
    let offset = if storage.is_none() { 0 } else { offset };
    Ok(Tensor {
        dtype,
        storage,
        offset,
        size,
        stride,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_map_to_cpu_types() {
        let n = native_class("torch.CudaTensor").unwrap();
        assert_eq!((n.dtype, n.tensor), (DType::Float, true));
        let n = native_class("torch.CudaLongStorage").unwrap();
        assert_eq!((n.dtype, n.tensor), (DType::Long, false));
        let n = native_class("torch.CudaHalfTensor").unwrap();
        assert_eq!((n.dtype, n.tensor), (DType::Half, true));
        assert_eq!(native_class("torch.DoubleTensor").unwrap().dtype, DType::Double);
        assert!(native_class("nn.Linear").is_none());
        assert!(native_class("torch.File").is_none());
        assert!(native_class("torch.CudaFooTensor").is_none());
    }

    #[test]
    fn versions_parse_as_tonumber() {
        assert_eq!(version_number("1"), Some(1.0));
        assert_eq!(version_number(" 2 "), Some(2.0));
        assert_eq!(version_number("0x10"), Some(16.0));
        assert_eq!(version_number("1.5e1"), Some(15.0));
        assert_eq!(version_number("abc"), None);
        assert_eq!(version_number(""), None);
    }

    #[test]
    fn views_are_checked_against_storage() {
        let s = Storage::new(DType::Float, 6).unwrap();
        assert!(checked_view(DType::Float, Some(s.clone()), &[2, 3], &[3, 1], 1).is_ok());
        assert!(checked_view(DType::Float, Some(s.clone()), &[2, 3], &[3, 1], 2).is_err());
        assert!(checked_view(DType::Float, Some(s.clone()), &[2, 3], &[-3, 1], 1).is_err());
        assert!(checked_view(DType::Float, Some(s.clone()), &[i64::MAX, 2], &[i64::MAX, 1], 1).is_err());
        assert!(checked_view(DType::Float, Some(s.clone()), &[0], &[1], 7).is_ok());
        assert!(checked_view(DType::Float, Some(s.clone()), &[0], &[1], 8).is_err());
        assert!(checked_view(DType::Float, Some(s), &[1], &[1], 0).is_err());
        assert!(checked_view(DType::Float, None, &[], &[], 1).unwrap().storage.is_none());
        assert!(
            checked_view(DType::Float, None, &[0, 3], &[3, 1], 1)
                .unwrap()
                .storage
                .is_some()
        );
        assert!(checked_view(DType::Float, None, &[1], &[1], 1).is_err());
        // A zero size among sizes whose product overflows (found by the fuzzer): refused, not a
        // subtraction overflow.
        let big = 1i64 << 40;
        let s3 = Storage::new(DType::Float, 3).unwrap();
        assert!(checked_view(DType::Float, Some(s3.clone()), &[big, big, 0], &[1, 1, 1], 1).is_err());
        assert!(checked_view(DType::Float, None, &[big, big, 0], &[1, 1, 1], 1).is_err());
        assert!(checked_view(DType::Float, Some(s3), &[big, 0], &[1, 1], 1).is_ok());
    }
}
