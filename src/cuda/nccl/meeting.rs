//! Where the ranks of a `shared::Group` meet: a shared-memory segment named by a key that
//! `mark_id` writes into the unused tail of the unique id (NCCL's own part is the bootstrap
//! address at its start), with a slot per rank for what it posts to its GPU's leader, and how a
//! waiting rank tells that another has died.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU32, AtomicU64};

use super::loader::UNIQUE_ID_BYTES;
use crate::cuda::ipc::HANDLE_BYTES;
use crate::error::{Error, Result};

/// Where the meeting key lives in the unique id: the last 24 bytes (a tag, then 16 random bytes).
const KEY_AT: usize = UNIQUE_ID_BYTES - 24;
const TAG: &[u8; 8] = b"luatorch";
/// The most ranks one communicator takes.
pub const MAX_RANKS: usize = 1024;

/// Writes a fresh meeting key into the tail of `id` (a unique id from NCCL, or zeros).
pub fn mark_id(id: &mut [u8; UNIQUE_ID_BYTES]) -> Result<()> {
    let mut key = [0u8; 16];
    // SAFETY: getrandom writes at most key.len() bytes into key.
    let n = unsafe { libc::getrandom(key.as_mut_ptr().cast(), key.len(), 0) };
    if n != key.len() as isize {
        return Err(Error::io("getrandom failed"));
    }
    id[KEY_AT..KEY_AT + 8].copy_from_slice(TAG);
    id[KEY_AT + 8..].copy_from_slice(&key);
    Ok(())
}

/// The meeting key of an id made by `mark_id`, as hex.
pub fn key_of(id: &[u8; UNIQUE_ID_BYTES]) -> Option<String> {
    (&id[KEY_AT..KEY_AT + 8] == TAG).then(|| id[KEY_AT + 8..].iter().map(|b| format!("{b:02x}")).collect())
}

/// The id as NCCL made it (our tail cleared).
pub fn nccl_part(id: &[u8; UNIQUE_ID_BYTES]) -> [u8; UNIQUE_ID_BYTES] {
    let mut out = *id;
    out[KEY_AT..].fill(0);
    out
}

/// One buffer of a posted call: where it is in the poster's memory.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct Buffer {
    pub(super) present: u32,
    pub(super) _pad: u32,
    pub(super) handle: [u8; HANDLE_BYTES],
    pub(super) offset: u64,
    pub(super) bytes: u64,
}

/// A collective as a rank posts it to its leader.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct Posted {
    pub(super) kind: u32,
    pub(super) dtype: i32,
    pub(super) op: i32,
    pub(super) root: i32,
    pub(super) count: u64,
    pub(super) send: Buffer,
    pub(super) recv: Buffer,
}

/// A rank's place in the segment.
#[repr(C)]
pub(super) struct Slot {
    pub(super) joined: AtomicU32,
    pub(super) pid: AtomicU32,
    pub(super) uuid: UnsafeCell<[u8; 16]>,
    /// Collectives this rank has posted, and the leader has finished for it.
    pub(super) posted: AtomicU64,
    pub(super) done: AtomicU64,
    /// 0, or why the leader failed the last collective (a `Failure` code).
    pub(super) status: AtomicU32,
    pub(super) _pad: u32,
    pub(super) call: UnsafeCell<Posted>,
}

#[repr(C)]
pub(super) struct Header {
    pub(super) nranks: AtomicU32,
    /// Ranks that have seen everyone join (the last one removes the segment's name).
    pub(super) attached: AtomicU32,
    /// Set by a rank that gave up while others may wait for it.
    pub(super) failed: AtomicU32,
    pub(super) _pad: u32,
}

pub(super) const SEGMENT_BYTES: usize = std::mem::size_of::<Header>() + MAX_RANKS * std::mem::size_of::<Slot>();

/// The mapped segment.
pub(super) struct Segment {
    base: *mut u8,
    name: String,
}

// SAFETY: the segment is only reached through atomics and the slot fields their orderings
// publish; the mapping lives as long as the Segment.
unsafe impl Send for Segment {}

impl Segment {
    pub(super) fn open(name: &str) -> Result<Segment> {
        let cname = std::ffi::CString::new(name).map_err(|_| Error::argument("bad segment name"))?;
        // SAFETY: plain POSIX calls on a name and descriptors of our own.
        unsafe {
            let fd = libc::shm_open(cname.as_ptr(), libc::O_CREAT | libc::O_RDWR | libc::O_CLOEXEC, 0o600);
            if fd < 0 {
                return Err(Error::io(format!(
                    "shm_open {name}: {}",
                    std::io::Error::last_os_error()
                )));
            }
            // Every rank sizes it: growing to the same size keeps what others wrote.
            let mut st: libc::stat = std::mem::zeroed();
            let ok = libc::fstat(fd, &mut st) == 0
                && (st.st_size as usize >= SEGMENT_BYTES || libc::ftruncate(fd, SEGMENT_BYTES as libc::off_t) == 0);
            if !ok {
                let e = std::io::Error::last_os_error();
                libc::close(fd);
                return Err(Error::io(format!("sizing {name}: {e}")));
            }
            let p = libc::mmap(
                std::ptr::null_mut(),
                SEGMENT_BYTES,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            );
            libc::close(fd);
            if p == libc::MAP_FAILED {
                return Err(Error::io(format!(
                    "mapping {name}: {}",
                    std::io::Error::last_os_error()
                )));
            }
            Ok(Segment {
                base: p.cast(),
                name: name.to_string(),
            })
        }
    }

    pub(super) fn header(&self) -> &Header {
        // SAFETY: the mapping starts with a Header; zeroed memory is a valid one.
        unsafe { &*self.base.cast::<Header>() }
    }

    pub(super) fn slot(&self, rank: usize) -> &Slot {
        assert!(rank < MAX_RANKS);
        // SAFETY: slots follow the header, MAX_RANKS of them fit in the mapping.
        unsafe { &*self.base.add(std::mem::size_of::<Header>()).cast::<Slot>().add(rank) }
    }

    pub(super) fn unlink(&self) {
        if let Ok(c) = std::ffi::CString::new(self.name.as_str()) {
            // SAFETY: removes a name; the mappings stay valid.
            unsafe { libc::shm_unlink(c.as_ptr()) };
        }
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        // SAFETY: unmaps what open mapped.
        unsafe { libc::munmap(self.base.cast(), SEGMENT_BYTES) };
    }
}

/// Whether process `pid` is alive (not gone, not a zombie).
pub(super) fn alive(pid: u32) -> bool {
    if pid == 0 {
        return true;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit_once(") ").is_none_or(|(_, rest)| !rest.starts_with('Z')),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_lives_in_the_tail_and_is_cleared_for_nccl() {
        let mut id = [7u8; UNIQUE_ID_BYTES];
        mark_id(&mut id).unwrap();
        let key = key_of(&id).unwrap();
        assert_eq!(key.len(), 32);
        let n = nccl_part(&id);
        assert!(n[..KEY_AT].iter().all(|&b| b == 7));
        assert!(n[KEY_AT..].iter().all(|&b| b == 0));
        assert_eq!(key_of(&[0; UNIQUE_ID_BYTES]), None);
    }

    #[test]
    fn a_process_that_is_gone_is_not_alive() {
        assert!(alive(std::process::id()));
        assert!(!alive(u32::MAX - 1));
    }
}
