//! The C allocator's policy for a `th` process (glibc only).
//!
//! Messages between processes (`parallel`, the scheduler's process workers, `ipc`) are built and
//! read in buffers of tens of KiB to a few MiB, one after another. Under glibc's default, adaptive
//! policy such buffers are often served by a fresh `mmap` and unmapped when freed, or the heap is
//! trimmed under them, so that every message faults its pages in anew: in a run of 100,000
//! scheduler tasks on 2 processes that cost about a fifth of the time. Fixed thresholds keep those
//! buffers in the heap, where freed memory is reused warm. Larger blocks (big tensors) are still
//! mapped and unmapped on their own, and the heap still returns what it holds beyond the trim
//! threshold, so memory stays bounded.
//!
//! Set only by the `th` binary, never by the Lua modules a stock LuaJIT loads (the host process's
//! allocator is not ours to tune), and not when the user tunes malloc through the environment.

/// Blocks at least this large are mapped on their own.
const MMAP_THRESHOLD: i32 = 4 << 20;
/// Free memory at the top of the heap beyond this goes back to the system.
const TRIM_THRESHOLD: i32 = 16 << 20;

/// Whether these environment variables tune glibc's malloc (`MALLOC_*`, or malloc tunables in
/// `GLIBC_TUNABLES`).
fn tuned_by_user(mut vars: impl Iterator<Item = (std::ffi::OsString, std::ffi::OsString)>) -> bool {
    vars.any(|(k, v)| {
        let k = k.to_string_lossy();
        k.starts_with("MALLOC_") || (k == "GLIBC_TUNABLES" && v.to_string_lossy().contains("malloc"))
    })
}

/// Applies the policy above, unless the environment already tunes malloc.
pub fn keep_message_buffers_warm() {
    if tuned_by_user(std::env::vars_os()) {
        return;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before any thread is started.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_own_malloc_settings_win() {
        let vars = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect::<Vec<(std::ffi::OsString, std::ffi::OsString)>>()
                .into_iter()
        };
        assert!(!tuned_by_user(vars(&[
            ("PATH", "/bin"),
            ("GLIBC_TUNABLES", "glibc.rtld.nns=2")
        ])));
        assert!(tuned_by_user(vars(&[("MALLOC_ARENA_MAX", "2")])));
        assert!(tuned_by_user(vars(&[(
            "GLIBC_TUNABLES",
            "glibc.malloc.trim_threshold=1"
        )])));
    }
}
