//! The clocks behind `torch.Timer` (lua/torch/Timer.lua): wall time from a monotonic clock, and
//! the process's user and system CPU time from getrusage. The Timer's bookkeeping (totals,
//! stop/resume) is in Lua; only reading the clocks needs native code.

use std::sync::OnceLock;
use std::time::Instant;

use mlua::{Lua, Result, Table};

/// The origin of the monotonic clock: any fixed instant works, since timers only subtract.
fn origin() -> Instant {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    *ORIGIN.get_or_init(Instant::now)
}

/// Seconds on a clock that never goes backwards (unlike gettimeofday, which Torch used, and
/// which jumps when the system time is set).
pub fn real_seconds() -> f64 {
    origin().elapsed().as_secs_f64()
}

/// (user, system) CPU seconds of this process.
pub fn cpu_seconds() -> (f64, f64) {
    // SAFETY: getrusage writes into the zeroed struct we pass; RUSAGE_SELF is always valid.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
            return (0.0, 0.0);
        }
        usage
    };
    let seconds = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    (seconds(usage.ru_utime), seconds(usage.ru_stime))
}

/// Seconds since the Unix epoch: what `torch.tic()` returns, as Torch's did (scripts sometimes
/// use it as a timestamp or a seed, so it is not the monotonic clock).
pub fn wall_seconds() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Adds to the `libtorch` table `timerClock` (real, user and sys seconds for torch.Timer) and
/// `wallClock` (for torch.tic/toc).
pub fn install(lua: &Lua, m: &Table) -> Result<()> {
    crate::calls::add(lua, m, "timerClock", timer_clock)?;
    crate::calls::add(lua, m, "wallClock", wall_clock)
}

/// `timerClock() -> real, user, sys`: seconds, for torch.Timer.
fn timer_clock(_: &Lua, (): ()) -> Result<(f64, f64, f64)> {
    let real = real_seconds();
    let (user, sys) = cpu_seconds();
    Ok((real, user, sys))
}

/// `wallClock() -> seconds`: [`wall_seconds`], for torch.tic/toc.
fn wall_clock(_: &Lua, (): ()) -> Result<f64> {
    Ok(wall_seconds())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_do_not_go_backwards() {
        let r0 = real_seconds();
        let (u0, s0) = cpu_seconds();
        let mut x = 0u64;
        for i in 0..100_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        assert!(real_seconds() >= r0);
        let (u1, s1) = cpu_seconds();
        assert!(u1 >= u0 && s1 >= s0);
    }
}
