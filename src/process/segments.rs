//! Named shared-memory segments of a run (files in /dev/shm named after the run and the maker's
//! pid, so that `sweep` finds what a killed process left): made, written, mapped. Parallel's
//! recycling pools (`parallel::shm`) and the cluster's one-way segments (`cluster::shm`) are built
//! on these.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

use super::sweep::{PREFIX, path_of, unlink};
use crate::torch::base::dtype::DType;
use crate::torch::base::storage::{Storage, track_external_bytes};
use crate::wire::handshake::{hex, random_bytes};

pub(crate) static NEXT: AtomicU64 = AtomicU64::new(0);

pub(crate) fn open(name: &str, create: bool) -> io::Result<libc::c_int> {
    let path = path_of(name)?;
    let flags = if create {
        libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC
    } else {
        libc::O_RDWR | libc::O_CLOEXEC | libc::O_NOFOLLOW
    };
    // SAFETY: plain open of a validated path; O_EXCL refuses anything already there.
    let fd = unsafe { libc::open(path.as_ptr(), flags, 0o600) };
    if fd < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(fd)
    }
}

/// Maps `bytes` of the open file `fd`, read-write, with its pages mapped up front.
pub(crate) fn map(fd: libc::c_int, bytes: usize) -> io::Result<usize> {
    // SAFETY: a fresh shared mapping of an open file; the result is checked.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_POPULATE,
            fd,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    Ok(p as usize)
}

pub(crate) fn close(fd: libc::c_int) {
    // SAFETY: fd is ours, closed once.
    unsafe { libc::close(fd) };
}

/// A mapping made here, unmapped on drop.
pub(crate) struct Mapped {
    pub(crate) ptr: usize,
    pub(crate) bytes: usize,
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: made by `map` with this address and length; nothing uses it any more (storages
        // hold an Arc).
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.bytes) };
    }
}

// SAFETY: a plain address range; access is the storages' business.
unsafe impl Send for Mapped {}
unsafe impl Sync for Mapped {}

pub(crate) fn write_all_at(fd: libc::c_int, data: &[u8]) -> io::Result<()> {
    let mut off = 0;
    while off < data.len() {
        // SAFETY: writes from our slice.
        let r = unsafe { libc::pwrite(fd, data[off..].as_ptr().cast(), data.len() - off, off as libc::off_t) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        off += r as usize;
    }
    Ok(())
}

/// Maps the whole of existing segment `name`, which must hold exactly `bytes` bytes.
pub(crate) fn map_existing(name: &str, bytes: usize) -> io::Result<usize> {
    let fd = open(name, false)?;
    let result = (|| {
        // SAFETY: fstat into a zeroed struct.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd, &mut st) } != 0 {
            return Err(io::Error::last_os_error());
        }
        if st.st_size as u64 != bytes as u64 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("segment holds {} bytes, the message says {bytes}", st.st_size),
            ));
        }
        map(fd, bytes)
    })();
    close(fd);
    result
}

/// A fresh segment of `run` holding `data`, made by this process: a pool's new segment, or one
/// for a receiver that maps it whole and does not report back (the cluster's tasks and results:
/// whoever ends the value's life removes the name, see `cluster::shm`). Writing new pages through
/// the file is faster than faulting them in through a mapping.
pub fn create_once(run: &str, data: &[u8]) -> io::Result<String> {
    let nonce = hex(&random_bytes(6)?);
    let name = format!(
        "{PREFIX}{run}-{}-{}-{nonce}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let fd = open(&name, true)?;
    let written = write_all_at(fd, data);
    close(fd);
    if let Err(e) = written {
        let _ = unlink(&name);
        return Err(e);
    }
    Ok(name)
}

/// A mapping that is its storage's whole backing: unmapped when the storage goes.
struct Owned {
    _map: Mapped,
    bytes: usize,
}

impl Drop for Owned {
    fn drop(&mut self) {
        track_external_bytes(-(self.bytes as isize));
    }
}

/// Maps segment `name`, which must hold `len` elements of `dtype`, as a storage of its own (no
/// cache, no release owed to anyone).
pub fn map_whole(name: &str, dtype: DType, len: usize) -> io::Result<Storage> {
    let bytes = len
        .checked_mul(dtype.size_of())
        .filter(|b| *b > 0)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "bad segment size"))?;
    let ptr = map_existing(name, bytes)?;
    track_external_bytes(bytes as isize);
    let owner = Owned {
        _map: Mapped { ptr, bytes },
        bytes,
    };
    // SAFETY: the mapping holds `bytes` = len elements and lives as long as its owner, which
    // the storage holds.
    Ok(unsafe { Storage::from_external(dtype, ptr as *mut u8, len, Box::new(owner)) })
}
