//! The C functions FFI code written against cutorch calls (a C face beside the Lua glue, on top of
//! `device`): `THCState_getCurrentStream` and friends, exported by the `th` binary (th.dynlist
//! exports `THCState_*`), so that for example NCCL called through `ffi.load` gets the stream
//! cutorch work is queued on.
//!
//! `cutorch.getState()` hands out the address of a process-wide placeholder: cutorch passed its
//! THCState around the same way, and these functions only need to know it is ours.

use std::ffi::{c_int, c_void};

use super::device;

/// What `cutorch.getState()` points at (its contents are never read).
#[repr(C)]
pub struct THCState {
    _tag: [u8; 8],
}

static STATE: THCState = THCState { _tag: *b"luatorch" };

/// The THCState pointer of this process.
pub fn state() -> *mut c_void {
    std::ptr::addr_of!(STATE) as *mut c_void
}

/// The current stream of `ordinal` on this thread, with its context current; null for the
/// default stream, when there is no such device, or on any failure (C callers cannot take an
/// error).
fn stream_on(ordinal: usize) -> *mut c_void {
    std::panic::catch_unwind(|| match device::get(ordinal) {
        Ok(dev) => dev
            .current_stream()
            .map(|s| s as *mut c_void)
            .unwrap_or(std::ptr::null_mut()),
        Err(_) => std::ptr::null_mut(),
    })
    .unwrap_or(std::ptr::null_mut())
}

/// cutorch's `cudaStream_t THCState_getCurrentStream(THCState*)`: the calling thread's current
/// stream on its current device.
#[unsafe(no_mangle)]
pub extern "C" fn THCState_getCurrentStream(state: *mut c_void) -> *mut c_void {
    let _ = state;
    if device::count() == 0 {
        return std::ptr::null_mut();
    }
    stream_on(device::current())
}

/// cutorch's `cudaStream_t THCState_getCurrentStreamOnDevice(THCState*, int device)` (0-based).
#[unsafe(no_mangle)]
pub extern "C" fn THCState_getCurrentStreamOnDevice(state: *mut c_void, device: c_int) -> *mut c_void {
    let _ = state;
    if device < 0 || device as usize >= device::count() {
        return std::ptr::null_mut();
    }
    stream_on(device as usize)
}

/// cutorch's `int THCState_getNumDevices(THCState*)`.
#[unsafe(no_mangle)]
pub extern "C" fn THCState_getNumDevices(state: *mut c_void) -> c_int {
    let _ = state;
    device::count() as c_int
}

/// The exported functions, referenced so that the linker keeps them in the binary.
pub fn exports() -> [usize; 3] {
    [
        THCState_getCurrentStream as *const () as usize,
        THCState_getCurrentStreamOnDevice as *const () as usize,
        THCState_getNumDevices as *const () as usize,
    ]
}
