//! Where threads wait for a shared ipc object (a FIFO, a mutex) to change, and how a wait notices
//! Ctrl-C.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, MutexGuard};
use std::time::{Duration, Instant};

/// Where threads wait for a shared object to change: a condition variable that is signalled only
/// when someone waits on it (a signal is a system call), and a count of changes that a reader
/// about to sleep spins on for a moment first (an item usually follows within microseconds, and
/// sleeping and waking cost far more).
#[derive(Default)]
pub struct Signal {
    cond: Condvar,
    waiters: AtomicUsize,
    changes: AtomicU64,
}

/// How long a reader spins before it sleeps.
const SPIN: Duration = Duration::from_micros(50);
/// A reader that saw a change looks again this much later, then twice as late each time, while
/// changes keep coming...
const GATHER_POLL: Duration = Duration::from_nanos(100);
/// ... until this many have come, or for at most this long.
const GATHER_ITEMS: u64 = 256;
const GATHER_MAX: Duration = Duration::from_micros(20);

impl Signal {
    /// The number of changes so far; read it under the object's lock, before deciding to wait.
    pub fn seen(&self) -> u64 {
        self.changes.load(Ordering::Acquire)
    }

    /// Records a change made under the object's lock (call before unlocking), and wakes every
    /// waiter (call [`Signal::wake`] after unlocking).
    pub fn changed(&self) {
        self.changes.fetch_add(1, Ordering::AcqRel);
    }

    pub fn wake(&self) {
        if self.waiters.load(Ordering::Acquire) > 0 {
            self.cond.notify_all();
        }
    }

    /// Spins until a change after `seen` or for at most SPIN; whether something changed. Call
    /// without holding the object's lock.
    pub fn spin(&self, seen: u64) -> bool {
        let start = Instant::now();
        let mut i = 0u32;
        loop {
            if self.changes.load(Ordering::Acquire) != seen {
                return true;
            }
            i = i.wrapping_add(1);
            if i < 256 {
                std::hint::spin_loop();
                continue;
            }
            if start.elapsed() > SPIN {
                return false;
            }
            // Past the first few hundred checks, give the core to a writer that may share it.
            std::thread::yield_now();
        }
    }

    /// [`Signal::spin`], then, once something changed, a little longer while changes keep
    /// coming (a writer in full flow), so that a reader takes a batch at once instead of paying a
    /// handoff between cores for every item. While gathering it reads the shared counter only
    /// at growing intervals (a lone item is taken at once): every read pulls the writer's cache line away from it, which on a
    /// machine with many cores costs the writer more than the item itself. Whether something
    /// changed.
    pub fn spin_gather(&self, seen: u64) -> bool {
        if !self.spin(seen) {
            return false;
        }
        let start = Instant::now();
        let mut last = self.changes.load(Ordering::Acquire);
        let mut polled = start;
        let mut gap = GATHER_POLL;
        loop {
            std::hint::spin_loop();
            let now = Instant::now();
            if now.duration_since(polled) < gap {
                continue;
            }
            polled = now;
            gap *= 2;
            let changes = self.changes.load(Ordering::Acquire);
            if changes == last || changes.wrapping_sub(seen) >= GATHER_ITEMS || now - start > GATHER_MAX {
                return true;
            }
            last = changes;
        }
    }

    /// Waits for a wakeup, at most a slice of time, so that a wait can notice what it must (an
    /// interrupt, a queue nobody else holds any more) without missing a wakeup.
    pub fn wait<'a, S>(&self, guard: MutexGuard<'a, S>) -> MutexGuard<'a, S> {
        // Counted under the lock: a writer that changes the object after this sees the count.
        self.waiters.fetch_add(1, Ordering::AcqRel);
        let g = match self.cond.wait_timeout(guard, Duration::from_millis(100)) {
            Ok((g, _)) => g,
            Err(e) => e.into_inner().0,
        };
        self.waiters.fetch_sub(1, Ordering::AcqRel);
        g
    }
}

pub fn interrupted() -> bool {
    crate::interrupt::pending()
}
