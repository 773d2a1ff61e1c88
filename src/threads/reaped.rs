//! Waiting for joined threads to be gone from the process. A join returns once the thread's last
//! code has run: the kernel wakes the joiner as it lets go of the thread's memory, before it takes
//! the thread out of the process's thread list (what /proc/self/status counts, what ps shows).
//! Code that says its threads are gone (a pool's terminate, a scheduler's shutdown) waits for that
//! as well; it takes microseconds.

use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// The most a wait lasts: past it, the thread is left to the kernel.
const LIMIT: Duration = Duration::from_secs(2);

/// Where a thread notes its kernel id, for `wait_gone`.
#[derive(Default)]
pub struct Tid(AtomicI32);

impl Tid {
    /// Called by the thread itself, first thing.
    pub fn note(&self) {
        #[cfg(target_os = "linux")]
        // SAFETY: gettid has no preconditions.
        self.0.store(unsafe { libc::gettid() }, Ordering::Release);
    }
}

/// Waits until none of the threads, all joined, is in this process's thread list (at most LIMIT).
pub fn wait_gone<'a>(tids: impl IntoIterator<Item = &'a Tid>) {
    let start = Instant::now();
    for tid in tids {
        let tid = tid.0.load(Ordering::Acquire);
        if tid <= 0 {
            continue;
        }
        let path = format!("/proc/self/task/{tid}");
        while std::path::Path::new(&path).exists() && start.elapsed() < LIMIT {
            std::thread::sleep(Duration::from_micros(20));
        }
    }
}
