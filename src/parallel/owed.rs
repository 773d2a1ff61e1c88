//! What this process owes its peers: the news that it no longer reads something they sent
//! (a shared-memory segment, lent device memory). Storages queue it when they are collected, from
//! whatever thread collects them; the hub and the link send it with their next message, and the
//! sender then reuses what it lent.

use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// Whom a received storage came from: the release goes back there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Peer {
    Parent,
    Child(u32),
}

/// One thing received that is no longer read here.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub enum Owed {
    /// A shared-memory segment, by name (`shm`).
    Segment(String),
    /// Device memory lent by CUDA IPC handle, by loan (`cuda::share`).
    Loan(u64),
}

static OWED: Mutex<Vec<(Peer, Owed)>> = Mutex::new(Vec::new());

/// Owes `peer` the news that what it sent is no longer used here.
pub fn queue_release(peer: Peer, owed: Owed) {
    OWED.lock().unwrap_or_else(|e| e.into_inner()).push((peer, owed));
}

/// Takes the releases owed to peers that `which` selects.
pub fn take_releases(which: impl Fn(Peer) -> bool) -> Vec<(Peer, Owed)> {
    let mut q = OWED.lock().unwrap_or_else(|e| e.into_inner());
    if q.is_empty() {
        return Vec::new();
    }
    let (mine, rest): (Vec<_>, Vec<_>) = q.drain(..).partition(|(p, _)| which(*p));
    *q = rest;
    mine
}
