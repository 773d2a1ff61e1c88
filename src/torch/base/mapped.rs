//! Storages over mapped files, Torch7's `torch.<T>Storage(filename [, shared [, size [, sharedMem]]])`.
//!
//! - A file on disk is mapped: privately (changes stay in this process) unless `shared`, in which
//!   case writes reach the file and a file shorter than `size` elements is extended.
//! - With `sharedMem`, `filename` names a POSIX shared-memory object (`/dev/shm/<name>`), created
//!   if missing. The storage that created it removes it when it is freed, so a segment does not
//!   outlive its storage (a process killed outright still leaves it, as any named object would).

use std::ffi::CString;
use std::num::NonZeroUsize;
use std::os::fd::{AsFd, OwnedFd};
use std::ptr::NonNull;

use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::sys::mman::{MapFlags, ProtFlags, mmap, munmap, shm_open, shm_unlink};
use nix::sys::stat::{Mode, fstat};

use super::dtype::DType;
use super::storage::{Storage, track_external_bytes};
use crate::error::{Error, Result};

/// How to map `path`.
pub struct Request<'a> {
    pub path: &'a str,
    pub shared: bool,
    /// Elements wanted; None takes the whole file.
    pub size: Option<usize>,
    pub shared_mem: bool,
}

/// A mapping, unmapped (and its shared-memory object removed, when this mapping created it) on drop.
struct Mapping {
    ptr: NonNull<libc::c_void>,
    bytes: usize,
    unlink: Option<CString>,
}

// SAFETY: a plain address range; access is the storages' business.
unsafe impl Send for Mapping {}
unsafe impl Sync for Mapping {}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: mapped by `map` with this address and length; the storage that used it is gone.
        let _ = unsafe { munmap(self.ptr, self.bytes) };
        track_external_bytes(-(self.bytes as isize));
        if let Some(name) = &self.unlink {
            let _ = shm_unlink(name.as_c_str());
        }
    }
}

/// Maps the file or shared-memory object `r` names as a storage of `dtype`.
pub fn map(dtype: DType, r: &Request<'_>) -> Result<Storage> {
    let es = dtype.size_of();
    let (fd, created_name) = if r.shared_mem {
        open_shared_memory(r.path)?
    } else {
        (open_file(r.path, r.shared)?, None)
    };
    let file_bytes = fstat(fd.as_fd())
        .map_err(|e| Error::io(format!("cannot stat {}: {}", r.path, os_error(e))))?
        .st_size as usize;
    let len = match r.size {
        Some(n) => n,
        None => file_bytes / es,
    };
    let bytes = len
        .checked_mul(es)
        .ok_or_else(|| Error::memory(format!("storage of {len} elements is too large")))?;
    if bytes > file_bytes {
        if !(r.shared || r.shared_mem) {
            return Err(Error::io(format!(
                "file <{}> holds {file_bytes} bytes, fewer than the {bytes} asked for",
                r.path
            )));
        }
        nix::unistd::ftruncate(&fd, bytes as libc::off_t)
            .map_err(|e| Error::io(format!("cannot extend {}: {}", r.path, os_error(e))))?;
    }
    let Some(nonzero) = NonZeroUsize::new(bytes) else {
        if let Some(name) = created_name {
            let _ = shm_unlink(name.as_c_str());
        }
        return Storage::new(dtype, 0);
    };
    let flags = if r.shared || r.shared_mem {
        MapFlags::MAP_SHARED
    } else {
        MapFlags::MAP_PRIVATE
    };
    // SAFETY: a fresh mapping of an open file of at least `bytes` bytes; checked below.
    let ptr = unsafe {
        mmap(
            None,
            nonzero,
            ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
            flags,
            &fd,
            0,
        )
    }
    .map_err(|e| Error::io(format!("cannot map {}: {}", r.path, os_error(e))))?;
    track_external_bytes(bytes as isize);
    let mapping = Mapping {
        ptr,
        bytes,
        unlink: created_name,
    };
    // SAFETY: `len` elements of `dtype` are mapped at `ptr` (page-aligned) for as long as the
    // mapping, which the storage owns, lives.
    Ok(unsafe { Storage::from_external(dtype, ptr.as_ptr().cast(), len, Box::new(mapping)) })
}

/// The system's words for an error ("No such file or directory (os error 2)").
fn os_error(e: Errno) -> std::io::Error {
    std::io::Error::from(e)
}

fn open_file(path: &str, shared: bool) -> Result<OwnedFd> {
    let flags = if shared {
        OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_CLOEXEC
    } else {
        OFlag::O_RDONLY | OFlag::O_CLOEXEC
    };
    nix::fcntl::open(path, flags, Mode::from_bits_truncate(0o600))
        .map_err(|e| Error::io(format!("cannot open {path}: {}", os_error(e))))
}

/// Opens the shared-memory object `name`, creating it if it is not there; gives the name to
/// remove it by when this call created it.
fn open_shared_memory(name: &str) -> Result<(OwnedFd, Option<CString>)> {
    let c = CString::new(format!("/{}", name.trim_start_matches('/')))
        .map_err(|_| Error::io(format!("invalid shared memory name {name:?}")))?;
    let mode = Mode::from_bits_truncate(0o600);
    match shm_open(c.as_c_str(), OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_EXCL, mode) {
        Ok(fd) => Ok((fd, Some(c))),
        Err(Errno::EEXIST) => shm_open(c.as_c_str(), OFlag::O_RDWR, mode)
            .map(|fd| (fd, None))
            .map_err(|e| Error::io(format!("cannot open shared memory {name}: {}", os_error(e)))),
        Err(e) => Err(Error::io(format!(
            "cannot create shared memory {name}: {}",
            os_error(e)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_memory_goes_with_the_storage_that_made_it() {
        let name = format!("luatorch-test-mapped-{}", std::process::id());
        let path = format!("/dev/shm/{name}");
        let r = Request {
            path: &name,
            shared: true,
            size: Some(16),
            shared_mem: true,
        };
        let s = map(DType::Double, &r).unwrap();
        assert_eq!(s.len(), 16);
        assert!(std::path::Path::new(&path).exists());
        // A second storage over the same object sees the same memory and does not remove it.
        let t = map(DType::Double, &r).unwrap();
        // SAFETY: both storages are live mappings of 16 doubles.
        unsafe {
            *s.ptr::<f64>().add(3) = 2.5;
            assert_eq!(*t.ptr::<f64>().add(3), 2.5);
        }
        drop(t);
        assert!(std::path::Path::new(&path).exists());
        drop(s);
        assert!(!std::path::Path::new(&path).exists());
    }

    #[test]
    fn a_private_mapping_needs_the_whole_size_in_the_file() {
        let path = std::env::temp_dir().join(format!("luatorch-mapped-{}", std::process::id()));
        std::fs::write(&path, 1.5f32.to_le_bytes().repeat(4)).unwrap();
        let p = path.to_str().unwrap();
        let whole = map(
            DType::Float,
            &Request {
                path: p,
                shared: false,
                size: None,
                shared_mem: false,
            },
        )
        .unwrap();
        assert_eq!(whole.len(), 4);
        let short = map(
            DType::Float,
            &Request {
                path: p,
                shared: false,
                size: Some(8),
                shared_mem: false,
            },
        );
        assert!(short.is_err());
        std::fs::remove_file(&path).unwrap();
    }
}
