//! Loading and saving: files and in-memory buffers (ByteTensors) in PNG, JPEG and PPM/PGM.
//! The Lua side passes the format, the element type wanted and the name of the function the
//! user called, which every error starts with (`image.load: cannot read 'x.png': ...`).

use mlua::{Lua, Result, Table, Value, Variadic};

use super::tensors::{data, data_mut, layout, not_an_image_type, on_image_type, tensor};
use crate::calls;
use crate::error::{Error, Result as KResult};
use crate::image::kernels::codec::{self, Decoded};
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::userdata::push_tensor;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Png,
    Jpeg,
    Ppm,
}

impl Format {
    fn of(name: &str) -> KResult<Format> {
        match name {
            "png" => Ok(Format::Png),
            "jpg" => Ok(Format::Jpeg),
            "ppm" => Ok(Format::Ppm),
            _ => Err(Error::argument(format!("unknown format '{name}'"))),
        }
    }

    fn decode(self, bytes: &[u8]) -> KResult<Decoded> {
        match self {
            Format::Png => codec::png::decode(bytes),
            Format::Jpeg => codec::jpeg::decode(bytes),
            Format::Ppm => codec::ppm::decode(bytes),
        }
    }

    fn size(self, bytes: &[u8]) -> KResult<(usize, usize, usize)> {
        match self {
            Format::Png => codec::png::size(bytes),
            Format::Jpeg => codec::jpeg::size(bytes),
            Format::Ppm => codec::ppm::size(bytes),
        }
    }

    fn encode(self, pixels: &[u8], c: usize, h: usize, w: usize, quality: i64) -> KResult<Vec<u8>> {
        match self {
            Format::Png => codec::png::encode(pixels, c, h, w),
            Format::Jpeg => codec::jpeg::encode(pixels, c, h, w, quality),
            Format::Ppm => codec::ppm::encode(pixels, c, h, w),
        }
    }
}

fn text(v: &Value, what: &str) -> KResult<String> {
    match v {
        Value::String(s) => Ok(s.to_string_lossy()),
        _ => Err(Error::argument(format!("{what} expected"))),
    }
}

fn arg(a: &Variadic<Value>, i: usize) -> &Value {
    a.get(i).unwrap_or(&Value::Nil)
}

/// The function to name in errors: the last argument.
fn caller(a: &Variadic<Value>, i: usize) -> String {
    match arg(a, i) {
        Value::String(s) => s.to_string_lossy(),
        _ => "image".into(),
    }
}

/// Runs `f` on the arguments, its errors named after the caller that argument `i` names.
fn named_by_caller<R>(a: &Variadic<Value>, i: usize, f: impl FnOnce(&Variadic<Value>) -> KResult<R>) -> Result<R> {
    f(a).map_err(|e| e.named(&caller(a, i)))
}

fn dtype_of(v: &Value) -> KResult<DType> {
    let name = text(v, "tensor type")?;
    match DType::from_name(&name) {
        Some(d @ (DType::Byte | DType::Float | DType::Double)) => Ok(d),
        Some(d) => Err(not_an_image_type(d)),
        None => Err(Error::argument(format!("unknown tensor type '{name}'"))),
    }
}

fn read_file(path: &str) -> KResult<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io(format!("cannot read '{path}': {e}")))
}

/// The bytes of a 1-D ByteTensor buffer.
fn buffer_bytes(v: &Value) -> KResult<Vec<u8>> {
    let t = tensor(v, 1)?;
    if t.dtype != DType::Byte {
        return Err(Error::dtype(format!(
            "the buffer must be a torch.ByteTensor, not a {}",
            t.dtype.tensor_typename()
        )));
    }
    // SAFETY: read only, copied out at once.
    let d = unsafe { data::<u8>(&t)? };
    Ok(crate::torch::kernels::strided::Offsets::new(&t).map(|o| d[o]).collect())
}

fn to_tensor(img: &Decoded, dtype: DType) -> KResult<Tensor> {
    let t = Tensor::zeros(dtype, &[img.channels, img.height, img.width])?;
    on_image_type!(dtype, T => {
        // SAFETY: a fresh tensor no one else sees yet.
        let d = unsafe { data_mut::<T>(&t)? };
        img.planar::<T>(&mut d[..img.channels * img.height * img.width])
    })?;
    Ok(t)
}

/// `load(format, path, type, caller)` -> tensor, bit depth.
fn load(lua: &Lua, a: Variadic<Value>) -> Result<(Value, u32)> {
    named_by_caller(&a, 3, |a| {
        let format = Format::of(&text(arg(a, 0), "format")?)?;
        let path = text(arg(a, 1), "file name")?;
        let dtype = dtype_of(arg(a, 2))?;
        let bytes = read_file(&path)?;
        decoded(lua, format, &bytes, dtype, &format!("cannot read '{path}'"))
    })
}

/// `decompress(format, bytes, type, caller)` -> tensor, bit depth.
fn decompress(lua: &Lua, a: Variadic<Value>) -> Result<(Value, u32)> {
    named_by_caller(&a, 3, |a| {
        let format = Format::of(&text(arg(a, 0), "format")?)?;
        let bytes = buffer_bytes(arg(a, 1))?;
        let dtype = dtype_of(arg(a, 2))?;
        decoded(lua, format, &bytes, dtype, "cannot decode the buffer")
    })
}

/// The image `bytes` hold as a new tensor of `dtype`, and its bit depth; a failure to decode is
/// told after `what`.
fn decoded(lua: &Lua, format: Format, bytes: &[u8], dtype: DType, what: &str) -> KResult<(Value, u32)> {
    let img = format
        .decode(bytes)
        .map_err(|e| Error::corrupt(format!("{what}: {e}")))?;
    let t = to_tensor(&img, dtype)?;
    let v = push_tensor(lua, t).map_err(|e| Error::io(e.to_string()))?;
    Ok((v, img.bits))
}

/// `size(format, path, caller)` -> channels, height, width.
fn size(_: &Lua, a: Variadic<Value>) -> Result<(usize, usize, usize)> {
    named_by_caller(&a, 2, |a| {
        let format = Format::of(&text(arg(a, 0), "format")?)?;
        let path = text(arg(a, 1), "file name")?;
        let bytes = read_file(&path)?;
        format
            .size(&bytes)
            .map_err(|e| Error::corrupt(format!("cannot read '{path}': {e}")))
    })
}

/// The encoded bytes of the image argument at `i`, with the quality at `i + 1` and whether the
/// default tensor type is float at `i + 2`.
fn encoded(format: Format, a: &Variadic<Value>, i: usize) -> KResult<Vec<u8>> {
    let t = tensor(arg(a, i), i + 1)?;
    let quality = match arg(a, i + 1) {
        Value::Nil => 75,
        v => crate::args::number(v).ok_or_else(|| Error::argument("quality must be a number"))? as i64,
    };
    let single = matches!(arg(a, i + 2), Value::Boolean(true));
    if !(t.dim() == 2 || t.dim() == 3) {
        return Err(Error::shape(format!(
            "can only save a HxW or CxHxW image, not a {}D tensor",
            t.dim()
        )));
    }
    let l = layout(&t)?;
    let pixels = on_image_type!(t.dtype, T => {
        // SAFETY: read only.
        let d = unsafe { data::<T>(&t)? };
        codec::interleaved(d, &l, single)
    })?;
    format.encode(&pixels, l.channels(), l.height(), l.width(), quality)
}

/// `save(format, path, tensor, quality, single, caller)`.
fn save(_: &Lua, a: Variadic<Value>) -> Result<()> {
    named_by_caller(&a, 5, |a| {
        let format = Format::of(&text(arg(a, 0), "format")?)?;
        let path = text(arg(a, 1), "file name")?;
        let bytes = encoded(format, a, 2).map_err(|e| e.context(format!("cannot write '{path}'")))?;
        std::fs::write(&path, bytes).map_err(|e| Error::io(format!("cannot write '{path}': {e}")))
    })
}

/// `compress(format, tensor, quality, single, caller)` -> ByteTensor.
fn compress(lua: &Lua, a: Variadic<Value>) -> Result<Value> {
    named_by_caller(&a, 4, |a| {
        let format = Format::of(&text(arg(a, 0), "format")?)?;
        let bytes = encoded(format, a, 1)?;
        let storage = crate::torch::base::storage::Storage::from_slice(&bytes)?;
        push_tensor(lua, Tensor::of_storage(storage)).map_err(|e| Error::io(e.to_string()))
    })
}

pub fn register(lua: &Lua, t: &Table) -> Result<()> {
    calls::add(lua, t, "load", load)?;
    calls::add(lua, t, "decompress", decompress)?;
    calls::add(lua, t, "size", size)?;
    calls::add(lua, t, "save", save)?;
    calls::add(lua, t, "compress", compress)
}
