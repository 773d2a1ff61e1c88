//! Shared-memory segments for large storages sent to a local process: the sender copies the
//! storage into a fresh file in /dev/shm once, the receiver maps that file as the storage of what it
//! receives (no second copy) and unlinks it. Names carry the run's id, so the top process of a run
//! removes whatever a killed receiver left behind.

use std::ffi::CString;
use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::torch::dtype::DType;
use crate::torch::storage::Storage;

const DIR: &str = "/dev/shm";
const PREFIX: &str = "luatorch-";

static NEXT: AtomicU64 = AtomicU64::new(0);

/// A mapping owned by a storage; unmapped with it.
struct Mapping {
    ptr: usize,
    bytes: usize,
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping was made by `import` with this address and length, and the storage
        // that used it is gone.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.bytes) };
    }
}

fn path_of(name: &str) -> io::Result<CString> {
    let valid = name.starts_with(PREFIX)
        && name.len() < 200
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !valid {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a segment name"));
    }
    CString::new(format!("{DIR}/{name}")).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "bad name"))
}

/// Maps `bytes` of the open file `fd`, read-write, with its pages populated up front (faulting them
/// in one at a time costs more than the copy).
fn map(fd: libc::c_int, bytes: usize) -> io::Result<*mut u8> {
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
    Ok(p.cast())
}

/// Copies the storage into a new segment of this run and returns the segment's name.
pub fn export(run: &str, storage: &Storage) -> io::Result<String> {
    let bytes = storage.len() * storage.dtype().size_of();
    let nonce = super::wire::hex(&super::wire::random_bytes(6)?);
    let name = format!(
        "{PREFIX}{run}-{}-{}-{nonce}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let path = path_of(&name)?;
    // SAFETY: plain open of a new file; O_EXCL refuses anything already there.
    let fd = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC,
            0o600,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let result = (|| {
        // SAFETY: fd is ours.
        if unsafe { libc::ftruncate(fd, bytes as libc::off_t) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let p = map(fd, bytes)?;
        // SAFETY: `p` maps `bytes` writable bytes; the storage holds `bytes` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(storage.data_ptr(), p, bytes);
            libc::munmap(p.cast(), bytes);
        }
        Ok(())
    })();
    // SAFETY: fd is ours, closed once.
    unsafe { libc::close(fd) };
    if let Err(e) = result {
        let _ = unlink(&name);
        return Err(e);
    }
    Ok(name)
}

/// Maps a segment as a storage of `len` elements of `dtype`, and unlinks its name.
pub fn import(name: &str, dtype: DType, len: usize) -> io::Result<Storage> {
    let path = path_of(name)?;
    // SAFETY: plain open; the result is checked.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC | libc::O_NOFOLLOW) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // The name is not needed once the file is open: nothing is left behind if we fail below.
    let _ = unlink(name);
    let result = (|| {
        let bytes = len
            .checked_mul(dtype.size_of())
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "segment too large"))?;
        // SAFETY: fstat into a zeroed struct.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd, &mut st) } != 0 {
            return Err(io::Error::last_os_error());
        }
        if st.st_size as u64 != bytes as u64 || bytes == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("segment holds {} bytes, the message says {bytes}", st.st_size),
            ));
        }
        let p = map(fd, bytes)?;
        let owner = Mapping { ptr: p as usize, bytes };
        // SAFETY: `p` maps `bytes` = len elements, kept alive by `owner` as long as the storage.
        Ok(unsafe { Storage::from_external(dtype, p, len, Box::new(owner)) })
    })();
    // SAFETY: fd is ours; the mapping stays valid after close.
    unsafe { libc::close(fd) };
    result
}

/// Removes a segment name (a receiver that never came to map it).
pub fn unlink(name: &str) -> io::Result<()> {
    let path = path_of(name)?;
    // SAFETY: unlink of a path we validated.
    if unsafe { libc::unlink(path.as_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Removes every segment of `run` still in /dev/shm.
pub fn sweep(run: &str) {
    let prefix = format!("{PREFIX}{run}-");
    if let Ok(dir) = std::fs::read_dir(DIR) {
        for entry in dir.flatten() {
            if let Some(name) = entry.file_name().to_str()
                && name.starts_with(&prefix)
            {
                let _ = unlink(name);
            }
        }
    }
}

/// The run whose segments this process sweeps when it exits (set in the top process of a run).
static SWEEP_AT_EXIT: Mutex<Option<String>> = Mutex::new(None);

extern "C" fn sweep_at_exit() {
    if let Ok(guard) = SWEEP_AT_EXIT.lock()
        && let Some(run) = guard.as_deref()
    {
        sweep(run);
    }
}

/// Makes this process remove the run's segments when it exits.
pub fn sweep_on_exit(run: &str) {
    let mut guard = SWEEP_AT_EXIT.lock().unwrap_or_else(|e| e.into_inner());
    if guard.is_none() {
        // SAFETY: registers a plain extern "C" function.
        unsafe { libc::atexit(sweep_at_exit) };
    }
    *guard = Some(run.to_string());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_carry_storages() {
        let data: Vec<f32> = (0..300_000).map(|i| i as f32).collect();
        let s = Storage::from_slice(&data).unwrap();
        let name = export("test", &s).unwrap();
        let back = import(&name, DType::Float, data.len()).unwrap();
        // SAFETY: fresh storage.
        assert_eq!(unsafe { back.as_slice::<f32>() }, &data[..]);
        assert!(
            import(&name, DType::Float, data.len()).is_err(),
            "unlinked after import"
        );
    }

    #[test]
    fn bad_names_and_sizes_are_refused() {
        assert!(import("../etc/passwd", DType::Byte, 1).is_err());
        assert!(import("luatorch-../x", DType::Byte, 1).is_err());
        let s = Storage::from_slice(&[1u8, 2, 3]).unwrap();
        let name = export("test", &s).unwrap();
        assert!(import(&name, DType::Byte, 4).is_err());
        let name = export("sweeptest", &s).unwrap();
        sweep("sweeptest");
        assert!(import(&name, DType::Byte, 3).is_err());
    }
}
