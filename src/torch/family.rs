//! Tensor families: the host tensors of this module, and tensors whose memory lives elsewhere
//! (cutorch's device tensors, `crate::cuda`). Both are a `tensor::Tensor` over a `Storage` in
//! userdata of their own types, so the view methods (`methods::shape`), the constructors and
//! `resize` are written once over a family; what touches the elements goes through it.

use mlua::{Lua, Value};

use super::base::dtype::DType;
use super::base::storage::Storage;
use super::base::tensor::Tensor;
use super::kernels::element;
use super::userdata::{self, Host};
use crate::args::{Args, arg, error, type_name};
use crate::error::Result;

pub trait Family: Sized + 'static {
    fn tensor_typename(dtype: DType) -> &'static str;
    fn storage_typename(dtype: DType) -> &'static str;
    /// A zero-filled storage of `len` elements, where this family keeps its memory.
    fn new_storage(dtype: DType, len: usize) -> Result<Storage>;
    /// Grows or shrinks `s` in place, keeping the common prefix (Torch's storage resize: every
    /// view sharing it sees the new memory).
    fn resize_storage(s: &Storage, len: usize) -> Result<()>;
    /// Element `offset` of `s` as a Lua number (`offset` is inside `s`).
    fn read(s: &Storage, offset: usize) -> Result<f64>;
    /// Sets element `offset` of `s` from a Lua number (converted as a C cast).
    fn write(s: &Storage, offset: usize, v: f64) -> Result<()>;
    /// A tensor of this family with the values of `t`, a contiguous host tensor of the same type.
    fn from_host(t: Tensor) -> Result<Tensor>;

    fn tensor_of(v: &Value) -> Option<Tensor> {
        userdata::tensor_of_in::<Self>(v)
    }

    fn storage_of(v: &Value) -> Option<Storage> {
        userdata::storage_of_in::<Self>(v)
    }

    fn push_tensor(lua: &Lua, t: Tensor) -> mlua::Result<Value> {
        userdata::push_tensor_in::<Self>(lua, t)
    }

    fn push_storage(lua: &Lua, s: Storage) -> mlua::Result<Value> {
        userdata::push_storage_in::<Self>(lua, s)
    }

    /// Replaces the view of the tensor userdata `v`.
    fn set_view(v: &Value, t: Tensor) -> mlua::Result<()> {
        userdata::set_view_in::<Self>(v, t)
    }

    /// The tensor argument at `pos` (1-based), or an error naming `method`.
    fn tensor_arg(a: &Args, pos: usize, method: &str) -> mlua::Result<Tensor> {
        let v = arg(a, pos);
        Self::tensor_of(v).ok_or_else(|| {
            error(
                method,
                format!("bad argument #{pos} (tensor expected, got {})", type_name(v)),
            )
        })
    }
}

impl Family for Host {
    fn tensor_typename(dtype: DType) -> &'static str {
        dtype.tensor_typename()
    }

    fn storage_typename(dtype: DType) -> &'static str {
        dtype.storage_typename()
    }

    fn new_storage(dtype: DType, len: usize) -> Result<Storage> {
        Storage::new(dtype, len)
    }

    fn resize_storage(s: &Storage, len: usize) -> Result<()> {
        s.resize(len)
    }

    fn read(s: &Storage, offset: usize) -> Result<f64> {
        Ok(element::read(s, offset))
    }

    fn write(s: &Storage, offset: usize, v: f64) -> Result<()> {
        element::write(s, offset, v);
        Ok(())
    }

    fn from_host(t: Tensor) -> Result<Tensor> {
        Ok(t)
    }
}
