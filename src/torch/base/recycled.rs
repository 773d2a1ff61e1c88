//! Large heap buffers kept for a while after their storage goes, for the next storage of the same
//! size. Why: a loop that makes a fresh 3x768x1024 image per call (`image.rgb2yuv(img)`,
//! `img:clone()`) would otherwise give each buffer back to the kernel and fault it in again, and
//! the kernel zeroes every fresh page: measured at two thirds of such a call. A kept buffer is
//! zeroed by the storage that takes it, over pages already mapped.
//!
//! Bounded, so memory stays flat: at most `MAX_KEPT` buffers and `MAX_BYTES` in all (as much as
//! the collections that follow the buffers' growth let pile up before the first, see
//! `userdata::note_allocation`); the oldest goes first.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::Mutex;

const MAX_KEPT: usize = 32;
const MAX_BYTES: usize = 256 << 20;

struct Kept {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: a kept buffer belongs to no storage; only this module's lock reaches it.
unsafe impl Send for Kept {}

static KEPT: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

fn kept() -> std::sync::MutexGuard<'static, Vec<Kept>> {
    KEPT.lock().unwrap_or_else(|e| e.into_inner())
}

/// A kept buffer of exactly `layout`, if there is one: its bytes are stale.
pub fn take(layout: Layout) -> Option<NonNull<u8>> {
    let mut kept = kept();
    let i = kept.iter().rposition(|k| k.layout == layout)?;
    Some(kept.remove(i).ptr)
}

/// Keeps a buffer given up by its storage, or frees it when it is larger than the bound allows;
/// frees the oldest kept ones to make room.
///
/// # Safety
/// `ptr` was allocated by the global allocator with `layout` and nothing uses it any more.
pub unsafe fn give(ptr: NonNull<u8>, layout: Layout) {
    if layout.size() > MAX_BYTES / 2 {
        // SAFETY: the caller's promise.
        unsafe { std::alloc::dealloc(ptr.as_ptr(), layout) };
        return;
    }
    let freed: Vec<Kept> = {
        let mut kept = kept();
        kept.push(Kept { ptr, layout });
        let mut total: usize = kept.iter().map(|k| k.layout.size()).sum();
        let mut excess = 0;
        while kept.len() - excess > MAX_KEPT || total > MAX_BYTES {
            total -= kept[excess].layout.size();
            excess += 1;
        }
        kept.drain(..excess).collect()
    };
    for k in freed {
        // SAFETY: every kept buffer came through `give` with its layout.
        unsafe { std::alloc::dealloc(k.ptr.as_ptr(), k.layout) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Odd sizes and alignment, which no storage asks for: other tests of this binary allocate
    // and free large storages at the same time.
    fn alloc(size: usize) -> (NonNull<u8>, Layout) {
        let layout = Layout::from_size_align(size, 128).unwrap();
        // SAFETY: non-zero size.
        (NonNull::new(unsafe { std::alloc::alloc(layout) }).unwrap(), layout)
    }

    #[test]
    fn a_buffer_comes_back_for_its_own_layout_only_and_the_bounds_hold() {
        let (p, l) = alloc((1 << 20) + 128);
        unsafe { give(p, l) };
        assert!(take(Layout::from_size_align((2 << 20) + 128, 128).unwrap()).is_none());
        assert_eq!(take(l), Some(p));
        assert!(take(l).is_none());
        unsafe { give(p, l) };
        for _ in 0..MAX_KEPT + 3 {
            let (q, m) = alloc((1 << 20) + 128);
            unsafe { give(q, m) };
        }
        {
            let kept = kept();
            assert!(kept.len() <= MAX_KEPT);
            assert!(kept.iter().map(|k| k.layout.size()).sum::<usize>() <= MAX_BYTES);
        }
        let (big, bl) = alloc(MAX_BYTES / 2 + 128);
        unsafe { give(big, bl) };
        assert!(kept().iter().all(|k| k.layout != bl));
        while take(l).is_some() {}
    }
}
