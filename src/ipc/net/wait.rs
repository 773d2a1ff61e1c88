//! Waiting on sockets and the clock so that Ctrl-C in the REPL ends the wait, and the system
//! calls' errors in words.

use std::io;
use std::time::{Duration, Instant};

use super::error::{NetError, Res};

pub fn errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

pub fn os_text(code: i32) -> String {
    let e = io::Error::from_raw_os_error(code).to_string();
    // "Connection refused (os error 111)" -> "Connection refused"
    match e.find(" (os error") {
        Some(i) => e[..i].to_string(),
        None => e,
    }
}

/// Waits until `fd` is ready for `events` or `deadline` passes (false). Ctrl-C in the REPL ends
/// the wait with `Interrupted`.
pub fn wait_fd(fd: i32, events: i16, deadline: Option<Instant>) -> Res<bool> {
    let mut pfd = libc::pollfd { fd, events, revents: 0 };
    wait_fds(std::slice::from_mut(&mut pfd), deadline)
}

/// `poll` over several descriptors; false when `deadline` passed first.
pub fn wait_fds(fds: &mut [libc::pollfd], deadline: Option<Instant>) -> Res<bool> {
    loop {
        let timeout = match deadline {
            None => -1,
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Ok(false);
                }
                // Round up so a wait never ends a hair early and spins.
                left.as_millis().clamp(1, i32::MAX as u128) as i32
            }
        };
        // SAFETY: `fds` is a valid, exclusively borrowed array of pollfd of the given length.
        let r = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout) };
        if r > 0 {
            return Ok(true);
        }
        if r < 0 {
            let e = errno();
            if e != libc::EINTR {
                return Err(NetError::Broken(format!("poll failed: {}", os_text(e))));
            }
        }
        if crate::interrupt::pending() {
            return Err(NetError::Interrupted);
        }
    }
}

/// Sleeps `d`, in slices that notice Ctrl-C in the REPL.
pub fn sleep_interruptible(d: Duration) -> Res<()> {
    let end = Instant::now() + d;
    loop {
        if crate::interrupt::pending() {
            return Err(NetError::Interrupted);
        }
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(());
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}

pub fn set_int_opt(fd: i32, level: i32, name: i32, value: i32) {
    // SAFETY: setsockopt reads one c_int from the pointer given; failures are ignored (the
    // options only tune the connection).
    unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&value as *const i32).cast(),
            std::mem::size_of::<i32>() as libc::socklen_t,
        );
    }
}

/// `12`, `0.5`: seconds as a user would write them.
pub fn fmt_seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{}", s as u64)
    } else {
        format!("{s}")
    }
}
