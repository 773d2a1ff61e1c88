//! Lending device memory to a process of this machine, and opening what another lent: the one
//! device-sharing protocol of `parallel` and ipc's client/server (`wire::cuda` describes it and
//! says why it is the one).
//!
//! A sender that does not wait for its receiver (`parallel.send`) lends a staged copy: each
//! device storage is copied into a staging allocation of its own (one device-to-device copy, the
//! only one), lent, and used again for the next storage of its size once released. The number of
//! a loan is its staging allocation's, so a receiver that keeps its mapping of that allocation
//! open finds it again (opening a handle costs far more than a message). A sender that waits for
//! the release (ipc's `send`) lends its storage's own memory, once the work queued on it is done.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use super::ipc::{self, Exported};
use super::memory;
use crate::error::{Error, Result};
use crate::torch::base::storage::Storage;
use crate::wire::cuda::Lent;

/// Released staging allocations a sender keeps for reuse, per peer, at most.
const FREE_MAX_BYTES: usize = 1 << 30;

static NEXT_LOAN: AtomicU64 = AtomicU64::new(1);

/// Whether CUDA IPC is turned off (`LUATORCH_CUDA_IPC=0`): device storages then travel through
/// host memory, as between machines.
pub fn disabled() -> bool {
    crate::settings::is_off(crate::settings::CUDA_IPC)
}

fn bytes_of(s: &Storage) -> usize {
    s.len() * s.dtype().size_of()
}

/// The descriptor of `s`, exported as `e`, lent as `loan`.
fn lent(s: &Storage, e: Exported, loan: u64) -> Result<Lent> {
    Ok(Lent {
        loan,
        handle: e.handle,
        offset: e.offset as u64,
        len: s.len() as u64,
        dtype: e.dtype,
        device: e.device as u32,
        uuid: e.uuid,
        pid: std::process::id(),
        addr: memory::address(s, 0)?,
    })
}

fn exported(l: &Lent) -> Exported {
    Exported {
        handle: l.handle,
        offset: l.offset as usize,
        bytes: l.bytes(),
        device: l.device as usize,
        uuid: l.uuid,
        dtype: l.dtype,
    }
}

/// The staged copies one sender lent to one peer.
#[derive(Default)]
pub struct Stager {
    /// Lent and not yet released, by loan.
    lent: HashMap<u64, Storage>,
    /// Released, oldest first.
    free: Vec<(u64, Storage)>,
}

impl Stager {
    /// Copies device storage `s` into a staging allocation (waiting for the copy) and lends it.
    pub fn stage(&mut self, s: &Storage) -> Result<Lent> {
        const M: &str = "send";
        let device = memory::device_of(s).ok_or_else(|| Error::device("not a device storage"))?;
        let reuse = self
            .free
            .iter()
            .position(|(_, b)| b.dtype() == s.dtype() && b.len() == s.len() && memory::device_of(b) == Some(device));
        let (loan, staging) = match reuse {
            Some(i) => self.free.remove(i),
            None => {
                let dev = memory::open_device(s).map_err(|e| e.context(M))?;
                let staging = memory::alloc_unset(&dev, s.dtype(), s.len())?;
                (NEXT_LOAN.fetch_add(1, Ordering::Relaxed), staging)
            }
        };
        let exported = memory::copy(&staging, 0, s, 0, s.len())
            .map_err(|e| e.context(M))
            .and_then(|()| memory::open_device(s).map_err(|e| e.context(M))?.synchronize())
            .and_then(|()| ipc::export(&staging))
            .map_err(|e| Error::device(format!("cannot share a device storage: {e}")))?;
        let l = lent(&staging, exported, loan)?;
        self.lent.insert(loan, staging);
        Ok(l)
    }

    /// The receiver is done with `loan` (its storage over it was collected): the allocation can
    /// carry the next storage.
    pub fn release(&mut self, loan: u64) {
        let Some(staging) = self.lent.remove(&loan) else { return };
        self.free.push((loan, staging));
        let mut free_bytes: usize = self.free.iter().map(|(_, s)| bytes_of(s)).sum();
        while free_bytes > FREE_MAX_BYTES && !self.free.is_empty() {
            free_bytes -= bytes_of(&self.free.remove(0).1);
        }
    }
}

/// Lends `s`'s own memory, as it is once the work queued on it is done, to a receiver that copies
/// it while the caller waits for the release; None when it cannot be exported (memory opened from
/// another process), and it must take the host path.
pub fn lend_in_place(s: &Storage) -> Result<Option<Lent>> {
    memory::open_device(s).map_err(|e| e.context("send"))?.synchronize()?;
    let Ok(e) = ipc::export(s) else { return Ok(None) };
    lent(s, e, NEXT_LOAN.fetch_add(1, Ordering::Relaxed)).map(Some)
}

/// The name under which a receiver keeps its mapping of a lender's allocation open.
fn mapping_name(pid: u32, loan: u64) -> String {
    format!("cuda-{pid}-{loan}")
}

/// Maps what a sender lent as a storage of this process; `released` runs once the storage is
/// collected and the work reading it is over. The mapping stays open for the next loan of the
/// same allocation.
pub fn open(l: &Lent, released: Box<dyn FnOnce() + Send + Sync>) -> Result<Storage> {
    ipc::import_named(&mapping_name(l.pid, l.loan), &exported(l), Some(released))
}

/// Opens what a sender lent for a read now (the caller copies it, then releases it): the memory
/// itself when the lender is this very process (another thread, waiting), else a mapping closed
/// when the storage goes.
pub fn open_briefly(l: &Lent) -> Result<Storage> {
    let e = exported(l);
    if l.pid == std::process::id() {
        ipc::own_memory(l.addr, &e)
    } else {
        ipc::import(&e, None)
    }
}

/// Closes the cached mappings of what process `pid` lent (it is gone).
pub fn forget_lender(pid: u32) {
    ipc::forget_named(&format!("cuda-{pid}-"));
}
