//! Indexing by index tensors (index, indexCopy, indexAdd, indexFill, gather, scatter, scatterAdd,
//! nonzero), cat, reshape, the element-wise Lua callbacks (apply, map, map2) and the factories
//! (zeros, ones, eye, range, linspace, logspace).
//!
//! Argument forms follow Torch's cwrap overloads: a tensor where the source would be means a
//! result tensor came first (`res:index(src, dim, idx)`), otherwise the receiver is the source and
//! the result is new (`x:index(dim, idx)`). Factories write into a leading tensor when there is
//! one and otherwise make a tensor of the default type (`torch.setdefaulttensortype`).

use mlua::{Function, Lua, MultiValue, Result, Table, Value};

use super::copy::{copy_into, fill};
use super::{add, one, receiver};
use crate::dispatch;
use crate::torch::apply::{self, Offsets};
use crate::torch::args::{self, Args, arg, error, int_arg, number, number_arg, tensor_arg};
use crate::torch::construct;
use crate::torch::dtype::{DType, Element};
use crate::torch::layout::Tensor;
use crate::torch::storage::Storage;
use crate::torch::userdata::{push_tensor, set_view, tensor_of};

/// Addition as the element type does it in C (integers wrap).
trait Accumulate: Element {
    fn plus(self, other: Self) -> Self;
}

macro_rules! accumulate_int {
    ($($t:ty),*) => {$(
        impl Accumulate for $t {
            #[inline(always)]
            fn plus(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
        }
    )*};
}
accumulate_int!(u8, i8, i16, i32, i64);

impl Accumulate for f32 {
    #[inline(always)]
    fn plus(self, other: Self) -> Self {
        self + other
    }
}

impl Accumulate for f64 {
    #[inline(always)]
    fn plus(self, other: Self) -> Self {
        self + other
    }
}

/// `2x3` as Torch prints sizes.
fn size_text(size: &[usize]) -> String {
    if size.is_empty() {
        return "(empty)".into();
    }
    size.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("x")
}

/// Torch has no tensor with a dimension of size 0: such a result is the empty tensor.
fn normalize(size: Vec<usize>) -> Vec<usize> {
    if size.contains(&0) { Vec::new() } else { size }
}

fn new_tensor(dtype: DType, size: &[usize]) -> Result<Tensor> {
    if size.is_empty() {
        return Ok(Tensor::empty(dtype));
    }
    args::lift(Tensor::zeros(dtype, size))
}

fn shares_memory(a: &Tensor, b: &Tensor) -> bool {
    matches!((&a.storage, &b.storage), (Some(x), Some(y)) if x.same(y))
}

/// Where a result goes: a new tensor, or a result tensor given by the caller (kept as its Lua
/// value so that its view can be replaced).
struct Output {
    dtype: DType,
    into: Option<(Value, Tensor)>,
    /// The target is a scratch tensor, to be copied into the result tensor.
    scratch: bool,
}

impl Output {
    fn new(dtype: DType) -> Output {
        Output {
            dtype,
            into: None,
            scratch: false,
        }
    }

    /// The result tensor at `v`, which must have type `dtype`.
    fn into(v: &Value, dtype: DType, method: &str) -> Result<Output> {
        let t = tensor_of(v).ok_or_else(|| error(method, "expected a result tensor"))?;
        if t.dtype != dtype {
            return Err(error(
                method,
                format!(
                    "result tensor must be a {} (got {})",
                    dtype.tensor_typename(),
                    t.dtype.tensor_typename()
                ),
            ));
        }
        Ok(Output {
            dtype,
            into: Some((v.clone(), t)),
            scratch: false,
        })
    }

    /// A tensor of `size` to write the result into: the result tensor itself, resized, unless it
    /// shares memory with one of `inputs` (then a scratch tensor that `finish` copies over).
    fn target(&mut self, size: &[usize], inputs: &[&Tensor], method: &str) -> Result<Tensor> {
        match &mut self.into {
            None => new_tensor(self.dtype, size),
            Some((_, r)) if inputs.iter().any(|t| shares_memory(r, t)) => {
                self.scratch = true;
                new_tensor(self.dtype, size)
            }
            Some((v, r)) => {
                args::lift_in(method, construct::resize(r, size))?;
                set_view(v, r.clone())?;
                Ok(r.clone())
            }
        }
    }

    /// Returns the result: the new tensor, or the result tensor (copying a scratch result in).
    fn finish(self, lua: &Lua, dst: Tensor, method: &str) -> Result<MultiValue> {
        match self.into {
            None => one(push_tensor(lua, dst)?),
            Some((v, mut r)) => {
                if self.scratch {
                    args::lift_in(method, construct::resize(&mut r, &dst.size))?;
                    set_view(&v, r.clone())?;
                    copy_into(&r, &dst, method)?;
                }
                one(v)
            }
        }
    }
}

/// A LongTensor of indices at `pos`.
fn index_tensor(a: &Args, pos: usize, method: &str) -> Result<Tensor> {
    let v = arg(a, pos);
    match tensor_of(v) {
        Some(t) if t.dtype == DType::Long => Ok(t),
        _ => Err(error(
            method,
            format!(
                "bad argument #{pos} (the index must be a torch.LongTensor, got {})",
                args::type_name(v)
            ),
        )),
    }
}

/// The values of a 1-D index tensor, checked against a dimension of `size` and made 0-based.
fn index_vector(idx: &Tensor, size: usize, dim: usize, method: &str) -> Result<Vec<usize>> {
    if idx.dim() != 1 {
        return Err(error(
            method,
            format!("the index must be a vector (got a {}D tensor)", idx.dim()),
        ));
    }
    let s = args::lift_in(method, idx.storage_checked())?;
    let p = s.ptr::<i64>();
    Offsets::new(idx)
        .map(|o| {
            // SAFETY: offsets of a checked view.
            let k = unsafe { *p.add(o) };
            check_index(k, size, dim, method)
        })
        .collect()
}

fn check_index(k: i64, size: usize, dim: usize, method: &str) -> Result<usize> {
    if k < 1 || k as u64 > size as u64 {
        return Err(error(
            method,
            format!("index {k} out of range for dimension {} of size {size}", dim + 1),
        ));
    }
    Ok(k as usize - 1)
}

/// `t.narrow(dim, i, 1)`: the slice at `i` keeping the dimension, so that 1-D tensors give one
/// element instead of a tensor with no dimension.
fn slice(t: &Tensor, dim: usize, i: usize) -> Tensor {
    let mut s = t.clone();
    s.offset += i * t.stride[dim];
    s.size[dim] = 1;
    s
}

/// Elements per slice along `dim`.
fn slice_numel(t: &Tensor, dim: usize) -> usize {
    t.size
        .iter()
        .enumerate()
        .filter(|&(d, _)| d != dim)
        .map(|(_, &s)| s)
        .product()
}

fn ptr<T: Element>(t: &Tensor, method: &str) -> Result<*mut T> {
    Ok(args::lift_in(method, t.storage_checked())?.ptr::<T>())
}

/// dst[i] = src[idx[i]] along `dim`; `dst` already has the result's size.
fn index_select_into<T: Element>(dst: &Tensor, src: &Tensor, dim: usize, idx: &[usize], method: &str) -> Result<()> {
    let pd = ptr::<T>(dst, method)?;
    let ps = ptr::<T>(src, method)?;
    // SAFETY: every access is inside the checked views (indices were range-checked).
    unsafe {
        if src.dim() == 1 {
            let (sd, ss) = (dst.stride[0], src.stride[0]);
            for (i, &k) in idx.iter().enumerate() {
                *pd.add(dst.offset + i * sd) = *ps.add(src.offset + k * ss);
            }
        } else if dim == 0 && src.is_contiguous() && dst.is_contiguous() {
            let row = slice_numel(src, 0);
            for (i, &k) in idx.iter().enumerate() {
                std::ptr::copy_nonoverlapping(ps.add(src.offset + k * row), pd.add(dst.offset + i * row), row);
            }
        } else if dim == 0 {
            for (i, &k) in idx.iter().enumerate() {
                apply::for_each_pair(pd, &slice(dst, dim, i), ps, &slice(src, dim, k), |a, b| *a = *b);
            }
        } else {
            // Along an inner dimension, walking line by line reads each source row once instead
            // of striding through it once per index.
            let (sd, ss) = (dst.stride[dim], src.stride[dim]);
            for_each_line([dst, src], dim, |[bd, bs]| {
                for (i, &k) in idx.iter().enumerate() {
                    *pd.add(bd + i * sd) = *ps.add(bs + k * ss);
                }
                Ok(())
            })?;
        }
    }
    Ok(())
}

/// The two shapes of a method with an optional result: `x:f(...)` (a new result from x) and
/// `res:f(src, ...)`. Returns the output, the source and the position of the next argument.
fn source_and_output(a: &Args, method: &str) -> Result<(Output, Tensor, usize)> {
    let first = tensor_arg(a, 1, method)?;
    Ok(match tensor_of(arg(a, 2)) {
        Some(src) => (Output::into(arg(a, 1), src.dtype, method)?, src, 3),
        None => (Output::new(first.dtype), first, 2),
    })
}

/// `x:index(dim, idx)` (new tensor) or `res:index(src, dim, idx)`.
fn index(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "index";
    let (mut out, src, p) = source_and_output(&a, M)?;
    let idx = index_tensor(&a, p + 1, M)?;
    if idx.dim() != 1 {
        return Err(error(
            M,
            format!("the index must be a vector (got a {}D tensor)", idx.dim()),
        ));
    }
    if src.dim() == 0 {
        return Err(error(M, "the source tensor is empty"));
    }
    let dim = args::dim_arg(&a, p, &src, M)?;
    let ks = index_vector(&idx, src.size[dim], dim, M)?;
    let mut size = src.size.clone();
    size[dim] = ks.len();
    let dst = out.target(&normalize(size), &[&src, &idx], M)?;
    if dst.numel() > 0 {
        dispatch!(src.dtype, T => index_select_into::<T>(&dst, &src, dim, &ks, M))?;
    }
    out.finish(lua, dst, M)
}

/// Shared checks of indexCopy and indexAdd: `x:f(dim, idx, src)`.
fn index_update(a: &Args, method: &str) -> Result<(Tensor, usize, Vec<usize>, Tensor)> {
    let t = tensor_arg(a, 1, method)?;
    let idx = index_tensor(a, 3, method)?;
    let src = tensor_arg(a, 4, method)?;
    if src.dtype != t.dtype {
        return Err(error(
            method,
            format!(
                "bad argument #4 (source must be a {}, got {})",
                t.dtype.tensor_typename(),
                src.dtype.tensor_typename()
            ),
        ));
    }
    let dim = args::dim_arg(a, 2, &t, method)?;
    if dim >= src.dim() {
        return Err(error(
            method,
            format!("dimension {} out of range of the {}D source", dim + 1, src.dim()),
        ));
    }
    let ks = index_vector(&idx, t.size[dim], dim, method)?;
    if ks.len() != src.size[dim] {
        return Err(error(
            method,
            format!(
                "number of indices ({}) should be equal to source:size({}) ({})",
                ks.len(),
                dim + 1,
                src.size[dim]
            ),
        ));
    }
    if slice_numel(&t, dim) != slice_numel(&src, dim) {
        return Err(error(
            method,
            format!(
                "inconsistent tensor sizes: slices of the {} tensor along dimension {} have {} elements, slices of the {} source have {}",
                size_text(&t.size),
                dim + 1,
                slice_numel(&t, dim),
                size_text(&src.size),
                slice_numel(&src, dim)
            ),
        ));
    }
    Ok((t, dim, ks, src))
}

fn index_copy_kernel<T: Accumulate>(
    t: &Tensor,
    dim: usize,
    ks: &[usize],
    src: &Tensor,
    add: bool,
    method: &str,
) -> Result<()> {
    let pt = ptr::<T>(t, method)?;
    let ps = ptr::<T>(src, method)?;
    let same_shape = t.dim() == src.dim() && (0..t.dim()).all(|d| d == dim || t.size[d] == src.size[d]);
    if dim > 0 && same_shape && !shares_memory(t, src) {
        // Line by line, as in index_select_into; without aliasing the order of writes cannot
        // change the result.
        let (st, ss) = (t.stride[dim], src.stride[dim]);
        return for_each_line([t, src], dim, |[bt, bs]| {
            for (i, &k) in ks.iter().enumerate() {
                // SAFETY: lines of checked views; k was range-checked.
                unsafe {
                    let x = pt.add(bt + k * st);
                    let y = *ps.add(bs + i * ss);
                    *x = if add { (*x).plus(y) } else { y };
                }
            }
            Ok(())
        });
    }
    for (i, &k) in ks.iter().enumerate() {
        let (d, s) = (slice(t, dim, k), slice(src, dim, i));
        // SAFETY: slices of checked views; aliasing is allowed by for_each_pair.
        unsafe {
            if add {
                apply::for_each_pair(pt, &d, ps, &s, |x, y| *x = x.plus(*y));
            } else {
                apply::for_each_pair(pt, &d, ps, &s, |x, y| *x = *y);
            }
        }
    }
    Ok(())
}

fn index_fill(_: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "indexFill";
    let t = tensor_arg(&a, 1, M)?;
    let idx = index_tensor(&a, 3, M)?;
    let v = number_arg(&a, 4, M)?;
    let dim = args::dim_arg(&a, 2, &t, M)?;
    for k in index_vector(&idx, t.size[dim], dim, M)? {
        fill(&slice(&t, dim, k), v, M)?;
    }
    receiver(&a)
}

/// Calls `f` with the base offsets of every line along `dim` of tensors that have the same sizes
/// except along `dim` (Torch's TH_TENSOR_DIM_APPLY), in logical order.
fn for_each_line<const N: usize>(
    ts: [&Tensor; N],
    dim: usize,
    mut f: impl FnMut([usize; N]) -> Result<()>,
) -> Result<()> {
    let outer: Vec<Tensor> = ts
        .iter()
        .map(|t| {
            let mut o = (*t).clone();
            o.size[dim] = 1;
            o
        })
        .collect();
    if outer[0].numel() == 0 {
        return Ok(());
    }
    let mut iters: Vec<Offsets> = outer.iter().map(Offsets::new).collect();
    loop {
        let mut bases = [0usize; N];
        for (b, it) in bases.iter_mut().zip(iters.iter_mut()) {
            match it.next() {
                Some(o) => *b = o,
                None => return Ok(()),
            }
        }
        f(bases)?;
    }
}

/// Sizes must agree except along `dim`.
pub(crate) fn check_same_except(
    t: &Tensor,
    what: &str,
    reference: &Tensor,
    ref_what: &str,
    dim: usize,
    method: &str,
) -> Result<()> {
    if t.dim() != reference.dim() {
        return Err(error(
            method,
            format!(
                "{what} must have as many dimensions as {ref_what} ({} vs {})",
                t.dim(),
                reference.dim()
            ),
        ));
    }
    for d in 0..t.dim() {
        if d != dim && t.size[d] != reference.size[d] {
            return Err(error(
                method,
                format!(
                    "inconsistent tensor size: {what} is {} and {ref_what} is {}, which differ in dimension {}",
                    size_text(&t.size),
                    size_text(&reference.size),
                    d + 1
                ),
            ));
        }
    }
    Ok(())
}

fn gather_kernel<T: Element>(dst: &Tensor, src: &Tensor, dim: usize, idx: &Tensor, method: &str) -> Result<()> {
    let (pd, ps, pi) = (ptr::<T>(dst, method)?, ptr::<T>(src, method)?, ptr::<i64>(idx, method)?);
    let n = idx.size[dim];
    let (sd, ss, si) = (dst.stride[dim], src.stride[dim], idx.stride[dim]);
    let src_size = src.size[dim];
    for_each_line([dst, src, idx], dim, |[bd, bs, bi]| {
        for i in 0..n {
            // SAFETY: lines of checked views; k is range-checked before the read.
            unsafe {
                let k = check_index(*pi.add(bi + i * si), src_size, dim, method)?;
                *pd.add(bd + i * sd) = *ps.add(bs + k * ss);
            }
        }
        Ok(())
    })
}

/// `x:gather(dim, idx)` (new tensor of idx's size) or `res:gather(src, dim, idx)`.
fn gather(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "gather";
    let (mut out, src, p) = source_and_output(&a, M)?;
    let idx = index_tensor(&a, p + 1, M)?;
    let dim = args::dim_arg(&a, p, &src, M)?;
    check_same_except(&idx, "the index", &src, "the source", dim, M)?;
    let dst = out.target(&normalize(idx.size.clone()), &[&src, &idx], M)?;
    if dst.numel() > 0 {
        dispatch!(src.dtype, T => gather_kernel::<T>(&dst, &src, dim, &idx, M))?;
    }
    out.finish(lua, dst, M)
}

fn scatter_kernel<T: Accumulate>(
    t: &Tensor,
    dim: usize,
    idx: &Tensor,
    src: &Tensor,
    add: bool,
    method: &str,
) -> Result<()> {
    let (pt, ps, pi) = (ptr::<T>(t, method)?, ptr::<T>(src, method)?, ptr::<i64>(idx, method)?);
    let n = idx.size[dim];
    let (st, ss, si) = (t.stride[dim], src.stride[dim], idx.stride[dim]);
    let size = t.size[dim];
    for_each_line([t, src, idx], dim, |[bt, bs, bi]| {
        for i in 0..n {
            // SAFETY: lines of checked views; k is range-checked before the write.
            unsafe {
                let k = check_index(*pi.add(bi + i * si), size, dim, method)?;
                let x = pt.add(bt + k * st);
                let y = *ps.add(bs + i * ss);
                *x = if add { (*x).plus(y) } else { y };
            }
        }
        Ok(())
    })
}

fn scatter_fill_kernel<T: Element>(t: &Tensor, dim: usize, idx: &Tensor, v: f64, method: &str) -> Result<()> {
    let (pt, pi) = (ptr::<T>(t, method)?, ptr::<i64>(idx, method)?);
    let n = idx.size[dim];
    let (st, si) = (t.stride[dim], idx.stride[dim]);
    let size = t.size[dim];
    let v = T::from_f64(v);
    for_each_line([t, idx], dim, |[bt, bi]| {
        for i in 0..n {
            // SAFETY: lines of checked views; k is range-checked before the write.
            unsafe {
                let k = check_index(*pi.add(bi + i * si), size, dim, method)?;
                *pt.add(bt + k * st) = v;
            }
        }
        Ok(())
    })
}

/// A scatter's source: `t`'s sizes but along `dim`, where it has at least the index's.
pub(crate) fn check_scatter_source(src: &Tensor, t: &Tensor, idx: &Tensor, dim: usize, method: &str) -> Result<()> {
    check_same_except(src, "the source", t, "the tensor", dim, method)?;
    if idx.dim() > 0 && idx.size[dim] > src.size[dim] {
        return Err(error(
            method,
            format!(
                "the index has {} elements along dimension {}, more than the source's {}",
                idx.size[dim],
                dim + 1,
                src.size[dim]
            ),
        ));
    }
    Ok(())
}

/// `x:scatter(dim, idx, src|value)` and `x:scatterAdd(dim, idx, src)`: in place on x.
fn scatter_impl(a: &Args, method: &str, add: bool) -> Result<MultiValue> {
    let t = tensor_arg(a, 1, method)?;
    let idx = index_tensor(a, 3, method)?;
    let dim = args::dim_arg(a, 2, &t, method)?;
    check_same_except(&idx, "the index", &t, "the tensor", dim, method)?;
    let value = arg(a, 4);
    if let (Some(v), false) = (number(value), add) {
        if t.numel() > 0 && idx.numel() > 0 {
            dispatch!(t.dtype, T => scatter_fill_kernel::<T>(&t, dim, &idx, v, method))?;
        }
        return receiver(a);
    }
    let src = tensor_of(value).ok_or_else(|| {
        let expected = if add { "tensor" } else { "tensor or number" };
        error(
            method,
            format!("bad argument #4 ({expected} expected, got {})", args::type_name(value)),
        )
    })?;
    if src.dtype != t.dtype {
        return Err(error(
            method,
            format!(
                "bad argument #4 (source must be a {}, got {})",
                t.dtype.tensor_typename(),
                src.dtype.tensor_typename()
            ),
        ));
    }
    check_scatter_source(&src, &t, &idx, dim, method)?;
    if t.numel() > 0 && idx.numel() > 0 {
        dispatch!(t.dtype, T => scatter_kernel::<T>(&t, dim, &idx, &src, add, method))?;
    }
    receiver(a)
}

/// 1-based coordinates of the non-zero elements of `t`, in logical order, as an N x dim list.
pub(crate) fn nonzero_coords<T: Element>(t: &Tensor, method: &str) -> Result<(usize, Vec<i64>)> {
    let p = ptr::<T>(t, method)?;
    let nd = t.dim();
    let mut coords = vec![0usize; nd];
    let mut out = Vec::new();
    let mut count = 0;
    for o in Offsets::new(t) {
        // SAFETY: offsets of a checked view.
        if unsafe { *p.add(o) } != T::zero() {
            out.extend(coords.iter().map(|&c| c as i64 + 1));
            count += 1;
        }
        // Advance the coordinates in row-major order.
        for d in (0..nd).rev() {
            coords[d] += 1;
            if coords[d] < t.size[d] {
                break;
            }
            coords[d] = 0;
        }
    }
    Ok((count, out))
}

/// `x:nonzero()` / `torch.nonzero(x)` (new LongTensor) or `res:nonzero(x)` (res a LongTensor).
fn nonzero(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "nonzero";
    let first = tensor_arg(&a, 1, M)?;
    let (mut out, src) = match tensor_of(arg(&a, 2)) {
        Some(src) => (Output::into(arg(&a, 1), DType::Long, M)?, src),
        None => (Output::new(DType::Long), first),
    };
    let (count, coords) = if src.numel() == 0 {
        (0, Vec::new())
    } else {
        dispatch!(src.dtype, T => nonzero_coords::<T>(&src, M))?
    };
    let dst = out.target(&normalize(vec![count, src.dim()]), &[&src], M)?;
    if count > 0 {
        let p = ptr::<i64>(&dst, M)?;
        // SAFETY: dst is a checked N x dim view; coords holds N*dim values in row-major order.
        unsafe {
            let mut it = coords.iter();
            apply::for_each_mut(p, &dst, |x| *x = *it.next().expect("one coordinate per element"));
        }
    }
    out.finish(lua, dst, M)
}

/// Copies between two tensors of the same shape and type row by row (innermost dimension), which
/// keeps the copy a run of contiguous moves when only the outer strides differ, as for a slice of
/// a result concatenated along an inner dimension.
fn copy_rows<T: Element>(dst: &Tensor, src: &Tensor, method: &str) -> Result<()> {
    let (pd, ps) = (ptr::<T>(dst, method)?, ptr::<T>(src, method)?);
    let last = dst.dim() - 1;
    let (n, sd, ss) = (dst.size[last], dst.stride[last], src.stride[last]);
    for_each_line([dst, src], last, |[bd, bs]| {
        // SAFETY: rows of checked views; the two tensors do not overlap (cat writes a fresh or
        // scratch result).
        unsafe {
            if sd == 1 && ss == 1 {
                std::ptr::copy_nonoverlapping(ps.add(bs), pd.add(bd), n);
            } else {
                for i in 0..n {
                    *pd.add(bd + i * sd) = *ps.add(bs + i * ss);
                }
            }
        }
        Ok(())
    })
}

/// The tensors of `torch.cat`'s table form.
fn tensor_list(t: &Table, method: &str) -> Result<Vec<Tensor>> {
    let mut out = Vec::new();
    for i in 1..=t.raw_len() {
        let v: Value = t.raw_get(i)?;
        out.push(tensor_of(&v).ok_or_else(|| {
            error(
                method,
                format!("table entry {i} is not a tensor (got {})", args::type_name(&v)),
            )
        })?);
    }
    Ok(out)
}

/// `torch.cat([res,] a, b [, dim])` and `torch.cat([res,] {a, b, ...} [, dim])`. The default
/// dimension (or -1) is the last one of the input with the most dimensions; a dimension past an
/// input's last counts as a dimension of size 1; empty inputs are skipped.
fn cat(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "cat";
    let (res, inputs, dim_pos) = match (arg(&a, 1), arg(&a, 2), arg(&a, 3)) {
        (Value::Table(t), _, _) => (None, tensor_list(t, M)?, 2),
        (r, Value::Table(t), _) if tensor_of(r).is_some() => (Some(r.clone()), tensor_list(t, M)?, 3),
        (r, x, y) => match (tensor_of(r), tensor_of(x), tensor_of(y)) {
            (Some(_), Some(x), Some(y)) => (Some(r.clone()), vec![x, y], 4),
            (Some(r), Some(x), None) => (None, vec![r, x], 3),
            _ => {
                return Err(error(
                    M,
                    format!(
                        "invalid arguments ({}, {}); expected ([result,] tensor, tensor [, dim]) or ([result,] {{tensors}} [, dim])",
                        args::type_name(r),
                        args::type_name(x)
                    ),
                ));
            }
        },
    };
    if inputs.is_empty() {
        return Err(error(M, "invalid number of inputs 0 (expected at least one tensor)"));
    }
    let dtype = match &res {
        Some(v) => tensor_of(v).expect("checked above").dtype,
        None => inputs[0].dtype,
    };
    if let Some((i, t)) = inputs.iter().enumerate().find(|(_, t)| t.dtype != dtype) {
        return Err(error(
            M,
            format!(
                "input {} is a {}, expected a {}",
                i + 1,
                t.dtype.tensor_typename(),
                dtype.tensor_typename()
            ),
        ));
    }
    let requested = match arg(&a, dim_pos) {
        Value::Nil => None,
        _ => match int_arg(&a, dim_pos, M)? {
            -1 => None,
            d if d >= 1 => Some(d as usize - 1),
            d => return Err(error(M, format!("invalid dimension {d}"))),
        },
    };
    let max_dim = inputs.iter().map(Tensor::dim).max().unwrap_or(0);
    let (cat_dim, ndim) = match requested {
        Some(d) => (d, max_dim.max(d + 1)),
        None => (max_dim.saturating_sub(1), max_dim),
    };
    let extent = |t: &Tensor, d: usize| if d < t.dim() { t.size[d] } else { t.dim().min(1) };
    let mut size = vec![0usize; ndim];
    for (d, sd) in size.iter_mut().enumerate() {
        if d == cat_dim {
            *sd = inputs.iter().map(|t| extent(t, d)).sum();
            continue;
        }
        for (j, t) in inputs.iter().enumerate() {
            let s = extent(t, d);
            if *sd == 0 {
                *sd = s;
            } else if s != 0 && s != *sd {
                return Err(error(
                    M,
                    format!(
                        "inconsistent tensor sizes: input {} is {}, but the inputs before it have size {} in dimension {} (concatenating along dimension {})",
                        j + 1,
                        size_text(&t.size),
                        *sd,
                        d + 1,
                        cat_dim + 1
                    ),
                ));
            }
        }
    }
    let mut out = match &res {
        Some(v) => Output::into(v, dtype, M)?,
        None => Output::new(dtype),
    };
    if size.iter().all(|&s| s == 0) {
        // Every input is empty: Torch leaves the result as it is.
        return match res {
            Some(v) => one(v),
            None => one(push_tensor(lua, Tensor::empty(dtype))?),
        };
    }
    let refs: Vec<&Tensor> = inputs.iter().collect();
    let dst = out.target(&size, &refs, M)?;
    let mut offset = 0;
    for t in inputs.iter().filter(|t| t.dim() > 0) {
        let n = extent(t, cat_dim);
        let part = args::lift_in(M, dst.narrow(cat_dim, offset, n))?;
        if part.size == t.size && part.dim() > 1 && !part.is_contiguous() {
            dispatch!(dtype, T => copy_rows::<T>(&part, t, M))?;
        } else {
            copy_into(&part, t, M)?;
        }
        offset += n;
    }
    out.finish(lua, dst, M)
}

/// `torch.reshape([res,] x, sizes)` and `x:reshape(sizes)`: always a contiguous copy.
fn reshape(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "reshape";
    let (mut out, src, p) = source_and_output(&a, M)?;
    let size = args::usize_sizes(&args::sizes_arg(&a, p, M)?, M)?;
    let n: usize = if size.is_empty() {
        0
    } else {
        args::lift_in(M, crate::torch::layout::checked_numel(&size))?
    };
    if n != src.numel() {
        return Err(error(
            M,
            format!(
                "cannot reshape a tensor of {} elements ({}) into size {} ({} elements)",
                src.numel(),
                size_text(&src.size),
                size_text(&size),
                n
            ),
        ));
    }
    let dst = out.target(&normalize(size), &[&src], M)?;
    copy_into(&dst, &src, M)?;
    out.finish(lua, dst, M)
}

/// Checks `f` at `pos` is a function.
fn function_arg(a: &Args, pos: usize, method: &str) -> Result<Function> {
    match arg(a, pos) {
        Value::Function(f) => Ok(f.clone()),
        v => Err(error(
            method,
            format!("bad argument #{pos} (function expected, got {})", args::type_name(v)),
        )),
    }
}

/// A tensor argument of the receiver's type (Torch's luaT_checkudata).
fn same_type_arg(a: &Args, pos: usize, dtype: DType, method: &str) -> Result<Tensor> {
    let v = arg(a, pos);
    match tensor_of(v) {
        Some(t) if t.dtype == dtype => Ok(t),
        _ => Err(error(
            method,
            format!(
                "bad argument #{pos} ({} expected, got {})",
                dtype.tensor_typename(),
                args::type_name(v)
            ),
        )),
    }
}

/// A Lua callback result as Torch reads it: a number (or a string convertible to one) replaces
/// the element; anything else leaves it.
fn callback_number(lua: &Lua, v: Value) -> Result<Option<f64>> {
    match v {
        Value::Number(n) => Ok(Some(n)),
        Value::Integer(i) => Ok(Some(i as f64)),
        Value::String(_) => lua.coerce_number(v),
        _ => Ok(None),
    }
}

/// An error raised by a callback, passed on as Torch's lua_call would: the message without the
/// traceback mlua appends (the top level adds its own), and a Rust error without its wrapping.
fn callback_error(e: mlua::Error) -> mlua::Error {
    match e {
        mlua::Error::RuntimeError(m) => match m.find("\nstack traceback:") {
            Some(i) => mlua::Error::RuntimeError(m[..i].to_string()),
            None => mlua::Error::RuntimeError(m),
        },
        mlua::Error::CallbackError { cause, .. } => callback_error((*cause).clone()),
        other => other,
    }
}

/// Element `o` of `s`, checked: the callback may have resized the storage.
fn read_at<T: Element>(s: &Storage, o: usize, method: &str) -> Result<T> {
    if o >= s.len() {
        return Err(error(method, "the tensor's storage shrank during the iteration"));
    }
    // SAFETY: bounds checked; the pointer is fetched after any resize.
    Ok(unsafe { *s.ptr::<T>().add(o) })
}

fn write_at<T: Element>(s: &Storage, o: usize, v: f64, method: &str) -> Result<()> {
    if o >= s.len() {
        return Err(error(method, "the tensor's storage shrank during the iteration"));
    }
    // SAFETY: as in read_at.
    unsafe { *s.ptr::<T>().add(o) = T::from_f64(v) };
    Ok(())
}

/// apply/map/map2: calls `f(x, ys...)` for each element of `t` and of `others` in logical order,
/// writing a number result back into `t`.
fn call_each<T: Element>(lua: &Lua, t: &Tensor, others: &[Tensor], f: &Function, method: &str) -> Result<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    let s = args::lift_in(method, t.storage_checked())?.clone();
    let other_storages: Vec<Storage> = others
        .iter()
        .map(|o| args::lift_in(method, o.storage_checked()).cloned())
        .collect::<Result<_>>()?;
    let mut iters: Vec<Offsets> = others.iter().map(Offsets::new).collect();
    for o in Offsets::new(t) {
        let mut call_args = Vec::with_capacity(1 + others.len());
        call_args.push(Value::Number(read_at::<T>(&s, o, method)?.to_f64()));
        for (it, os) in iters.iter_mut().zip(&other_storages) {
            let oo = it.next().expect("same element count");
            call_args.push(Value::Number(read_at::<T>(os, oo, method)?.to_f64()));
        }
        let r: Value = f.call(MultiValue::from_vec(call_args)).map_err(callback_error)?;
        if let Some(v) = callback_number(lua, r)? {
            write_at::<T>(&s, o, v, method)?;
        }
    }
    Ok(())
}

fn check_count(t: &Tensor, o: &Tensor, pos: usize, method: &str) -> Result<()> {
    if t.numel() != o.numel() {
        return Err(error(
            method,
            format!(
                "inconsistent tensor size (the tensor has {} elements, argument #{pos} has {})",
                t.numel(),
                o.numel()
            ),
        ));
    }
    Ok(())
}

/// The dtype of a factory's result: that of the leading result tensor, a trailing type name
/// (`torch.zeros(2, 'torch.FloatTensor')`, as Torch's dispatcher allows), or the default type.
/// Returns the output, the arguments without a trailing type name, and the position of the
/// first argument after the result tensor.
fn factory_output(lua: &Lua, a: &Args, method: &str) -> Result<(Output, Args, usize)> {
    if let Some(t) = tensor_of(arg(a, 1)) {
        return Ok((Output::into(arg(a, 1), t.dtype, method)?, a.clone(), 2));
    }
    if let Some(Value::String(s)) = a.last()
        && let Some((d, true)) = DType::from_typename(&s.to_string_lossy())
    {
        let rest: Args = a.iter().take(a.len() - 1).cloned().collect();
        return Ok((Output::new(d), rest, 1));
    }
    let torch: Table = lua.globals().get("torch")?;
    let name: String = torch.get::<Function>("getdefaulttensortype")?.call(())?;
    let d = DType::from_typename(&name)
        .filter(|&(_, tensor)| tensor)
        .map(|(d, _)| d)
        .ok_or_else(|| error(method, format!("the default tensor type {name} is not a tensor type")))?;
    Ok((Output::new(d), a.clone(), 1))
}

/// The result tensor of a factory, resized to `size` in place (Torch's factories write straight
/// into the result; nothing is read, so aliasing does not matter).
fn factory_target(out: &mut Output, size: &[usize], method: &str) -> Result<Tensor> {
    out.target(size, &[], method)
}

fn zeros_or_ones(lua: &Lua, a: Args, method: &str, value: f64) -> Result<MultiValue> {
    let (mut out, rest, p) = factory_output(lua, &a, method)?;
    let size = normalize(args::usize_sizes(&args::sizes_arg(&rest, p, method)?, method)?);
    let dst = factory_target(&mut out, &size, method)?;
    fill(&dst, value, method)?;
    out.finish(lua, dst, method)
}

fn eye(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "eye";
    let (mut out, rest, p) = factory_output(lua, &a, M)?;
    let n = int_arg(&rest, p, M)?;
    if n <= 0 {
        return Err(error(M, format!("invalid argument: n must be positive (got {n})")));
    }
    let m = match arg(&rest, p + 1) {
        Value::Nil => n,
        _ => match int_arg(&rest, p + 1, M)? {
            m if m <= 0 => n,
            m => m,
        },
    };
    let dst = factory_target(&mut out, &[n as usize, m as usize], M)?;
    fill(&dst, 0.0, M)?;
    let s = args::lift_in(M, dst.storage_checked())?;
    let step = dst.stride[0] + dst.stride[1];
    for i in 0..(n.min(m) as usize) {
        super::access::write(s, dst.offset + i * step, 1.0);
    }
    out.finish(lua, dst, M)
}

/// Writes `value(i)` into the i-th element of `t` in logical order.
fn fill_with<T: Element>(t: &Tensor, method: &str, mut value: impl FnMut(usize) -> T) -> Result<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    let p = ptr::<T>(t, method)?;
    let mut i = 0;
    // SAFETY: a checked view.
    unsafe {
        apply::for_each_mut(p, t, |x| {
            *x = value(i);
            i += 1;
        })
    };
    Ok(())
}

/// Factories that give a 1-D result of `n` elements: Torch resizes the result only when its
/// element count differs, so a result of the right count keeps its shape.
fn sequence_target(out: &mut Output, n: usize, method: &str) -> Result<Tensor> {
    match &out.into {
        Some((_, r)) if r.numel() == n && n > 0 => Ok(r.clone()),
        _ => factory_target(out, &normalize(vec![n]), method),
    }
}

/// `torch.range([res,] a, b [, step=1])`: inclusive; floor((b - a) / step) + 1 elements, computed
/// in double for Float/Double and in integers (arguments truncated) for the integer types.
fn range(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "range";
    let (mut out, rest, p) = factory_output(lua, &a, M)?;
    let xmin = number_arg(&rest, p, M)?;
    let xmax = number_arg(&rest, p + 1, M)?;
    let step = args::opt_number(&rest, p + 2, M, 1.0)?;
    let check = |xmin: f64, xmax: f64, step: f64| -> Result<()> {
        // Torch's test `step > 0 || step < 0`, which also refuses NaN.
        if step == 0.0 || step.is_nan() {
            return Err(error(M, "step must be nonzero"));
        }
        if !((step > 0.0 && xmax >= xmin) || (step < 0.0 && xmax <= xmin)) {
            return Err(error(
                M,
                format!("upper bound and larger bound inconsistent with step sign (from {xmin} to {xmax} by {step})"),
            ));
        }
        Ok(())
    };
    if out.dtype.is_floating() {
        check(xmin, xmax, step)?;
        let n = ((xmax - xmin) / step + 1.0) as usize;
        let dst = sequence_target(&mut out, n, M)?;
        dispatch!(out.dtype, T => fill_with::<T>(&dst, M, |i| T::from_f64(xmin + i as f64 * step)))?;
        out.finish(lua, dst, M)
    } else {
        // The integer types take their bounds as C longs.
        let (xmin, xmax, step) = (xmin as i64, xmax as i64, step as i64);
        check(xmin as f64, xmax as f64, step as f64)?;
        let n = (xmax.wrapping_sub(xmin) / step).wrapping_add(1) as usize;
        let dst = sequence_target(&mut out, n, M)?;
        dispatch!(out.dtype, T => fill_with::<T>(&dst, M, |i| T::from_i64(xmin.wrapping_add((i as i64).wrapping_mul(step)))))?;
        out.finish(lua, dst, M)
    }
}

/// Arithmetic of linspace/logspace in the element type, as Torch computes it.
trait Real: Element {
    fn from_lua(v: f64) -> Self;
    fn point(a: Self, b: Self, i: usize, n: usize) -> Self;
}

impl Real for f32 {
    fn from_lua(v: f64) -> Self {
        v as f32
    }
    fn point(a: Self, b: Self, i: usize, n: usize) -> Self {
        a + i as f32 * (b - a) / (n - 1) as f32
    }
}

impl Real for f64 {
    fn from_lua(v: f64) -> Self {
        v
    }
    fn point(a: Self, b: Self, i: usize, n: usize) -> Self {
        a + i as f64 * (b - a) / (n - 1) as f64
    }
}

fn spaced<T: Real>(dst: &Tensor, a: f64, b: f64, n: usize, log: bool, method: &str) -> Result<()> {
    let (a, b) = (T::from_lua(a), T::from_lua(b));
    fill_with::<T>(dst, method, |i| {
        let x = if n == 1 { a } else { T::point(a, b, i, n) };
        if log { T::from_f64(10f64.powf(x.to_f64())) } else { x }
    })
}

/// `torch.linspace([res,] a, b [, n=100])` and logspace (10^x of the same points).
fn linspace_impl(lua: &Lua, a: Args, method: &str, log: bool) -> Result<MultiValue> {
    let (mut out, rest, p) = factory_output(lua, &a, method)?;
    if !out.dtype.is_floating() {
        return Err(error(
            method,
            format!(
                "{} does not implement the torch.{method}() function",
                out.dtype.tensor_typename()
            ),
        ));
    }
    let x1 = number_arg(&rest, p, method)?;
    let x2 = number_arg(&rest, p + 1, method)?;
    let n = match arg(&rest, p + 2) {
        Value::Nil => 100,
        _ => int_arg(&rest, p + 2, method)?,
    };
    // Torch compares the bounds after converting them to the element type.
    let equal = if out.dtype == DType::Float {
        x1 as f32 == x2 as f32
    } else {
        x1 == x2
    };
    if !(n > 1 || (n == 1 && equal)) {
        return Err(error(
            method,
            format!("invalid number of points ({n}; needs at least 2, or 1 when both bounds are equal)"),
        ));
    }
    let n = n as usize;
    let dst = sequence_target(&mut out, n, method)?;
    match out.dtype {
        DType::Float => spaced::<f32>(&dst, x1, x2, n, log, method)?,
        _ => spaced::<f64>(&dst, x1, x2, n, log, method)?,
    }
    out.finish(lua, dst, method)
}

pub fn install(lua: &Lua, tensor: &Table, functions: &Table) -> Result<()> {
    // Methods that also exist as torch.* functions with the same argument list.
    let both: [(&str, super::Method); 16] = [
        ("index", index),
        ("indexCopy", |_, a| {
            let (t, dim, ks, src) = index_update(&a, "indexCopy")?;
            dispatch!(t.dtype, T => index_copy_kernel::<T>(&t, dim, &ks, &src, false, "indexCopy"))?;
            receiver(&a)
        }),
        ("indexAdd", |_, a| {
            let (t, dim, ks, src) = index_update(&a, "indexAdd")?;
            dispatch!(t.dtype, T => index_copy_kernel::<T>(&t, dim, &ks, &src, true, "indexAdd"))?;
            receiver(&a)
        }),
        ("indexFill", index_fill),
        ("gather", gather),
        ("scatter", |_, a| scatter_impl(&a, "scatter", false)),
        ("scatterAdd", |_, a| scatter_impl(&a, "scatterAdd", true)),
        ("nonzero", nonzero),
        ("cat", cat),
        ("reshape", reshape),
        ("zeros", |lua, a| zeros_or_ones(lua, a, "zeros", 0.0)),
        ("ones", |lua, a| zeros_or_ones(lua, a, "ones", 1.0)),
        ("eye", eye),
        ("range", range),
        ("linspace", |lua, a| linspace_impl(lua, a, "linspace", false)),
        ("logspace", |lua, a| linspace_impl(lua, a, "logspace", true)),
    ];
    for (name, f) in both {
        add(lua, tensor, name, f)?;
        add(lua, functions, name, f)?;
    }

    add(lua, tensor, "apply", |lua, a| {
        const M: &str = "apply";
        let t = tensor_arg(&a, 1, M)?;
        let f = function_arg(&a, 2, M)?;
        dispatch!(t.dtype, T => call_each::<T>(lua, &t, &[], &f, M))?;
        receiver(&a)
    })?;
    add(lua, tensor, "map", |lua, a| {
        const M: &str = "map";
        let t = tensor_arg(&a, 1, M)?;
        let x = same_type_arg(&a, 2, t.dtype, M)?;
        let f = function_arg(&a, 3, M)?;
        check_count(&t, &x, 2, M)?;
        dispatch!(t.dtype, T => call_each::<T>(lua, &t, &[x], &f, M))?;
        receiver(&a)
    })?;
    add(lua, tensor, "map2", |lua, a| {
        const M: &str = "map2";
        let t = tensor_arg(&a, 1, M)?;
        let x = same_type_arg(&a, 2, t.dtype, M)?;
        let y = same_type_arg(&a, 3, t.dtype, M)?;
        let f = function_arg(&a, 4, M)?;
        check_count(&t, &x, 2, M)?;
        check_count(&t, &y, 3, M)?;
        dispatch!(t.dtype, T => call_each::<T>(lua, &t, &[x, y], &f, M))?;
        receiver(&a)
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(size: &[usize]) -> Tensor {
        let t = Tensor::zeros(DType::Double, size).unwrap();
        let mut i = 0.0;
        // SAFETY: a fresh contiguous tensor.
        unsafe {
            apply::for_each_mut(t.storage.as_ref().unwrap().ptr::<f64>(), &t, |x| {
                i += 1.0;
                *x = i;
            })
        };
        t
    }

    #[test]
    fn zero_sized_results_are_empty() {
        assert_eq!(normalize(vec![3, 0, 2]), Vec::<usize>::new());
        assert_eq!(normalize(vec![3, 2]), vec![3, 2]);
        assert_eq!(size_text(&[2, 3]), "2x3");
    }

    #[test]
    fn lines_follow_logical_order_of_each_tensor() {
        // 2x3 along dim 1 (0-based): one line per row; the transposed 3x2 view's rows are columns.
        let a = filled(&[2, 3]);
        let b = filled(&[3, 2]).transpose(0, 1).unwrap();
        let mut bases = Vec::new();
        for_each_line([&a, &b], 1, |[x, y]| {
            bases.push((x, y));
            Ok(())
        })
        .unwrap();
        assert_eq!(bases, vec![(0, 0), (3, 1)]);
        let mut along0 = Vec::new();
        for_each_line([&a], 0, |[x]| {
            along0.push(x);
            Ok(())
        })
        .unwrap();
        assert_eq!(along0, vec![0, 1, 2]);
    }

    #[test]
    fn nonzero_gives_one_based_coordinates() {
        let t = filled(&[2, 2]);
        // SAFETY: fresh tensor.
        unsafe { *t.storage.as_ref().unwrap().ptr::<f64>().add(1) = 0.0 };
        let (n, coords) = nonzero_coords::<f64>(&t, "nonzero").unwrap();
        assert_eq!(n, 3);
        assert_eq!(coords, vec![1, 1, 2, 1, 2, 2]);
    }

    #[test]
    fn index_select_on_strided_views() {
        let src = filled(&[3, 2]).transpose(0, 1).unwrap(); // [[1,3,5],[2,4,6]]
        let dst = Tensor::zeros(DType::Double, &[2, 2]).unwrap();
        index_select_into::<f64>(&dst, &src, 1, &[2, 0], "index").unwrap();
        // SAFETY: read-only.
        let got = unsafe { dst.storage.as_ref().unwrap().as_slice::<f64>() }.to_vec();
        assert_eq!(got, vec![5.0, 1.0, 6.0, 2.0]);
    }
}
