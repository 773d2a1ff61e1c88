//! Tensors as the kernels take them: the element type dispatch, a tensor's `Layout`, its
//! elements as slices, and sources copied when they share the destination's memory.

use mlua::Value;

use crate::error::{Error, Result as KResult};
use crate::image::kernels::{Layout, Sample};
use crate::torch::base::dtype::{DType, Element};
use crate::torch::base::tensor::Tensor;
use crate::torch::userdata::tensor_of;

/// Runs `$body` with `$t` the element type of an image tensor's `$dtype` (Byte, Float or Double);
/// other types are an error.
macro_rules! on_image_type {
    ($dtype:expr, $t:ident => $body:expr) => {
        match $dtype {
            $crate::torch::base::dtype::DType::Byte => {
                type $t = u8;
                $body
            }
            $crate::torch::base::dtype::DType::Float => {
                type $t = f32;
                $body
            }
            $crate::torch::base::dtype::DType::Double => {
                type $t = f64;
                $body
            }
            other => Err($crate::image::lua::tensors::not_an_image_type(other)),
        }
    };
}
pub(crate) use on_image_type;

pub fn not_an_image_type(d: DType) -> Error {
    Error::dtype(format!(
        "{} is not an image type (torch.ByteTensor, torch.FloatTensor or torch.DoubleTensor)",
        d.tensor_typename()
    ))
}

/// The tensor argument `v` (argument `pos`), or an error.
pub fn tensor(v: &Value, pos: usize) -> KResult<Tensor> {
    tensor_of(v).ok_or_else(|| {
        Error::argument(format!(
            "bad argument #{pos} (tensor expected, got {})",
            crate::args::type_name(v)
        ))
    })
}

/// A 2-D or 3-D tensor's pixels as a `Layout` (a 2-D one is one channel).
pub fn layout(t: &Tensor) -> KResult<Layout> {
    match t.dim() {
        2 => Ok(Layout {
            offset: t.offset,
            size: [1, t.size[0], t.size[1]],
            stride: [0, t.stride[0], t.stride[1]],
        }),
        3 => Ok(Layout {
            offset: t.offset,
            size: [t.size[0], t.size[1], t.size[2]],
            stride: [t.stride[0], t.stride[1], t.stride[2]],
        }),
        n => Err(Error::shape(format!("expected a 2D or 3D image, got a {n}D tensor"))),
    }
}

/// The elements of an image tensor, read only.
///
/// # Safety
/// No one may write the storage while the slice lives (the Lua state is single-threaded, and
/// the glue never holds a mutable slice of the same storage at once: see `Source`).
pub unsafe fn data<T: Element>(t: &Tensor) -> KResult<&[T]> {
    let s = t.storage_checked()?;
    if t.dtype != T::DTYPE {
        return Err(Error::dtype("tensor types differ"));
    }
    // SAFETY: as the caller promises.
    Ok(unsafe { s.as_slice::<T>() })
}

/// The elements of a destination tensor.
///
/// # Safety
/// As for `data`: no other slice of this storage may be live while this one is.
#[allow(clippy::mut_from_ref)]
pub unsafe fn data_mut<T: Element>(t: &Tensor) -> KResult<&mut [T]> {
    let s = t.storage_checked()?;
    if t.dtype != T::DTYPE {
        return Err(Error::dtype("tensor types differ"));
    }
    // SAFETY: as the caller promises.
    Ok(unsafe { s.as_mut_slice::<T>() })
}

/// A kernel's input: the tensor's own elements, or, when it shares memory with the destination,
/// a contiguous copy of them (so that a kernel never reads what it is writing).
pub enum Source<'a, T> {
    Borrowed(&'a [T], Layout),
    Owned(Vec<T>, Layout),
}

impl<'a, T: Element + Sample> Source<'a, T> {
    /// # Safety
    /// `src`'s storage must not be written while the result lives, except through `dst`'s
    /// storage when they are the same (then a copy is taken here).
    pub unsafe fn of(src: &'a Tensor, dst: &Tensor) -> KResult<Source<'a, T>> {
        // SAFETY: read only, as the caller promises.
        let data = unsafe { data::<T>(src)? };
        Self::of_layout(data, layout(src)?, src.shares_storage(dst))
    }

    pub fn of_layout(data: &'a [T], l: Layout, copy: bool) -> KResult<Source<'a, T>> {
        l.check(data.len())?;
        if !copy {
            return Ok(Source::Borrowed(data, l));
        }
        let mut own = Vec::with_capacity(l.numel());
        for k in 0..l.channels() {
            for y in 0..l.height() {
                for x in 0..l.width() {
                    own.push(data[l.at(k, y, x)]);
                }
            }
        }
        Ok(Source::Owned(own, Layout::contiguous(l.size)))
    }

    pub fn get(&self) -> (&[T], &Layout) {
        match self {
            Source::Borrowed(d, l) => (d, l),
            Source::Owned(d, l) => (d, l),
        }
    }
}
