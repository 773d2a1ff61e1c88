//! A chunk of tensors of one type and size as one block for the scheduler's workers in other
//! processes: one tensor travels, its elements in one piece, instead of a `.t7` object (and its
//! size, stride and storage records) per tensor; the other side cuts it back into tensors (or,
//! for a 1-D block, numbers). lua/scheduler/blocks.lua does the same for numbers itself.

use mlua::{Lua, Result, Table, Value};

use crate::args::{error, type_name};
use crate::calls;
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::copy::copy;
use crate::torch::kernels::element::read;
use crate::torch::lua_list::list;
use crate::torch::userdata::{push_tensor, tensor_of};

/// `_stack(list, from, n)`: `list[from] .. list[from+n-1]` as one contiguous tensor of size
/// n x (their size) when they are all host tensors of one type and size with at least one
/// element; nil otherwise (the chunk travels as it is). Numbers are stacked by the Lua side
/// (lua/scheduler/blocks.lua), through an FFI pointer, faster than the C API reads them here.
fn stack(lua: &Lua, (list, from, n): (Table, i64, usize)) -> Result<Value> {
    let mut items: Vec<Tensor> = Vec::with_capacity(n);
    for i in 0..n {
        let Some(t) = tensor_of(&list.raw_get::<Value>(from + i as i64)?) else {
            return Ok(Value::Nil);
        };
        let alike = match items.first() {
            Some(first) => t.dtype == first.dtype && t.size == first.size,
            None => t.numel() > 0,
        };
        if !alike || t.storage_checked().is_err() {
            return Ok(Value::Nil);
        }
        items.push(t);
    }
    let Some(first) = items.first() else {
        return Ok(Value::Nil);
    };
    let mut size = Vec::with_capacity(first.dim() + 1);
    size.push(n);
    size.extend_from_slice(&first.size);
    let fail = |e: crate::error::Error| error("scheduler", e.to_string());
    let block = Tensor::zeros(first.dtype, &size).map_err(fail)?;
    for (i, t) in items.iter().enumerate() {
        copy(&block.select(0, i).map_err(fail)?, t).map_err(fail)?;
    }
    push_tensor(lua, block)
}

/// `_unstack(block)`: a block's numbers (1-D), or the list of `block[1]`, `block[2]`, ... each
/// copied into a tensor of its own (a task's tensor has its own storage, as it would have had
/// travelling alone: resizing it cannot reach its neighbours).
fn unstack(lua: &Lua, block: Value) -> Result<Table> {
    const M: &str = "scheduler";
    let block = &block;
    let block = match tensor_of(block) {
        Some(t) if t.dim() >= 1 => t,
        _ => {
            return Err(error(
                M,
                format!("internal: a block expected, got {}", type_name(block)),
            ));
        }
    };
    let storage = block.storage_checked().map_err(|e| error(M, e.to_string()))?;
    if block.dim() == 1 {
        let (n, offset, stride) = (block.size[0], block.offset, block.stride[0]);
        if block.dtype == DType::Double && stride == 1 {
            // SAFETY: a host storage holding the view's n doubles (checked above), read only.
            let values = unsafe { &storage.as_slice::<f64>()[offset..offset + n] };
            return list(lua, n, values.iter().copied());
        }
        return list(lua, n, (0..n).map(|i| read(storage, offset + i * stride)));
    }
    let fail = |e: crate::error::Error| error(M, e.to_string());
    let n = block.size[0];
    let out = lua.create_table_with_capacity(n, 0)?;
    for i in 0..n {
        let view = block.select(0, i).map_err(fail)?;
        let own = Tensor::zeros(view.dtype, &view.size).map_err(fail)?;
        copy(&own, &view).map_err(fail)?;
        out.raw_set(i + 1, push_tensor(lua, own)?)?;
    }
    Ok(out)
}

pub fn register(lua: &Lua, t: &Table) -> Result<()> {
    calls::add(lua, t, "_stack", stack)?;
    calls::add(lua, t, "_unstack", unstack)
}
