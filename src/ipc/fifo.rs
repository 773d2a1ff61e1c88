//! The FIFO under channels and workqueues: any number of writers and readers, unbounded, with
//! the close and drain states channels need.
//!
//! Writers append to one buffer under the writers' lock; readers pop from another under the
//! readers' lock, and when theirs is empty take the writers' whole buffer at once (so the order is
//! kept: what the readers hold is older than anything the writers hold). The two sides live on
//! separate cache lines, so a writer and a reader on different cores hand over a batch of items
//! per exchange instead of fighting over one lock for every item. A reader that finds nothing
//! spins briefly (and lets a batch gather while a writer is in full flow) before it sleeps.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use super::packed::Packed;
use super::signal::{Signal, interrupted};
use crate::error::{Error, Result};

pub const OPEN: i64 = 0;
pub const CLOSED: i64 = 1;
pub const DRAINED: i64 = 2;

/// Keeps what it holds on cache lines of its own.
#[repr(align(128))]
struct Padded<T>(T);

#[derive(Default)]
struct Writers {
    items: Vec<Packed>,
    closed: bool,
    drained: bool,
}

#[derive(Default)]
struct Readers {
    items: VecDeque<Packed>,
    /// An empty buffer (with its capacity) to swap in for the writers' one.
    spare: Vec<Packed>,
}

pub struct Fifo {
    writers: Padded<(Mutex<Writers>, Signal)>,
    readers: Padded<Mutex<Readers>>,
    /// Set once with `Writers::closed`, for readers that do not take the writers' lock.
    closed: AtomicBool,
}

impl Default for Fifo {
    fn default() -> Fifo {
        Fifo {
            writers: Padded((Mutex::default(), Signal::default())),
            readers: Padded(Mutex::default()),
            closed: AtomicBool::new(false),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a read gives: the status and the item, if there was one.
pub type Popped = (i64, Option<Packed>);

impl Fifo {
    fn writers(&self) -> MutexGuard<'_, Writers> {
        lock(&self.writers.0.0)
    }

    fn signal(&self) -> &Signal {
        &self.writers.0.1
    }

    fn readers(&self) -> MutexGuard<'_, Readers> {
        lock(&self.readers.0)
    }

    /// Appends `items` unless the FIFO is closed; the status (OPEN when written).
    pub fn push(&self, items: impl IntoIterator<Item = Packed>) -> i64 {
        let mut w = self.writers();
        if w.drained {
            return DRAINED;
        }
        if w.closed {
            return CLOSED;
        }
        w.items.extend(items);
        self.signal().changed();
        drop(w);
        self.signal().wake();
        OPEN
    }

    /// Refuses further writes; an empty FIFO is drained at once. Wakes every reader.
    pub fn close(&self) {
        // Readers hold their lock only for moments (never while they wait).
        let r = self.readers();
        let mut w = self.writers();
        w.closed = true;
        self.closed.store(true, Ordering::Release);
        if w.items.is_empty() && r.items.is_empty() {
            w.drained = true;
        }
        self.signal().changed();
        drop(w);
        drop(r);
        self.signal().wake();
    }

    pub fn closed(&self) -> bool {
        self.writers().closed
    }

    pub fn drained(&self) -> bool {
        self.writers().drained
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn len(&self) -> usize {
        let r = self.readers();
        let w = self.writers();
        r.items.len() + w.items.len()
    }

    /// The status to give with an item just taken; marks the FIFO drained when that was the last
    /// item of a closed FIFO (`r`: the readers' buffer after taking it).
    fn taken(&self, r: &Readers) -> i64 {
        if !self.closed.load(Ordering::Acquire) {
            return OPEN;
        }
        if r.items.is_empty() {
            let mut w = self.writers();
            if w.items.is_empty() && !w.drained {
                w.drained = true;
                self.signal().changed();
                drop(w);
                self.signal().wake();
            }
        }
        CLOSED
    }

    /// Takes the next item. When there is none: with `noblock`, the status alone; otherwise waits
    /// for one, or for the FIFO to be drained (then the status alone). `alone()` says that nothing
    /// can ever arrive (the wait then fails with `alone_message`).
    pub fn pop(&self, noblock: bool, alone: impl Fn() -> bool, alone_message: &str) -> Result<Popped> {
        let mut spun = false;
        loop {
            let mut r = self.readers();
            if let Some(item) = r.items.pop_front() {
                return Ok((self.taken(&r), Some(item)));
            }
            let mut w = self.writers();
            if !w.items.is_empty() {
                let r = &mut *r;
                std::mem::swap(&mut w.items, &mut r.spare);
                drop(w);
                r.items.extend(r.spare.drain(..));
                let item = r.items.pop_front();
                return Ok((self.taken(r), item));
            }
            if w.closed {
                if !w.drained {
                    w.drained = true;
                    self.signal().changed();
                    drop(w);
                    self.signal().wake();
                }
                return Ok((DRAINED, None));
            }
            if noblock {
                return Ok((OPEN, None));
            }
            if alone() {
                return Err(Error::peer(alone_message));
            }
            if interrupted() {
                return Err(Error::peer("interrupted"));
            }
            // Other readers may read while this one waits.
            drop(r);
            if !spun {
                spun = true;
                let seen = self.signal().seen();
                drop(w);
                self.signal().spin_gather(seen);
                continue;
            }
            let w = self.signal().wait(w);
            drop(w);
        }
    }

    /// Waits until the FIFO holds at least `n` items (nobody else reading it), or fails as `pop`.
    pub fn wait_len(&self, n: usize, alone: impl Fn() -> bool, alone_message: &str) -> Result<()> {
        loop {
            let r = self.readers();
            let w = self.writers();
            if r.items.len() + w.items.len() >= n {
                return Ok(());
            }
            if alone() {
                return Err(Error::peer(alone_message));
            }
            if interrupted() {
                return Err(Error::peer("interrupted"));
            }
            drop(r);
            let w = self.signal().wait(w);
            drop(w);
        }
    }
}
