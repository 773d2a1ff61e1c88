//! Operations on device tensors (`layout::Tensor` over device storages): elementwise kernels,
//! conversions, copies within the device and to and from the host, and reductions. Arguments
//! are checked here (types, element counts, devices) before anything is launched.

use std::ffi::c_void;
use std::sync::Arc;

use super::device::Device;
use super::kernels::source::{self, TYPES};
use super::kernels::{self, Geo, param};
use super::memory::{self, addr_of, device_for, device_of};
use crate::dispatch;
use crate::torch::dtype::{DType, Element};
use crate::torch::layout::{Tensor, contiguous_strides};
use crate::torch::methods::copy::copy_into;
use crate::torch::storage::Storage;

/// The kernels' name for an element type.
pub(super) fn suffix(d: DType) -> Result<&'static str, String> {
    match d {
        DType::Float => Ok(TYPES[0].0),
        DType::Double => Ok(TYPES[1].0),
        DType::Long => Ok(TYPES[2].0),
        _ => Err(format!("internal error: no device kernels for {d:?}")),
    }
}

/// The cutorch class of a device tensor of type `d`.
pub fn tensor_typename(d: DType) -> &'static str {
    match d {
        DType::Float => "torch.CudaTensor",
        DType::Double => "torch.CudaDoubleTensor",
        DType::Long => "torch.CudaLongTensor",
        _ => d.tensor_typename(),
    }
}

pub fn storage_typename(d: DType) -> &'static str {
    match d {
        DType::Float => "torch.CudaStorage",
        DType::Double => "torch.CudaDoubleStorage",
        DType::Long => "torch.CudaLongStorage",
        _ => d.storage_typename(),
    }
}

fn size_text(t: &Tensor) -> String {
    if t.dim() == 0 {
        return "empty".into();
    }
    t.size.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("x")
}

/// The storage of a device tensor with elements, checked to hold its view.
fn storage(t: &Tensor, method: &str) -> Result<Storage, String> {
    let s = t.storage_checked().map_err(|e| format!("{method}: {e}"))?;
    if !s.is_device() {
        return Err(format!(
            "{method}: internal error: a host tensor where a device tensor was expected"
        ));
    }
    Ok(s.clone())
}

/// Address of a tensor's first element (0 for a tensor with no element).
pub(super) fn addr(t: &Tensor, method: &str) -> Result<u64, String> {
    if t.numel() == 0 {
        return Ok(0);
    }
    addr_of(&storage(t, method)?, t.offset)
}

/// The device the tensors are on (they must all be on one), opened and bound. After
/// cutorch.setKernelPeerToPeerAccess(true), tensors of several devices are worked on by the
/// current device, where it has peer access to each of the others.
pub(super) fn common_device(ts: &[&Tensor], method: &str) -> Result<Arc<Device>, String> {
    let mut devices: Vec<usize> = ts
        .iter()
        .filter_map(|t| t.storage.as_ref().and_then(device_of))
        .collect();
    devices.sort_unstable();
    devices.dedup();
    let Some(&first) = devices.first() else {
        return super::device::current_device(method);
    };
    match devices.iter().find(|&&d| d != first) {
        None => super::device::get(first, method),
        Some(&other) if !super::peer::kernel_access() => Err(format!(
            "{method}: tensors are on different devices ({} and {}; cutorch.setKernelPeerToPeerAccess(true) lets kernels reach other devices)",
            first + 1,
            other + 1
        )),
        Some(_) => on_current_device(&devices, method),
    }
}

/// The current device, with peer access to each of `devices` (and its stream queued after
/// theirs, so that it reads what they wrote).
fn on_current_device(devices: &[usize], method: &str) -> Result<Arc<Device>, String> {
    let here = super::device::current_device(method)?;
    let stream = here.current_stream()?;
    for &d in devices.iter().filter(|&&d| d != here.ordinal) {
        if !super::peer::ensure(here.ordinal, d, method)? {
            return Err(format!(
                "{method}: device {} has no peer access to device {} (cutorch.setPeerToPeerAccess)",
                here.ordinal + 1,
                d + 1
            ));
        }
        let other = super::device::get(d, method)?;
        other.mark_read_by_peers();
        let theirs = other.current_stream()?;
        super::events::order(&here, stream, &other, theirs)?;
    }
    here.bind()?;
    Ok(here)
}

fn not_on_long(method: &str) -> String {
    format!("{method}: not supported for torch.CudaLongTensor (only torch.CudaTensor and torch.CudaDoubleTensor)")
}

/// `r = op(a, b, c, v, w)` elementwise (see `source::POINTWISE`); every tensor given has `r`'s
/// element count and type, and walks in its own logical order.
#[allow(clippy::too_many_arguments)]
pub fn pointwise(
    op: &str,
    r: &Tensor,
    a: Option<&Tensor>,
    b: Option<&Tensor>,
    c: Option<&Tensor>,
    v: f64,
    w: f64,
    method: &str,
) -> Result<(), String> {
    let p = source::pointwise_op(op).ok_or_else(|| format!("{method}: internal error: no operation {op}"))?;
    if r.dtype == DType::Long && p.long.is_none() {
        return Err(not_on_long(method));
    }
    let n = r.numel();
    let operands = [a, b, c];
    for t in operands.iter().flatten() {
        if t.dtype != r.dtype {
            return Err(format!("{method}: internal error: operands of different types"));
        }
        if t.numel() != n {
            return Err(format!(
                "{method}: inconsistent tensor size: sizes {} and {} have {} and {} elements",
                size_text(r),
                size_text(t),
                n,
                t.numel()
            ));
        }
    }
    if n == 0 {
        return Ok(());
    }
    let all: Vec<&Tensor> = std::iter::once(r).chain(operands.iter().flatten().copied()).collect();
    let dev = common_device(&all, method)?;
    let contiguous = all.iter().all(|t| t.is_contiguous());
    let mut ptrs = [addr(r, method)?, 0, 0, 0];
    let mut geos = [
        Geo::of(r).map_err(|e| format!("{method}: {e}"))?,
        Geo::NONE,
        Geo::NONE,
        Geo::NONE,
    ];
    for (i, t) in operands.iter().enumerate() {
        if let Some(t) = t {
            ptrs[i + 1] = addr(t, method)?;
            geos[i + 1] = Geo::of(t).map_err(|e| format!("{method}: {e}"))?;
        }
    }
    let sfx = suffix(r.dtype)?;
    let mut code = p.code();
    let mut count = n as i64;
    // The contiguous kernel takes PW_UNROLL elements per thread per step. Many waves of blocks,
    // not one as the reductions: on an H200, c = a + b over 2^28 floats reached 95% of PyTorch's
    // bandwidth with up to 8192 blocks and 91% with one wave.
    let grid = if contiguous {
        kernels::grid_for(n.div_ceil(source::PW_UNROLL), 8192)
    } else {
        kernels::grid_for(n, 8192)
    };
    dispatch!(r.dtype, T => {
        let (mut vv, mut ww) = (T::from_f64(v), T::from_f64(w));
        let [mut pr, mut pa, mut pb, mut pc] = ptrs;
        let [mut gr, mut ga, mut gb, mut gc] = geos;
        let mut params: Vec<*mut c_void> = if contiguous {
            vec![param(&mut code), param(&mut count), param(&mut pr), param(&mut pa), param(&mut pb),
                 param(&mut pc), param(&mut vv), param(&mut ww)]
        } else {
            vec![param(&mut code), param(&mut count), param(&mut pr), param(&mut gr), param(&mut pa),
                 param(&mut ga), param(&mut pb), param(&mut gb), param(&mut pc), param(&mut gc),
                 param(&mut vv), param(&mut ww)]
        };
        let name = if contiguous { format!("pwc_{sfx}") } else { format!("pw_{sfx}") };
        // SAFETY: the parameters match pw/pwc of this type; every view was checked against its
        // storage, so the kernel touches only their elements.
        unsafe { kernels::launch(&dev, &name, grid, &mut params) }.map_err(|e| format!("{method}: {e}"))
    })
}

/// `r = a` elementwise between element types (same element count).
fn convert(r: &Tensor, a: &Tensor, method: &str) -> Result<(), String> {
    let n = r.numel();
    if n == 0 {
        return Ok(());
    }
    let dev = common_device(&[r, a], method)?;
    let (mut pr, mut pa) = (addr(r, method)?, addr(a, method)?);
    let mut gr = Geo::of(r).map_err(|e| format!("{method}: {e}"))?;
    let mut ga = Geo::of(a).map_err(|e| format!("{method}: {e}"))?;
    let mut count = n as i64;
    let name = format!("conv_{}_{}", suffix(r.dtype)?, suffix(a.dtype)?);
    let mut params = [
        param(&mut count),
        param(&mut pr),
        param(&mut gr),
        param(&mut pa),
        param(&mut ga),
    ];
    // SAFETY: the parameters match conv_*; both views are checked against their storages.
    unsafe { kernels::launch(&dev, &name, kernels::grid_for(n, 8192), &mut params) }
        .map_err(|e| format!("{method}: {e}"))
}

/// A new contiguous device tensor of `size` on `dev`, its elements not set: for results that
/// are written whole before they are read (what every caller here makes).
pub fn empty_like(dev: &Device, dtype: DType, size: &[usize]) -> Result<Tensor, String> {
    let n = crate::torch::layout::checked_numel(size)?;
    Ok(Tensor {
        dtype,
        storage: Some(memory::alloc_unset(dev, dtype, n)?),
        offset: 0,
        size: size.to_vec(),
        stride: contiguous_strides(size),
    })
}

/// A host Long tensor of `size` holding `values` in row-major order (positions and draws made on
/// the host, on their way to the device).
pub fn host_longs(values: &[i64], size: &[usize]) -> Result<Tensor, String> {
    Ok(Tensor {
        dtype: DType::Long,
        storage: Some(Storage::from_slice(values)?),
        offset: 0,
        size: size.to_vec(),
        stride: contiguous_strides(size),
    })
}

/// A contiguous copy of `t` (on its device), or `t` itself when it is contiguous.
pub fn contiguous(t: &Tensor, method: &str) -> Result<Tensor, String> {
    if t.is_contiguous() || t.numel() == 0 {
        return Ok(t.clone());
    }
    let dev = common_device(&[t], method)?;
    let c = empty_like(&dev, t.dtype, &t.size)?;
    copy_device(&c, t, method)?;
    Ok(c)
}

/// Whether a copy between `dst` and `src` has elements to move; an error when their element
/// counts differ.
fn copies_anything(dst: &Tensor, src: &Tensor, method: &str) -> Result<bool, String> {
    if dst.numel() != src.numel() {
        return Err(format!(
            "{method}: sizes do not match ({} elements vs {})",
            dst.numel(),
            src.numel()
        ));
    }
    Ok(dst.numel() > 0)
}

/// `dst = src` between device tensors of any types and geometries with as many elements.
pub fn copy_device(dst: &Tensor, src: &Tensor, method: &str) -> Result<(), String> {
    if !copies_anything(dst, src, method)? {
        return Ok(());
    }
    let (ds, ss) = (storage(dst, method)?, storage(src, method)?);
    if device_of(&ds) != device_of(&ss) {
        // Across devices: a contiguous copy moves between them, kernels work on each side.
        let src_c = contiguous(src, method)?;
        let dev = device_for(&ds, method)?;
        let landing = empty_like(&dev, src.dtype, &src.size)?;
        memory::copy_device(
            landing.storage.as_ref().expect("allocated"),
            0,
            src_c.storage.as_ref().expect("has elements"),
            src_c.offset,
            src.numel(),
            method,
        )?;
        return copy_device(dst, &landing, method);
    }
    if dst.dtype != src.dtype {
        return convert(dst, src, method);
    }
    if dst.is_contiguous() && src.is_contiguous() {
        return memory::copy_device(&ds, dst.offset, &ss, src.offset, dst.numel(), method);
    }
    pointwise("copy", dst, Some(src), None, None, 0.0, 0.0, method)
}

/// `dst` (device) = `src` (host), converting the element type as a C cast.
pub fn copy_from_host(dst: &Tensor, src: &Tensor, method: &str) -> Result<(), String> {
    let n = dst.numel();
    if !copies_anything(dst, src, method)? {
        return Ok(());
    }
    // A contiguous host tensor of the destination's type...
    let host = if src.dtype == dst.dtype && src.is_contiguous() {
        src.clone()
    } else {
        let h = Tensor::zeros(dst.dtype, &src.size)?;
        copy_into(&h, src, method).map_err(|e| e.to_string())?;
        h
    };
    let hs = host.storage_checked()?;
    let es = dst.dtype.size_of();
    // ... goes up in one copy, straight into place when the destination is contiguous.
    let ds = storage(dst, method)?;
    // SAFETY: `host` holds n contiguous elements of the type from its offset.
    let upload = |to: &Storage, offset: usize| unsafe {
        memory::upload_raw(to, offset, hs.data_ptr().add(host.offset * es), n, method)
    };
    if dst.is_contiguous() {
        return upload(&ds, dst.offset);
    }
    let dev = device_for(&ds, method)?;
    let staged = empty_like(&dev, dst.dtype, &dst.size)?;
    upload(staged.storage.as_ref().expect("allocated"), 0)?;
    copy_device(dst, &staged, method)
}

/// `dst` (host) = `src` (device), converting the element type as a C cast.
pub fn copy_to_host(dst: &Tensor, src: &Tensor, method: &str) -> Result<(), String> {
    let n = src.numel();
    if !copies_anything(dst, src, method)? {
        return Ok(());
    }
    let src = contiguous(src, method)?;
    let ss = storage(&src, method)?;
    let es = src.dtype.size_of();
    if dst.dtype == src.dtype && dst.is_contiguous() {
        let ds = dst.storage_checked()?;
        // SAFETY: the destination view holds n contiguous elements of the type.
        return unsafe { memory::download_raw(&ss, src.offset, ds.data_ptr().add(dst.offset * es), n, method) };
    }
    let host = Tensor::zeros(src.dtype, &src.size)?;
    let hs = host.storage_checked()?;
    // SAFETY: fresh host storage of n elements.
    unsafe { memory::download_raw(&ss, src.offset, hs.data_ptr(), n, method)? };
    copy_into(dst, &host, method).map_err(|e| e.to_string())
}

/// A contiguous host copy of a device tensor.
pub fn to_host(t: &Tensor, method: &str) -> Result<Tensor, String> {
    if t.dim() == 0 {
        return Ok(Tensor::empty(t.dtype));
    }
    let h = Tensor::zeros(t.dtype, &t.size)?;
    copy_to_host(&h, t, method)?;
    Ok(h)
}

fn reduction(op: &str, d: DType, method: &str) -> Result<i32, String> {
    let (code, r) = source::reduction_op(op).ok_or_else(|| format!("{method}: internal error: no reduction {op}"))?;
    let defined = if d == DType::Long {
        r.long.is_some()
    } else {
        r.float.is_some()
    };
    if !defined {
        return Err(not_on_long(method));
    }
    Ok(code)
}

/// The accumulator type of reductions over `d`.
fn acc_type(d: DType) -> DType {
    if d == DType::Long { DType::Long } else { DType::Double }
}

/// Reduction `op` (see `source::REDUCTIONS`) of every element of `t` with parameter `p`.
pub fn reduce_all(op: &str, t: &Tensor, p: f64, method: &str) -> Result<f64, String> {
    let mut code = reduction(op, t.dtype, method)?;
    let n = t.numel();
    let dev = common_device(&[t], method)?;
    let acc = acc_type(t.dtype);
    let sfx = suffix(t.dtype)?;
    let contiguous = n > 0 && t.is_contiguous();
    // A contiguous input is read in one wave of blocks (see kernels::wave).
    let cap = if contiguous {
        kernels::wave(&dev, &format!("red_partc_{sfx}"), 1024)
    } else {
        1024
    };
    let grid = kernels::grid_for(n.max(1), cap);
    let part = memory::alloc(&dev, acc, grid as usize)?;
    let out = memory::alloc(&dev, acc, 1)?;
    let (mut pa, mut pp, mut po) = (addr(t, method)?, addr_of(&part, 0)?, addr_of(&out, 0)?);
    let mut ga = if n == 0 {
        Geo::NONE
    } else {
        Geo::of(t).map_err(|e| format!("{method}: {e}"))?
    };
    let (mut count, mut m, mut pv) = (n as i64, grid as i64, p);
    if contiguous {
        let mut params = [
            param(&mut code),
            param(&mut count),
            param(&mut pa),
            param(&mut pp),
            param(&mut pv),
        ];
        // SAFETY: parameters as red_partc_*; the input is a checked contiguous view of n
        // elements; `part` has `grid` slots.
        unsafe { kernels::launch(&dev, &format!("red_partc_{sfx}"), grid, &mut params) }
            .map_err(|e| format!("{method}: {e}"))?;
    } else {
        let mut params = [
            param(&mut code),
            param(&mut count),
            param(&mut pa),
            param(&mut ga),
            param(&mut pp),
            param(&mut pv),
        ];
        // SAFETY: parameters as red_part_*; the input view is checked; `part` has `grid` slots.
        unsafe { kernels::launch(&dev, &format!("red_part_{sfx}"), grid, &mut params) }
            .map_err(|e| format!("{method}: {e}"))?;
    }
    let mut params = [
        param(&mut code),
        param(&mut m),
        param(&mut pp),
        param(&mut po),
        param(&mut count),
        param(&mut pv),
    ];
    // SAFETY: parameters as red_fin_*; `out` has one slot.
    unsafe { kernels::launch(&dev, &format!("red_fin_{sfx}"), 1, &mut params) }
        .map_err(|e| format!("{method}: {e}"))?;
    memory::read(&out, 0)
}

/// Shapes of a reduction along `dim`: (elements reduced, outputs, input stride along `dim`).
fn along(t: &Tensor, out: &Tensor, dim: usize, method: &str) -> Result<(usize, usize, i64), String> {
    let r = t.size[dim];
    let mut expect = t.size.clone();
    expect[dim] = 1;
    if out.size != expect {
        return Err(format!("{method}: internal error: result of the wrong size"));
    }
    Ok((r, out.numel(), t.stride[dim] as i64))
}

/// Block per output when the reduced elements are adjacent in memory (reading them together is
/// fast) or when there are few outputs and long reductions; a thread per output otherwise
/// (neighbouring outputs are then neighbours in memory).
fn block_per_output(r: usize, nout: usize, rs: i64) -> bool {
    (rs == 1 && r >= 32) || (nout < 2048 && r >= 256)
}

/// Reduction `op` of `t` along `dim` into `out` (sized as `t` with `dim` of size 1).
pub fn reduce_dim(op: &str, out: &Tensor, t: &Tensor, dim: usize, p: f64, method: &str) -> Result<(), String> {
    let mut code = reduction(op, t.dtype, method)?;
    let (r, nout, mut rs) = along(t, out, dim, method)?;
    if nout == 0 {
        return Ok(());
    }
    let dev = common_device(&[t, out], method)?;
    let mut gin = Geo::without(t, dim).map_err(|e| format!("{method}: {e}"))?;
    let mut gr = Geo::without(out, dim).map_err(|e| format!("{method}: {e}"))?;
    let (mut pa, mut pr) = (if r == 0 { 0 } else { addr(t, method)? }, addr(out, method)?);
    let (mut n_out, mut n_red, mut pv) = (nout as i64, r as i64, p);
    let mut params = [
        param(&mut code),
        param(&mut n_out),
        param(&mut n_red),
        param(&mut pa),
        param(&mut gin),
        param(&mut rs),
        param(&mut pr),
        param(&mut gr),
        param(&mut pv),
    ];
    // SAFETY: parameters as red_dim*; both views are checked against their storages.
    unsafe { launch_along(&dev, "red", t.dtype, r, nout, rs, &mut params, method) }
}

/// Launches the `kind` (red or arg) reduction along a dimension that fits: a block per output or
/// a thread per output (see `block_per_output`).
///
/// # Safety
/// As `kernels::launch`, for the kernels `{kind}_dimb_*` and `{kind}_dimt_*`.
#[allow(clippy::too_many_arguments)]
unsafe fn launch_along(
    dev: &Device,
    kind: &str,
    dtype: DType,
    r: usize,
    nout: usize,
    rs: i64,
    params: &mut [*mut c_void],
    method: &str,
) -> Result<(), String> {
    let sfx = suffix(dtype)?;
    let (name, grid) = if block_per_output(r, nout, rs) {
        (format!("{kind}_dimb_{sfx}"), nout.clamp(1, 8192) as u32)
    } else {
        (format!("{kind}_dimt_{sfx}"), kernels::grid_for(nout, 8192))
    };
    // SAFETY: as the caller promises.
    unsafe { kernels::launch(dev, &name, grid, params) }.map_err(|e| format!("{method}: {e}"))
}

/// max (`is_min` false) or min of `t` along `dim` into `values` and the 1-based `indices` (a
/// device Long tensor), both sized as `t` with `dim` of size 1.
pub fn arg_reduce_dim(
    is_min: bool,
    values: &Tensor,
    indices: &Tensor,
    t: &Tensor,
    dim: usize,
    method: &str,
) -> Result<(), String> {
    let (r, nout, mut rs) = along(t, values, dim, method)?;
    if indices.size != values.size || indices.dtype != DType::Long {
        return Err(format!("{method}: internal error: indices of the wrong size or type"));
    }
    if nout == 0 {
        return Ok(());
    }
    if r == 0 {
        return Err(format!("{method}: cannot reduce a dimension of size 0"));
    }
    let dev = common_device(&[t, values, indices], method)?;
    let mut gin = Geo::without(t, dim).map_err(|e| format!("{method}: {e}"))?;
    let mut gr = Geo::without(values, dim).map_err(|e| format!("{method}: {e}"))?;
    let mut gi = Geo::without(indices, dim).map_err(|e| format!("{method}: {e}"))?;
    let (mut pa, mut pr, mut pi) = (addr(t, method)?, addr(values, method)?, addr(indices, method)?);
    let (mut which, mut n_out, mut n_red) = (is_min as i32, nout as i64, r as i64);
    let mut params = [
        param(&mut which),
        param(&mut n_out),
        param(&mut n_red),
        param(&mut pa),
        param(&mut gin),
        param(&mut rs),
        param(&mut pr),
        param(&mut gr),
        param(&mut pi),
        param(&mut gi),
    ];
    // SAFETY: parameters as arg_dim*; the views are checked against their storages.
    unsafe { launch_along(&dev, "arg", t.dtype, r, nout, rs, &mut params, method) }
}

/// Inclusive sums (`prod` false) or products of `t` along `dim` into `out` (of `t`'s sizes),
/// accumulated in double for floating types as the reductions are.
pub fn scan_dim(prod: bool, out: &Tensor, t: &Tensor, dim: usize, method: &str) -> Result<(), String> {
    if out.size != t.size || out.dtype != t.dtype {
        return Err(format!("{method}: internal error: result of the wrong size or type"));
    }
    let r = t.size[dim];
    let nout = t.numel().checked_div(r).unwrap_or(0);
    if nout == 0 {
        return Ok(());
    }
    let dev = common_device(&[t, out], method)?;
    let mut gin = Geo::without(t, dim).map_err(|e| format!("{method}: {e}"))?;
    let mut gr = Geo::without(out, dim).map_err(|e| format!("{method}: {e}"))?;
    let (mut pa, mut pr) = (addr(t, method)?, addr(out, method)?);
    let (mut op, mut n_out, mut n_red) = (prod as i32, nout as i64, r as i64);
    let (mut rs, mut rsr) = (t.stride[dim] as i64, out.stride[dim] as i64);
    let mut params = [
        param(&mut op),
        param(&mut n_out),
        param(&mut n_red),
        param(&mut pa),
        param(&mut gin),
        param(&mut rs),
        param(&mut pr),
        param(&mut gr),
        param(&mut rsr),
    ];
    // SAFETY: parameters as scan_dim*; both views are checked against their storages, and a
    // lane's elements are read before they are written when out is t.
    unsafe { launch_along(&dev, "scan", t.dtype, r, nout, rs, &mut params, method) }
}

/// Whether any element of an integer tensor is zero (before dividing by it).
pub fn has_zero(t: &Tensor, method: &str) -> Result<bool, String> {
    Ok(t.numel() > 0 && reduce_all("zeros", t, 0.0, method)? > 0.0)
}
