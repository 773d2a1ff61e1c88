//! Work spread over threads for the nn kernels. A pass cuts its work into parts (runs of images)
//! that touch disjoint memory; the caller and the pool's threads take parts one at a time until
//! none is left.
//!
//! Why a pool rather than a thread per part: starting a thread costs tens of microseconds on an
//! idle machine and, on a busy one, as long as the scheduler makes the new thread wait, which is
//! milliseconds, and a pass cannot end before its threads are joined. Here the caller never waits
//! for a thread that has not started: it takes every part no one else has taken, and waits only
//! for the parts that others are running. On a busy machine a pass costs at worst what it costs
//! on one thread.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Condvar, Mutex, OnceLock};

/// How many threads a pass may use: `torch.setnumthreads`'s count, which OpenBLAS follows too.
pub fn threads() -> usize {
    super::blas::openblas::num_threads().max(1)
}

/// Whether a pass of `work` multiply-adds (or elements moved) is worth spreading at all: waking a
/// thread costs a few microseconds, about what a thread does in that time.
pub fn worth_spreading(work: usize) -> bool {
    work >= 1 << 16
}

/// The bounds of part `i` of `n` items cut into `parts` near-equal runs.
pub fn bounds(n: usize, parts: usize, i: usize) -> std::ops::Range<usize> {
    (n * i / parts)..(n * (i + 1) / parts)
}

/// A pass being run: its part function, lifetime erased (see `run` for why that is sound).
#[derive(Clone, Copy)]
struct Job {
    f: *const (dyn Fn(usize) + Sync),
    parts: usize,
    /// Pool threads that may join (the caller makes one more).
    helpers: usize,
}

// SAFETY: the function is Sync, and `run` keeps it alive while any thread can reach it.
unsafe impl Send for Job {}

struct Pool {
    /// One pass at a time; a pass that finds the pool busy (another Lua state's, or a nested
    /// one) runs on its own thread.
    caller: Mutex<()>,
    /// The pass on offer (None between passes) and a count of passes, under one lock.
    slot: Mutex<(Option<Job>, u64)>,
    wake: Condvar,
    /// The count of the last pass offered, readable without the lock (for `wait_briefly`).
    posted: AtomicU64,
    /// The next part to take, the parts finished, and the pool threads inside the pass.
    next: AtomicUsize,
    done: AtomicUsize,
    busy: AtomicUsize,
    panicked: AtomicBool,
    /// Pool threads started so far (they never end).
    started: Mutex<usize>,
    /// The process the threads belong to: a child forked from it (parallel, ipc) has none of
    /// them, and may have copied a lock mid-use, so its passes run on its own thread.
    pid: u32,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool {
        caller: Mutex::new(()),
        slot: Mutex::new((None, 0)),
        wake: Condvar::new(),
        posted: AtomicU64::new(0),
        next: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
        busy: AtomicUsize::new(0),
        panicked: AtomicBool::new(false),
        started: Mutex::new(0),
        pid: std::process::id(),
    })
}

impl Pool {
    /// Takes and runs parts until none is left.
    fn work(&self, f: &(dyn Fn(usize) + Sync), parts: usize) {
        loop {
            let i = self.next.fetch_add(1, SeqCst);
            if i >= parts {
                return;
            }
            if catch_unwind(AssertUnwindSafe(|| f(i))).is_err() {
                self.panicked.store(true, SeqCst);
            }
            self.done.fetch_add(1, SeqCst);
        }
    }

    /// Pool thread `index`: waits for a pass it may join, joins it, and waits again. A pass it
    /// missed (the caller had done every part by the time it looked) sends it back to spinning,
    /// not to sleep: it parks only after `SPIN` with no pass at all.
    fn serve(&'static self, index: usize) {
        let mut seen = 0;
        loop {
            self.wait_briefly(seen);
            let job = {
                let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
                while slot.1 == seen {
                    slot = self.wake.wait(slot).unwrap_or_else(|e| e.into_inner());
                }
                seen = slot.1;
                match slot.0 {
                    Some(job) if index < job.helpers => {
                        // Counted while the slot is locked: once the caller has withdrawn the
                        // pass, no thread can enter it.
                        self.busy.fetch_add(1, SeqCst);
                        Some(job)
                    }
                    _ => None,
                }
            };
            if let Some(job) = job {
                // SAFETY: the caller keeps the function alive until `busy` is back to zero.
                self.work(unsafe { &*job.f }, job.parts);
                self.busy.fetch_sub(1, SeqCst);
            }
        }
    }

    /// Spins until a pass newer than `seen` is posted or `SPIN` has passed. Why: a network's
    /// passes come in bursts, a fraction of a millisecond apart, and a parked thread takes that
    /// long to wake again on a busy core, by which time the caller has done every part itself.
    /// The spin yields now and then, so that another thread ready on this core (OpenBLAS's
    /// worker, for the next product) is not kept waiting.
    fn wait_briefly(&self, seen: u64) {
        const SPIN: std::time::Duration = std::time::Duration::from_micros(500);
        let start = std::time::Instant::now();
        let mut i = 0u32;
        while self.posted.load(SeqCst) == seen {
            i = i.wrapping_add(1);
            if !i.is_multiple_of(64) {
                std::hint::spin_loop();
            } else if start.elapsed() > SPIN {
                return;
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// Starts pool threads until there are `n`.
    fn grow(&'static self, n: usize) -> usize {
        let mut started = self.started.lock().unwrap_or_else(|e| e.into_inner());
        while *started < n {
            let index = *started;
            let spawned = std::thread::Builder::new()
                .name(format!("nn-worker-{index}"))
                .spawn(move || self.serve(index));
            if spawned.is_err() {
                break;
            }
            *started += 1;
        }
        *started
    }
}

/// Runs `f` on every part, the caller's thread and up to `threads() - 1` pool threads taking
/// parts in turn; returns once every part is done. A part that panics panics the caller.
pub fn run<P: Send>(parts: Vec<P>, f: impl Fn(P) + Sync) {
    let n = parts.len();
    let helpers = threads().saturating_sub(1).min(n.saturating_sub(1));
    let p = pool();
    let forked = helpers > 0 && std::process::id() != p.pid;
    let guard = if helpers > 0 && !forked {
        p.caller.try_lock().ok()
    } else {
        None
    };
    let Some(_guard) = guard else {
        parts.into_iter().for_each(f);
        return;
    };
    let helpers = p.grow(helpers).min(helpers);
    let slots: Vec<Mutex<Option<P>>> = parts.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let each = |i: usize| {
        let part = slots[i].lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(part) = part {
            f(part);
        }
    };
    let each: &(dyn Fn(usize) + Sync) = &each;
    // SAFETY (lifetime erased): `each` outlives every use; see the withdrawal below.
    let job = Job {
        f: unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), &'static (dyn Fn(usize) + Sync)>(each) },
        parts: n,
        helpers,
    };
    p.next.store(0, SeqCst);
    p.done.store(0, SeqCst);
    p.panicked.store(false, SeqCst);
    {
        let mut slot = p.slot.lock().unwrap_or_else(|e| e.into_inner());
        *slot = (Some(job), slot.1.wrapping_add(1));
        p.posted.store(slot.1, SeqCst);
    }
    p.wake.notify_all();
    p.work(each, n);
    // Parts other threads took are still running: wait for them, not for threads yet to wake.
    let mut spins = 0u32;
    while p.done.load(SeqCst) < n {
        spins += 1;
        if spins < 1 << 12 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
    // Withdraw the pass, then wait for the threads inside it to leave (they find no part left):
    // after that no thread can reach `each`.
    p.slot.lock().unwrap_or_else(|e| e.into_inner()).0 = None;
    while p.busy.load(SeqCst) > 0 {
        std::thread::yield_now();
    }
    if p.panicked.load(SeqCst) {
        panic!("a part of a parallel nn pass panicked");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_cover_every_item_once() {
        for n in 0..20 {
            for p in 1..5 {
                let mut next = 0;
                for i in 0..p {
                    let r = bounds(n, p, i);
                    assert_eq!(r.start, next);
                    next = r.end;
                }
                assert_eq!(next, n);
            }
        }
    }

    #[test]
    fn every_part_runs_once() {
        for _ in 0..50 {
            let mut out = vec![0usize; 100];
            let chunks: Vec<(usize, &mut [usize])> = out.chunks_mut(3).enumerate().collect();
            run(chunks, |(i, c)| c.iter_mut().for_each(|v| *v += i + 1));
            let want: Vec<usize> = (0..100).map(|j| j / 3 + 1).collect();
            assert_eq!(out, want);
        }
    }
}
