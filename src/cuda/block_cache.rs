//! A cache of freed device allocations, per device, as cutorch's caching allocator kept one (the
//! devices layer: `device::Device` holds one, `memory` fills and empties it).
//!
//! cuMemFree waits for the whole device, and cuMemAlloc costs far more than a kernel launch: a
//! script that makes a temporary tensor per operation (`a + b`, a reduction's partial sums, a
//! sort's work buffers) would otherwise stop the host at every tensor the collector frees. Here a
//! freed allocation goes back to its device's cache instead, under the stream it was made on, and
//! the next allocation of the same size class on that stream takes it: work queued on one stream
//! runs in order, so the new owner's first use comes after the old owner's last.
//!
//! Blocks are whole cuMemAlloc allocations, never split, so every storage still starts an
//! allocation of its own and CUDA IPC can export it. Sizes are rounded up to one of four classes
//! per power of two (at most a quarter more than asked). When an allocation fails the device's
//! cache is freed and the allocation tried again; `cutorch.emptyCache()` frees it on demand, and
//! `THC_CACHING_ALLOCATOR=0` (cutorch's switch) turns the cache off.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The smallest block: small tensors share one size class.
const MIN_BLOCK: usize = 512;

/// Bytes of the block that holds `bytes`: `bytes` rounded up to a quarter of the power of two
/// below it (so at most 25% is unused), and at least MIN_BLOCK.
pub fn block_bytes(bytes: usize) -> usize {
    if bytes <= MIN_BLOCK {
        return MIN_BLOCK;
    }
    let step = 1usize << (usize::BITS - 1 - bytes.leading_zeros()).saturating_sub(2);
    bytes.div_ceil(step).saturating_mul(step)
}

/// Whether freed allocations are kept: yes unless THC_CACHING_ALLOCATOR=0, read once.
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("THC_CACHING_ALLOCATOR").map_or(true, |v| v.trim() != "0"))
}

/// Free blocks of one device, by (stream, block size).
#[derive(Default)]
pub struct Cache {
    free: Mutex<HashMap<(usize, usize), Vec<u64>>>,
    /// Bytes held in free blocks (what `cutorch.getMemoryUsage` counts as free).
    bytes: AtomicUsize,
}

impl Cache {
    /// A free block of `block` bytes last used on `stream`, if one is kept.
    pub fn take(&self, stream: usize, block: usize) -> Option<u64> {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        let list = free.get_mut(&(stream, block))?;
        let addr = list.pop()?;
        if list.is_empty() {
            free.remove(&(stream, block));
        }
        self.bytes.fetch_sub(block, Ordering::Relaxed);
        Some(addr)
    }

    /// Keeps the block at `addr`, of `block` bytes, for the next allocation on `stream`.
    pub fn give(&self, stream: usize, block: usize, addr: u64) {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        free.entry((stream, block)).or_default().push(addr);
        self.bytes.fetch_add(block, Ordering::Relaxed);
    }

    /// Removes every free block and returns their addresses (for the caller to free).
    pub fn drain(&self) -> Vec<u64> {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        let blocks: Vec<u64> = free.drain().flat_map(|(_, list)| list).collect();
        self.bytes.store(0, Ordering::Relaxed);
        blocks
    }

    /// Bytes held in free blocks.
    pub fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_up_by_at_most_a_quarter() {
        assert_eq!(block_bytes(0), 512);
        assert_eq!(block_bytes(4), 512);
        assert_eq!(block_bytes(512), 512);
        assert_eq!(block_bytes(513), 640);
        assert_eq!(block_bytes(1000), 1024);
        assert_eq!(block_bytes(1024), 1024);
        assert_eq!(block_bytes(1025), 1280);
        assert_eq!(block_bytes(4 << 20), 4 << 20);
        assert_eq!(block_bytes((4 << 20) + 1), 5 << 20);
        for bytes in (1..200_000).step_by(37).chain([usize::MAX / 4]) {
            let b = block_bytes(bytes);
            assert!(b >= bytes && (b == 512 || b - bytes <= bytes / 4), "{bytes} -> {b}");
            assert_eq!(block_bytes(b), b, "a block size is its own class");
        }
    }

    #[test]
    fn blocks_come_back_by_stream_and_size() {
        let c = Cache::default();
        c.give(0, 1024, 0x1000);
        c.give(0, 1024, 0x2000);
        c.give(7, 1024, 0x3000);
        c.give(0, 2048, 0x4000);
        assert_eq!(c.bytes(), 5 * 1024);
        assert_eq!(c.take(7, 1024), Some(0x3000));
        assert_eq!(c.take(7, 1024), None, "another stream's blocks are not taken");
        assert_eq!(c.take(0, 1024), Some(0x2000));
        assert_eq!(c.take(0, 1536), None);
        assert_eq!(c.bytes(), 3 * 1024);
        let mut rest = c.drain();
        rest.sort();
        assert_eq!(rest, vec![0x1000, 0x4000]);
        assert_eq!((c.bytes(), c.take(0, 1024)), (0, None));
    }
}
