//! Device storages sent to another process of this machine (parallel's send/receive) by CUDA IPC
//! handle, without a trip through host memory.
//!
//! A send must carry the value as it was when sent, while the sender goes on changing its tensors;
//! so the sender copies each device storage into a staging allocation of its own (one
//! device-to-device copy, the only one) and sends that allocation's handle. The receiver maps the
//! staging memory as the storage it hands to Lua; when that storage is collected it tells the
//! sender, which then reuses the allocation for its next send of that size. Opening a handle
//! costs much more than a message, so the receiver keeps its mappings of the latest allocations
//! open for the next storage staged in them.
//! This mirrors `parallel::shm`, whose release messages carry these names too.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use super::ipc::{self, Exported};
use super::memory;
use crate::torch::storage::Storage;

/// Names of staging allocations start with this (shared-memory segments' names do not).
pub const NAME_PREFIX: &str = "cuda-";
/// Released staging allocations a sender keeps for reuse, per peer, at most.
const FREE_MAX_BYTES: usize = 1 << 30;

static NEXT: AtomicU64 = AtomicU64::new(0);

/// Whether CUDA IPC is turned off (`LUATORCH_CUDA_IPC=0`): device storages then travel through
/// host memory, as between machines.
pub fn disabled() -> bool {
    std::env::var("LUATORCH_CUDA_IPC").is_ok_and(|v| v == "0")
}

pub fn is_staging_name(name: &str) -> bool {
    name.starts_with(NAME_PREFIX)
}

/// The staging allocations one sender made for one peer.
#[derive(Default)]
pub struct Stager {
    /// Sent and not yet released, by name.
    lent: HashMap<String, Storage>,
    /// Released, oldest first.
    free: Vec<(String, Storage)>,
}

fn bytes_of(s: &Storage) -> usize {
    s.len() * s.dtype().size_of()
}

impl Stager {
    /// Copies device storage `s` into a staging allocation (waiting for the copy) and returns the
    /// allocation's name and export.
    pub fn stage(&mut self, s: &Storage) -> Result<(String, Exported), String> {
        const M: &str = "send";
        let device = memory::device_of(s).ok_or_else(|| format!("{M}: internal error: not a device storage"))?;
        let reuse = self
            .free
            .iter()
            .position(|(_, b)| b.dtype() == s.dtype() && b.len() == s.len() && memory::device_of(b) == Some(device));
        let (name, staging) = match reuse {
            Some(i) => self.free.remove(i),
            None => {
                let dev = memory::device_for(s, M)?;
                let name = format!(
                    "{NAME_PREFIX}{}-{}",
                    std::process::id(),
                    NEXT.fetch_add(1, Ordering::Relaxed)
                );
                (name, memory::alloc_unset(&dev, s.dtype(), s.len())?)
            }
        };
        let exported = memory::copy_device(&staging, 0, s, 0, s.len(), M)
            .and_then(|()| memory::device_for(s, M)?.synchronize())
            .and_then(|()| ipc::export_ipc(&staging));
        match exported {
            Ok(e) => {
                self.lent.insert(name.clone(), staging);
                Ok((name, e))
            }
            Err(e) => Err(format!("{M}: cannot share a device storage: {e}")),
        }
    }

    /// The receiver is done with `name` (its storage over it was collected): the allocation can
    /// carry the next storage.
    pub fn release(&mut self, name: &str) {
        let Some(staging) = self.lent.remove(name) else { return };
        self.free.push((name.to_string(), staging));
        let mut free_bytes: usize = self.free.iter().map(|(_, s)| bytes_of(s)).sum();
        while free_bytes > FREE_MAX_BYTES && !self.free.is_empty() {
            free_bytes -= bytes_of(&self.free.remove(0).1);
        }
    }
}

/// Maps what a sender staged, under `name`, as a storage of this process; `released` runs once
/// the storage is collected and the work reading it is over. The mapping stays open for the next
/// storage staged in the same allocation.
pub fn open(name: &str, e: &Exported, released: Box<dyn FnOnce() + Send + Sync>) -> Result<Storage, String> {
    ipc::import_cached(name, e, Some(released))
}

/// Closes the cached mappings of what process `pid` staged (it is gone).
pub fn forget_sender(pid: u32) {
    ipc::forget_cached(&format!("{NAME_PREFIX}{pid}-"));
}
