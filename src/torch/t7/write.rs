//! writeObject: Lua values to the .t7 encoding (see torch_core.md §2.2-2.4).

use mlua::{Function, Table, Value};

use super::context::{Ctx, DepthGuard, DeviceClasses, device_classes};
use super::refs::{Identity, lua_table};
use super::tags::{
    TYPE_BOOLEAN, TYPE_HANDLE, TYPE_NIL, TYPE_NUMBER, TYPE_RECUR_FUNCTION, TYPE_STRING, TYPE_TABLE, TYPE_TORCH,
};
use crate::args::error;
use crate::dispatch;
use crate::error::{Error, Named};
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::Tensor;
use crate::torch::userdata::{Object, classify, tensor_of};

const METHOD: &str = "writeObject";

/// One entry of the name path shown in errors (`<?>.layers.1.weight`). Upvalue lists push a
/// marker so that their list index and entry fields are left out, as Torch does.
#[derive(Clone)]
enum Name {
    Text(String),
    Upvalues,
}

/// What a value is written as.
enum Kind {
    Nil,
    Number(f64),
    Boolean(bool),
    Str(mlua::LuaString),
    Table(Table),
    /// A torch class object: its class name.
    Torch(String),
    Function(Function, Vec<u8>),
}

/// Lua's `tostring` of a number, for names in messages.
fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        let mut out = Vec::new();
        super::ascii::format_g(n, 14, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }
}

fn key_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.to_string_lossy()),
        Value::Integer(i) => Some(i.to_string()),
        Value::Number(n) => Some(number_text(*n)),
        _ => None,
    }
}

/// `torch.typename(v)`: the `__typename` of the metatable of a table or userdata.
pub fn typename(ctx: &Ctx, v: &Value) -> mlua::Result<Option<String>> {
    match classify(v) {
        Some(Object::Tensor(_, d)) => return Ok(Some(d.tensor_typename().into())),
        Some(Object::Storage(_, d)) => return Ok(Some(d.storage_typename().into())),
        None => {}
    }
    let mt = match v {
        Value::Table(t) => t.metatable(),
        Value::UserData(_) => match ctx.helpers.getmetatable.call::<Value>(v.clone())? {
            Value::Table(t) => Some(t),
            _ => None,
        },
        _ => None,
    };
    Ok(match mt.map(|m| m.raw_get::<Value>("__typename")) {
        Some(Ok(Value::String(s))) => Some(s.to_str()?.to_string()),
        _ => None,
    })
}

fn torch_table(ctx: &Ctx) -> mlua::Result<Option<Table>> {
    match ctx.lua.globals().get::<Value>("torch")? {
        Value::Table(t) => Ok(Some(t)),
        _ => Ok(None),
    }
}

/// `torch.factory(name)`: the function that makes an empty instance, if the class exists.
pub fn factory(ctx: &Ctx, name: &str) -> mlua::Result<Option<Function>> {
    let Some(torch) = torch_table(ctx)? else {
        return Ok(None);
    };
    match torch.get::<Value>("factory")? {
        Value::Function(f) => match f.call::<Value>(name)? {
            Value::Function(make) => Ok(Some(make)),
            _ => Ok(None),
        },
        _ => Ok(None),
    }
}

fn has_factory(ctx: &Ctx, name: &str) -> mlua::Result<bool> {
    Ok(factory(ctx, name)?.is_some())
}

/// The class table of a torch class (`torch.getmetatable(name)`).
pub fn class_table(ctx: &Ctx, name: &str) -> mlua::Result<Option<Table>> {
    let Some(torch) = torch_table(ctx)? else {
        return Ok(None);
    };
    match torch.get::<Value>("getmetatable")? {
        Value::Function(f) => match f.call::<Value>(name) {
            Ok(Value::Table(t)) => Ok(Some(t)),
            _ => Ok(None),
        },
        _ => Ok(None),
    }
}

/// A class's `__<name>` or `<name>` method (Torch's getmetamethod); lookup errors mean none.
pub fn class_method(ctx: &Ctx, class: &str, name: &str) -> mlua::Result<Option<Function>> {
    let Some(mt) = class_table(ctx, class)? else {
        return Ok(None);
    };
    for key in [format!("__{name}"), name.to_string()] {
        if let Ok(Value::Function(f)) = mt.get::<Value>(key) {
            return Ok(Some(f));
        }
    }
    Ok(None)
}

/// `string.dump(f)`, or None for functions that cannot be dumped (C functions).
fn dump(ctx: &Ctx, f: &Function) -> Option<Vec<u8>> {
    if f.info().what == "C" {
        return None;
    }
    match ctx.helpers.dump.call::<mlua::LuaString>(f.clone()) {
        Ok(s) => Some(s.as_bytes().to_vec()),
        Err(_) => None,
    }
}

fn classify_value(ctx: &Ctx, v: &Value) -> mlua::Result<Option<Kind>> {
    Ok(Some(match v {
        Value::Nil => Kind::Nil,
        Value::Boolean(b) => Kind::Boolean(*b),
        Value::Integer(i) => Kind::Number(*i as f64),
        Value::Number(n) => Kind::Number(*n),
        Value::String(s) => Kind::Str(s.clone()),
        Value::Table(_) | Value::UserData(_) => {
            if let Some(name) = typename(ctx, v)?
                && (classify(v).is_some() || has_factory(ctx, &name)?)
            {
                Kind::Torch(name)
            } else if let Value::Table(t) = v {
                Kind::Table(t.clone())
            } else {
                return Ok(None);
            }
        }
        Value::Function(f) => match dump(ctx, f) {
            Some(code) => Kind::Function(f.clone(), code),
            None => return Ok(None),
        },
        _ => return Ok(None),
    }))
}

/// `File:isWritableObject(v)`: the tag `v` would be written with, or None.
pub fn writable_tag(ctx: &Ctx, v: &Value) -> mlua::Result<Option<i32>> {
    Ok(classify_value(ctx, v)?.map(|k| match k {
        Kind::Nil => TYPE_NIL,
        Kind::Number(_) => TYPE_NUMBER,
        Kind::Boolean(_) => TYPE_BOOLEAN,
        Kind::Str(_) => TYPE_STRING,
        Kind::Table(_) => TYPE_TABLE,
        Kind::Torch(_) => TYPE_TORCH,
        Kind::Function(..) => TYPE_RECUR_FUNCTION,
    }))
}

fn identity(ctx: &Ctx, v: &Value) -> Identity {
    if let Some(Object::Storage(ud, d)) = classify(v) {
        let id = dispatch!(d, T => ud
            .borrow::<crate::torch::userdata::StorageUd<T>>()
            .map(|s| s.storage.id())
            .unwrap_or(0));
        return Identity::Storage(id);
    }
    // Device storages too are keyed by their memory: two Lua handles on one are one object.
    if let Value::UserData(_) = v
        && let Some(s) = device_classes(ctx.lua).and_then(|dev| (dev.storage_of)(v))
    {
        return Identity::Storage(s.id());
    }
    Identity::Lua(v.to_pointer() as usize)
}

fn unnamed() -> Name {
    Name::Text("<?>".into())
}

fn format_names(names: &[Name]) -> String {
    let mut parts = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let after_marker = i > 0 && matches!(names[i - 1], Name::Upvalues);
        if let (Name::Text(t), false) = (n, after_marker) {
            parts.push(t.as_str());
        }
    }
    parts.join(".")
}

/// A number, boolean or string as `Writer::object` writes it.
fn write_plain(c: &mut super::codec::FileCore, v: &Value) -> crate::error::Result<()> {
    match v {
        Value::Integer(i) => {
            c.write_scalar(TYPE_NUMBER)?;
            c.write_scalar(*i as f64)?;
        }
        Value::Number(n) => {
            c.write_scalar(TYPE_NUMBER)?;
            c.write_scalar(*n)?;
        }
        Value::Boolean(b) => {
            c.write_scalar(TYPE_BOOLEAN)?;
            c.write_scalar(*b as i32)?;
        }
        Value::String(s) => {
            let bytes = s.as_bytes();
            let len = i32::try_from(bytes.len()).map_err(|_| Error::shape("string longer than 2 GiB"))?;
            c.write_scalar(TYPE_STRING)?;
            c.write_scalar(len)?;
            // SAFETY: u8 and i8 have the same layout; Char elements are raw bytes.
            let chars = unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<i8>(), bytes.len()) };
            c.write_from(chars)?;
        }
        _ => return Err(Error::shape("internal: not a plain value")),
    }
    Ok(())
}

struct Writer<'c, 'a> {
    ctx: &'c Ctx<'a>,
    hook: Option<Function>,
    names: Vec<Name>,
}

/// `file:writeObject(value [, debugname [, hook]])`: `debugname` starts the path shown in errors,
/// `hook` maps every object before it is written.
pub fn write_object(ctx: &Ctx, value: Value, debugname: Option<String>, hook: Option<Function>) -> mlua::Result<()> {
    let mut w = Writer {
        ctx,
        hook,
        names: Vec::new(),
    };
    w.object(value, debugname.map(Name::Text).unwrap_or_else(unnamed))
}

impl Writer<'_, '_> {
    fn int(&self, v: i32) -> mlua::Result<()> {
        self.ctx.with(METHOD, |c| c.write_scalar(v)).map(|_| ())
    }

    fn long(&self, v: &[i64]) -> mlua::Result<()> {
        self.ctx.with(METHOD, |c| c.write_from(v)).map(|_| ())
    }

    fn chars(&self, bytes: &[u8]) -> mlua::Result<()> {
        let len = i32::try_from(bytes.len()).map_err(|_| error(METHOD, "string longer than 2 GiB"))?;
        self.int(len)?;
        // SAFETY: u8 and i8 have the same layout; Char elements are raw bytes.
        let chars = unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<i8>(), bytes.len()) };
        self.ctx.with(METHOD, |c| c.write_from(chars)).map(|_| ())
    }

    fn unwritable(&self, v: &Value) -> mlua::Error {
        error(
            METHOD,
            format!("Unwritable object <{}> at {}", v.type_name(), format_names(&self.names)),
        )
    }

    /// Gives the next index; with references on, remembers `key` so later copies write only it.
    fn register(&self, key: Identity, keep: Value) -> mlua::Result<(i32, bool)> {
        let lua = self.ctx.lua;
        let (index, keep_in) = self.ctx.with(METHOD, |c| {
            let refs = &mut c.refs;
            if refs.enabled
                && let Some(&i) = refs.written.get(&key)
            {
                return Ok((i, None));
            }
            refs.counter = refs
                .counter
                .checked_add(1)
                .ok_or_else(|| Error::shape("too many objects"))?;
            let i = refs.counter;
            if !refs.enabled {
                return Ok((i, Some(None)));
            }
            refs.written.insert(key, i);
            let table = lua_table(lua, &mut refs.keep).map_err(|e| Error::shape(e.to_string()))?;
            Ok((i, Some(Some(table))))
        })?;
        match keep_in {
            None => Ok((index, false)),
            Some(table) => {
                if let Some(t) = table {
                    t.raw_set(index, keep)?;
                }
                Ok((index, true))
            }
        }
    }

    fn object(&mut self, value: Value, name: Name) -> mlua::Result<()> {
        let _depth = DepthGuard::enter(self.ctx.core, METHOD)?;
        let original = value.clone();
        let object = match &self.hook {
            Some(h) => h.call::<Value>(value)?,
            None => value,
        };
        if object.is_nil() {
            return self.int(TYPE_NIL);
        }
        self.names.push(name);
        if let Value::UserData(ud) = &object
            && classify(&object).is_none()
        {
            let handle = self.ctx.with(METHOD, |c| {
                Ok(c.out_of_band
                    .as_ref()
                    .and_then(|o| o.handles.as_ref())
                    .and_then(|h| (h.of)(ud)))
            })?;
            if let Some(handle) = handle {
                self.ctx.with(METHOD, |c| {
                    if let Some(h) = c.out_of_band.as_mut().and_then(|o| o.handles.as_mut()) {
                        h.written.push(handle);
                    }
                    Ok(())
                })?;
                self.int(TYPE_HANDLE)?;
                self.names.pop();
                return Ok(());
            }
        }
        let kind = classify_value(self.ctx, &object)?.ok_or_else(|| self.unwritable(&object))?;
        match kind {
            Kind::Nil => self.int(TYPE_NIL)?,
            Kind::Number(n) => {
                self.int(TYPE_NUMBER)?;
                self.ctx.with(METHOD, |c| c.write_scalar(n))?;
            }
            Kind::Boolean(b) => {
                self.int(TYPE_BOOLEAN)?;
                self.int(b as i32)?;
            }
            Kind::Str(s) => {
                self.int(TYPE_STRING)?;
                self.chars(&s.as_bytes())?;
            }
            Kind::Table(t) => {
                self.int(TYPE_TABLE)?;
                let (index, fresh) = self.register(identity(self.ctx, &original), object.clone())?;
                self.int(index)?;
                if fresh {
                    self.table_body(&t)?;
                }
            }
            Kind::Torch(class) => {
                self.int(TYPE_TORCH)?;
                let (index, fresh) = self.register(identity(self.ctx, &original), object.clone())?;
                self.int(index)?;
                if fresh {
                    self.torch_body(&object, &class)?;
                }
            }
            Kind::Function(f, code) => {
                self.int(TYPE_RECUR_FUNCTION)?;
                let (index, fresh) = self.register(identity(self.ctx, &original), object.clone())?;
                self.int(index)?;
                if fresh {
                    self.function_body(&f, &code)?;
                }
            }
        }
        self.names.pop();
        Ok(())
    }

    fn table_body(&mut self, t: &Table) -> mlua::Result<()> {
        if self.hook.is_none() && self.plain_table(t)? {
            return Ok(());
        }
        // Counted first, then written while iterating (not collected: a big table would need as
        // many live references as entries).
        let mut count: usize = 0;
        for pair in t.pairs::<Value, Value>() {
            pair?;
            count += 1;
        }
        let n = i32::try_from(count).map_err(|_| error(METHOD, "table too large"))?;
        self.int(n)?;
        let in_upvalue_entry = self.names.len() >= 2 && matches!(self.names[self.names.len() - 2], Name::Upvalues);
        let mut written = 0;
        for pair in t.pairs::<Value, Value>() {
            let (k, v) = pair?;
            written += 1;
            if written > count {
                break;
            }
            let mut name = key_text(&k);
            if in_upvalue_entry
                && name.as_deref() == Some("value")
                && let Ok(Value::String(up)) = t.raw_get::<Value>("name")
            {
                name = Some(up.to_string_lossy());
            }
            self.object(k, unnamed())?;
            self.object(v, name.map(Name::Text).unwrap_or_else(unnamed))?;
        }
        if written != count {
            return Err(error(
                METHOD,
                format!("a table changed while it was written ({count} entries, then {written})"),
            ));
        }
        Ok(())
    }

    /// Writes a table whose keys and values are all numbers, booleans and strings in one pass,
    /// without the bookkeeping of a general object: the usual message between processes (a
    /// scheduler's chunk of data, a queue's items), written several times faster. Returns false,
    /// having written nothing, when any entry is something else.
    fn plain_table(&mut self, t: &Table) -> mlua::Result<bool> {
        fn plain(v: &Value) -> bool {
            matches!(
                v,
                Value::Integer(_) | Value::Number(_) | Value::Boolean(_) | Value::String(_)
            )
        }
        let mut entries = Vec::new();
        for pair in t.pairs::<Value, Value>() {
            let (k, v) = pair?;
            if !plain(&k) || !plain(&v) {
                return Ok(false);
            }
            entries.push((k, v));
        }
        let n = i32::try_from(entries.len()).map_err(|_| error(METHOD, "table too large"))?;
        self.ctx.with(METHOD, |c| {
            c.write_scalar(n)?;
            for (k, v) in &entries {
                write_plain(c, k)?;
                write_plain(c, v)?;
            }
            Ok(())
        })?;
        Ok(true)
    }

    fn torch_body(&mut self, object: &Value, class: &str) -> mlua::Result<()> {
        if let Some(t) = tensor_of(object) {
            self.chars(b"V 1")?;
            self.chars(class.as_bytes())?;
            return self.tensor_body(&t, None);
        }
        if let Some(dev) = device_classes(self.ctx.lua) {
            if let Some(t) = (dev.tensor_of)(object) {
                self.chars(b"V 1")?;
                self.chars(class.as_bytes())?;
                return self.tensor_body(&t, Some(dev));
            }
            if let Some(s) = (dev.storage_of)(object) {
                self.chars(b"V 1")?;
                self.chars(class.as_bytes())?;
                if self.device_storage_beside(&s)? {
                    return Ok(());
                }
                let host = (dev.to_host)(&s).named(METHOD)?;
                return self.storage_body(&host);
            }
        }
        if let Some(Object::Storage(ud, d)) = classify(object) {
            self.chars(b"V 1")?;
            self.chars(class.as_bytes())?;
            let s = dispatch!(d, T => ud.borrow::<crate::torch::userdata::StorageUd<T>>()?.storage.clone());
            return self.storage_body(&s);
        }
        let version = match class_table(self.ctx, class)?.map(|c| c.get::<Value>("__version")) {
            Some(Ok(Value::Integer(i))) => i.to_string(),
            Some(Ok(Value::Number(n))) => number_text(n),
            Some(Ok(Value::String(s))) => s.to_string_lossy(),
            _ => "1".to_string(),
        };
        self.chars(format!("V {version}").as_bytes())?;
        self.chars(class.as_bytes())?;
        if let Some(write) = class_method(self.ctx, class, "write")? {
            return write.call::<()>((object.clone(), self.ctx.file()?));
        }
        let Value::Table(t) = object else {
            return Err(error(
                METHOD,
                format!(
                    "<{class}> is a non-serializable Torch object {}",
                    format_names(&self.names)
                ),
            ));
        };
        // The fields as a plain table; values that cannot be written are left out with a warning.
        let fields = self.ctx.lua.create_table()?;
        for pair in t.pairs::<Value, Value>() {
            let (k, v) = pair?;
            if writable_tag(self.ctx, &v)?.is_some() {
                fields.raw_set(k, v)?;
            } else {
                let print: Function = self.ctx.lua.globals().get("print")?;
                print.call::<()>(format!(
                    "$ Warning: cannot write object field <{}> of <{class}> {}",
                    key_text(&k).unwrap_or_else(|| k.type_name().to_string()),
                    format_names(&self.names)
                ))?;
            }
        }
        self.object(Value::Table(fields), Name::Text(class.to_string()))
    }

    /// A tensor's payload; `dev` when it is a tensor of that family (its storage is then written
    /// under the family's class name, with a host copy of the data).
    fn tensor_body(&mut self, t: &Tensor, dev: Option<DeviceClasses>) -> mlua::Result<()> {
        let ndim = i32::try_from(t.dim()).map_err(|_| error(METHOD, "too many dimensions"))?;
        self.int(ndim)?;
        let size: Vec<i64> = t.size.iter().map(|&s| s as i64).collect();
        let stride: Vec<i64> = t.stride.iter().map(|&s| s as i64).collect();
        self.long(&size)?;
        self.long(&stride)?;
        self.long(&[t.offset as i64 + 1])?;
        match &t.storage {
            None => self.int(TYPE_NIL),
            Some(s) => self.storage_object(s, dev),
        }
    }

    /// A tensor's storage as a full object (tag, index or back-reference, class, payload).
    fn storage_object(&mut self, s: &Storage, dev: Option<DeviceClasses>) -> mlua::Result<()> {
        let _depth = DepthGuard::enter(self.ctx.core, METHOD)?;
        self.int(TYPE_TORCH)?;
        let key = Identity::Storage(s.id());
        let (index, fresh) = self.ctx.with(METHOD, |c| {
            let refs = &mut c.refs;
            if refs.enabled
                && let Some(&i) = refs.written.get(&key)
            {
                return Ok((i, false));
            }
            refs.counter = refs
                .counter
                .checked_add(1)
                .ok_or_else(|| Error::shape("too many objects"))?;
            let i = refs.counter;
            if refs.enabled {
                refs.written.insert(key, i);
                refs.keep_storages.push(s.clone());
            }
            Ok((i, true))
        })?;
        self.int(index)?;
        if fresh {
            self.chars(b"V 1")?;
            match dev {
                None => {
                    self.chars(s.dtype().storage_typename().as_bytes())?;
                    self.storage_body(s)?;
                }
                Some(dev) => {
                    let class = (dev.storage_typename)(s.dtype())
                        .ok_or_else(|| error(METHOD, format!("no device storage class for {:?}", s.dtype())))?;
                    self.chars(class.as_bytes())?;
                    if !self.device_storage_beside(s)? {
                        let host = (dev.to_host)(s).named(METHOD)?;
                        self.storage_body(&host)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// A device storage left beside the stream when the transport asks for them (its length is
    /// written, the storage listed); false when it must be written here.
    fn device_storage_beside(&mut self, s: &Storage) -> mlua::Result<bool> {
        let beside = self.ctx.with(METHOD, |c| {
            Ok(c.out_of_band.as_ref().is_some_and(|o| o.device_storages))
        })?;
        if beside {
            self.long(&[s.len() as i64])?;
            self.ctx.with(METHOD, |c| {
                if let Some(o) = c.out_of_band.as_mut() {
                    o.written.push(s.clone());
                }
                Ok(())
            })?;
        }
        Ok(beside)
    }

    fn storage_body(&mut self, s: &Storage) -> mlua::Result<()> {
        self.long(&[s.len() as i64])?;
        let beside = self.ctx.with(METHOD, |c| {
            Ok(match c.out_of_band.as_mut() {
                Some(oob) if oob.carries(s.dtype(), s.len()) => {
                    oob.written.push(s.clone());
                    true
                }
                _ => false,
            })
        })?;
        if beside {
            return Ok(());
        }
        dispatch!(s.dtype(), T => {
            // SAFETY: read-only view of the storage while it is written; nothing else runs.
            let data = unsafe { s.as_slice::<T>() };
            self.ctx.with(METHOD, |c| c.write_from(data))?;
        });
        Ok(())
    }

    /// ipc's rule: a closure travels between threads only when asked (`writeup`).
    fn refuse_closure(&self, f: &Function) -> mlua::Result<()> {
        let refuse = self.ctx.with(METHOD, |c| {
            Ok(c.out_of_band.as_ref().is_some_and(|o| o.refuse_upvalues))
        })?;
        if !refuse {
            return Ok(());
        }
        let h = self.ctx.helpers;
        let mut names = Vec::new();
        for i in 1i64.. {
            let (name, _): (Value, Value) = h.getupvalue.call((f.clone(), i))?;
            let Value::String(name) = name else { break };
            if name.as_bytes().as_ref() != b"_ENV" {
                names.push(name.to_string_lossy());
            }
        }
        if names.is_empty() {
            return Ok(());
        }
        let info = f.info();
        let src = info.short_src.unwrap_or_else(|| "?".into());
        let line = info.line_defined.map_or(-1, |l| l as i64);
        Err(mlua::Error::RuntimeError(format!(
            "Attempt to serialize closure '{src}:{line}' with {} upvalues; first is: '{}'.\nConsider using ipc.workqueue.writeup() instead.",
            names.len(),
            names[0]
        )))
    }

    fn function_body(&mut self, f: &Function, code: &[u8]) -> mlua::Result<()> {
        self.refuse_closure(f)?;
        let lua = self.ctx.lua;
        let h = self.ctx.helpers;
        let upvalues = lua.create_table()?;
        let mut i = 1i64;
        loop {
            let (name, value): (Value, Value) = h.getupvalue.call((f.clone(), i))?;
            let Value::String(name) = name else { break };
            let is_env = name.as_bytes().as_ref() == b"_ENV";
            let entry = lua.create_table()?;
            entry.raw_set("name", name)?;
            if let Value::LightUserData(cell) = h.upvalueid.call::<Value>((f.clone(), i))? {
                let id = self.ctx.with(METHOD, |c| {
                    let next = c.refs.upvalue_ids.len() as i32 + 1;
                    Ok(*c.refs.upvalue_ids.entry(cell.0 as usize).or_insert(next))
                })?;
                entry.raw_set("id", id)?;
            }
            if !is_env {
                entry.raw_set("value", value)?;
            }
            upvalues.raw_set(i, entry)?;
            i += 1;
        }
        self.chars(code)?;
        self.object(Value::Table(upvalues), Name::Upvalues)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_lua_tostring() {
        assert_eq!(number_text(3.0), "3");
        assert_eq!(number_text(-0.5), "-0.5");
        assert_eq!(number_text(0.1), "0.1");
        assert_eq!(number_text(1e300), "1e+300");
    }

    #[test]
    fn name_paths_skip_upvalue_lists_and_their_indices() {
        let t = |s: &str| Name::Text(s.into());
        assert_eq!(format_names(&[t("<?>"), t("a"), t("b")]), "<?>.a.b");
        assert_eq!(
            format_names(&[t("<?>"), t("f"), Name::Upvalues, t("1"), t("count")]),
            "<?>.f.count"
        );
        assert_eq!(format_names(&[]), "");
    }
}
