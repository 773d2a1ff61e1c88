//! The shared-memory segment of one tree whose ranks share a machine: a header (the barrier's
//! counter, the root's decision, the first failure), a slot per rank (who it is, what it posts
//! for the call at hand) and two sets of per-rank data regions, used by alternate chunks.
//!
//! Waiting is a futex on a word of the header, after a short bounded spin; a sleeper wakes every
//! few milliseconds to look for a rank that died (its pid gone, a zombie, or a different process
//! under the same pid: a rank is its pid and its start time) or left (closed its tree, or its
//! thread's state went away), so that no wait outlives a peer. The name lives in /dev/shm only
//! while the ranks attach: the root removes it once all have (or when it gives up), and a root
//! that was killed before that is cleaned up by the next one made on this machine.

use std::ffi::CString;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

const MAGIC: u64 = u64::from_le_bytes(*b"ltshmtr1");
/// The most ranks a segment takes.
pub const MAX_RANKS: usize = 4096;
/// One rank's data region in one of the two sets: the largest chunk of a call.
pub const REGION: usize = 1 << 20;
const PREFIX: &str = "luatorch-tree-";
/// Waits in a row that found a lower rank on this rank's CPU before it moves (see `spread`).
const SPREAD_AFTER: u32 = 8;
/// The shortest spin of an adaptive wait.
const MIN_SPIN_NS: u64 = 2_000;
/// How long a sleeper waits before it looks at its peers again.
const NAP: Duration = Duration::from_millis(10);

/// The header's words, each on its own cache line where ranks write them often.
#[repr(C, align(64))]
pub struct Padded<T>(pub T);

#[repr(C)]
pub struct Header {
    magic: AtomicU64,
    nranks: AtomicU64,
    nonce: [AtomicU64; 2],
    /// PENDING until the root has seen every rank attach; then READY or ABANDONED.
    pub state: Padded<AtomicU32>,
    /// Arrivals at barriers, over all ranks (wrapping): barrier b is passed at b * nranks.
    pub arrive: Padded<AtomicU32>,
    /// Ranks asleep on a futex word (the last arrival wakes them only then).
    pub sleepers: Padded<AtomicU32>,
    /// 0, or the first failure: reason << 32 | rank.
    pub failed: Padded<AtomicU64>,
}

pub const PENDING: u32 = 0;
pub const READY: u32 = 1;
pub const ABANDONED: u32 = 2;

/// Why a group failed.
const DIED: u64 = 1;
const LEFT: u64 = 2;

/// Who a rank is, and what it posts about the call at hand (read by the others after the
/// call's first barrier; one post per set, as the data regions, so that a rank's next post never
/// overwrites one that a slower rank has yet to read).
#[repr(C, align(64))]
pub struct Slot {
    pub joined: AtomicU32,
    pub left: AtomicU32,
    pub pid: AtomicU32,
    /// The CPU the rank last began a wait on, plus one (0: not known).
    pub cpu: AtomicU32,
    pub start: AtomicU64,
    pub post: [Post; 2],
}

#[repr(C)]
pub struct Post {
    /// FAST (its leaves are in the stream) or SOCKETS (this call goes over the tree's sockets).
    pub mode: AtomicU32,
    /// The length of its stream and a hash of its leaves' types and sizes.
    pub bytes: AtomicU64,
    pub shape: AtomicU64,
}

pub const FAST: u32 = 1;
pub const SOCKETS: u32 = 2;

const fn align_up(x: usize, a: usize) -> usize {
    x.div_ceil(a) * a
}

const SLOTS_AT: usize = align_up(std::mem::size_of::<Header>(), 64);

fn data_at(n: usize) -> usize {
    align_up(SLOTS_AT + n * std::mem::size_of::<Slot>(), 4096)
}

fn total_bytes(n: usize) -> usize {
    data_at(n) + 2 * n * REGION
}

/// The start time of process `pid` (clock ticks after boot), or None when it is gone or a zombie.
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(") ")?;
    let mut fields = rest.split(' ');
    let state = fields.next()?;
    if state.starts_with('Z') || state.starts_with('X') {
        return None;
    }
    // Field 22 of the line; `rest` starts at field 3.
    fields.nth(18)?.parse().ok()
}

fn random_u64() -> Result<u64> {
    let mut b = [0u8; 8];
    // SAFETY: getrandom writes at most b.len() bytes into b.
    let n = unsafe { libc::getrandom(b.as_mut_ptr().cast(), b.len(), 0) };
    if n != b.len() as isize {
        return Err(Error::io("getrandom failed"));
    }
    Ok(u64::from_le_bytes(b))
}

fn futex_wait(word: &AtomicU32, seen: u32, timeout: Duration) {
    let ts = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: a shared (not private: other processes map it) futex on a word of the mapping.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT,
            seen,
            &ts as *const libc::timespec,
            std::ptr::null::<u32>(),
            0,
        )
    };
}

pub fn futex_wake(word: &AtomicU32) {
    // SAFETY: as futex_wait.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE,
            i32::MAX,
            std::ptr::null::<libc::timespec>(),
            std::ptr::null::<u32>(),
            0,
        )
    };
}

/// Removes names that roots killed before they could (their pid and start time are in the name).
fn sweep_stale() {
    let Ok(dir) = std::fs::read_dir("/dev/shm") else { return };
    for e in dir.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)) else {
            continue;
        };
        let mut parts = rest.split('-');
        let (Some(pid), Some(start)) = (
            parts.next().and_then(|p| p.parse::<u32>().ok()),
            parts.next().and_then(|p| p.parse::<u64>().ok()),
        ) else {
            continue;
        };
        if start_time(pid) != Some(start) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// How long a wait spins, then yields, before it sleeps: LUATORCH_SHM_SPIN_US and
/// LUATORCH_SHM_YIELD_US override the defaults chosen from the number of ranks and CPUs.
fn wait_policy(fits: bool) -> (Duration, Duration) {
    static ENV: std::sync::OnceLock<(Option<u64>, Option<u64>)> = std::sync::OnceLock::new();
    let (spin, yld) = *ENV.get_or_init(|| {
        use crate::settings::{SHM_SPIN_US, SHM_YIELD_US, number};
        (number(SHM_SPIN_US), number(SHM_YIELD_US))
    });
    // Where every rank can have a CPU of its own, the rank waited for is most likely running: a
    // short spin catches it without a system call. Past that (or where ranks outnumber CPUs) it
    // may be waiting for this very CPU: yielding hands it over at once, where a sleep would cost
    // a wake-up on both sides.
    let spin = spin.unwrap_or(if fits { 50 } else { 0 });
    let yld = yld.unwrap_or(100);
    (Duration::from_micros(spin), Duration::from_micros(yld))
}

/// The mapped segment, as one rank sees it.
pub struct Segment {
    base: *mut u8,
    len: usize,
    pub n: usize,
    pub rank: usize,
    /// The name while it may still be in /dev/shm (the root's until it removes it).
    name: Option<String>,
    /// Whether waits spin before yielding: only when every rank can have a CPU of its own.
    spin: bool,
    /// Whether this rank took its slot (a failed attach leaves the group alone).
    joined: bool,
    /// How long the next wait spins at most (adapted to how long recent ones took).
    spin_ns: std::cell::Cell<u64>,
    /// Whether this rank moves off a CPU it keeps finding a lower rank on (see `spread`), and
    /// how many waits in a row found one.
    spread: bool,
    crowded: std::cell::Cell<u32>,
}

// SAFETY: the mapping is only reached through atomics and the data regions whose use the
// barriers order; it lives as long as the Segment.
unsafe impl Send for Segment {}

impl Segment {
    fn map(fd: libc::c_int, len: usize, what: &str) -> Result<*mut u8> {
        // SAFETY: maps len bytes of a descriptor of ours; the caller closes it.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(Error::io(format!(
                "mapping {what}: {}",
                std::io::Error::last_os_error()
            )));
        }
        Ok(p.cast())
    }

    fn new(base: *mut u8, len: usize, n: usize, rank: usize, name: Option<String>) -> Segment {
        let cpus = std::thread::available_parallelism().map_or(1, |c| c.get());
        Segment {
            base,
            len,
            n,
            rank,
            name,
            spin: n <= cpus,
            joined: false,
            spin_ns: std::cell::Cell::new(u64::MAX),
            spread: n <= cpus && !crate::settings::is_off(crate::settings::SHM_SPREAD),
            crowded: std::cell::Cell::new(0),
        }
    }

    /// The root's segment for `n` ranks, and the name and nonce the others attach with.
    pub fn create(n: usize) -> Result<(Segment, String, [u64; 2])> {
        if !(2..=MAX_RANKS).contains(&n) {
            return Err(Error::argument(format!("{n} ranks: a segment takes 2 to {MAX_RANKS}")));
        }
        sweep_stale();
        let pid = std::process::id();
        let start = start_time(pid).ok_or_else(|| Error::io("cannot read this process's start time"))?;
        let nonce = [random_u64()?, random_u64()?];
        let name = format!("{PREFIX}{pid}-{start}-{:016x}", nonce[0]);
        let cname = CString::new(format!("/{name}")).map_err(|_| Error::argument("bad segment name"))?;
        let len = total_bytes(n);
        // SAFETY: POSIX calls on a fresh name and a descriptor of our own.
        let fd = unsafe {
            libc::shm_open(
                cname.as_ptr(),
                libc::O_CREAT | libc::O_EXCL | libc::O_RDWR | libc::O_CLOEXEC,
                0o600,
            )
        };
        if fd < 0 {
            return Err(Error::io(format!(
                "shm_open {name}: {}",
                std::io::Error::last_os_error()
            )));
        }
        // Reserve the memory now: a full /dev/shm then fails here, not as SIGBUS in a copy.
        // SAFETY: as above.
        let reserved = unsafe { libc::posix_fallocate(fd, 0, len as libc::off_t) };
        let mapped = if reserved == 0 {
            Segment::map(fd, len, &name)
        } else {
            Err(Error::io(format!(
                "reserving {len} bytes for {name}: {}",
                std::io::Error::from_raw_os_error(reserved)
            )))
        };
        // SAFETY: our descriptor; the mapping keeps the memory.
        unsafe { libc::close(fd) };
        let base = match mapped {
            Ok(b) => b,
            Err(e) => {
                // SAFETY: removes the name we made.
                unsafe { libc::shm_unlink(cname.as_ptr()) };
                return Err(e);
            }
        };
        let mut seg = Segment::new(base, len, n, 0, Some(name.clone()));
        let h = seg.header();
        h.nranks.store(n as u64, SeqCst);
        h.nonce[0].store(nonce[0], SeqCst);
        h.nonce[1].store(nonce[1], SeqCst);
        seg.join();
        seg.header().magic.store(MAGIC, SeqCst);
        Ok((seg, name, nonce))
    }

    /// Rank `rank` (0-based) of the root's segment `name`. Fails where the name is not found, is
    /// another segment, or the root is not a process this one can see (another machine or
    /// another pid namespace): such a tree keeps its sockets.
    pub fn attach(name: &str, nonce: [u64; 2], n: usize, rank: usize) -> Result<Segment> {
        if !name.starts_with(PREFIX) || name.contains('/') || !(1..n).contains(&rank) || n > MAX_RANKS {
            return Err(Error::argument(format!("bad segment {name:?} or rank {rank} of {n}")));
        }
        let cname = CString::new(format!("/{name}")).map_err(|_| Error::argument("bad segment name"))?;
        // SAFETY: opens an existing name; our descriptor.
        let fd = unsafe { libc::shm_open(cname.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC, 0) };
        if fd < 0 {
            return Err(Error::io(format!(
                "shm_open {name}: {}",
                std::io::Error::last_os_error()
            )));
        }
        let len = total_bytes(n);
        // SAFETY: a stat of our descriptor.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        let sized = unsafe { libc::fstat(fd, &mut st) } == 0 && st.st_size as usize == len;
        let mapped = if sized {
            Segment::map(fd, len, name)
        } else {
            Err(Error::io(format!("{name} is not a segment for {n} ranks")))
        };
        // SAFETY: our descriptor.
        unsafe { libc::close(fd) };
        let mut seg = Segment::new(mapped?, len, n, rank, None);
        let h = seg.header();
        let same = h.magic.load(SeqCst) == MAGIC
            && h.nranks.load(SeqCst) == n as u64
            && h.nonce[0].load(SeqCst) == nonce[0]
            && h.nonce[1].load(SeqCst) == nonce[1];
        if !same {
            return Err(Error::io(format!("{name} is not this tree's segment")));
        }
        let root = seg.slot(0);
        if start_time(root.pid.load(SeqCst)) != Some(root.start.load(SeqCst)) {
            return Err(Error::io("the root's process is not visible from here"));
        }
        seg.join();
        Ok(seg)
    }

    fn join(&mut self) {
        self.joined = true;
        let pid = std::process::id();
        let s = self.slot(self.rank);
        s.pid.store(pid, SeqCst);
        s.start.store(start_time(pid).unwrap_or(0), SeqCst);
        s.joined.store(1, SeqCst);
    }

    pub fn header(&self) -> &Header {
        // SAFETY: the mapping starts with a Header (zeroed memory is a valid one).
        unsafe { &*self.base.cast::<Header>() }
    }

    pub fn slot(&self, rank: usize) -> &Slot {
        assert!(rank < self.n);
        // SAFETY: n slots follow the header inside the mapping.
        unsafe { &*self.base.add(SLOTS_AT).cast::<Slot>().add(rank) }
    }

    /// Rank `rank`'s data region in set `set` (0 or 1): REGION bytes, page aligned.
    pub fn region(&self, set: usize, rank: usize) -> *mut u8 {
        assert!(set < 2 && rank < self.n);
        // SAFETY: the regions end where the mapping does.
        unsafe { self.base.add(data_at(self.n) + (set * self.n + rank) * REGION) }
    }

    /// Removes the name (the root's, once every rank has attached or it gave up); idempotent.
    pub fn unlink(&mut self) {
        if let Some(name) = self.name.take()
            && let Ok(c) = CString::new(format!("/{name}"))
        {
            // SAFETY: removes a name; the mappings stay valid.
            unsafe { libc::shm_unlink(c.as_ptr()) };
        }
    }

    /// Records the first failure and wakes every sleeper to see it.
    fn fail(&self, reason: u64, rank: usize) {
        let h = self.header();
        let _ = h
            .failed
            .0
            .compare_exchange(0, reason << 32 | rank as u64, SeqCst, SeqCst);
        futex_wake(&h.arrive.0);
        futex_wake(&h.state.0);
    }

    /// The failure recorded, in words.
    fn failure(&self) -> Option<Error> {
        let f = self.header().failed.0.load(SeqCst);
        if f == 0 {
            return None;
        }
        let (reason, rank) = (f >> 32, (f & 0xffff_ffff) as usize);
        let pid = if rank < self.n {
            self.slot(rank).pid.load(SeqCst)
        } else {
            0
        };
        Some(Error::new(
            crate::error::Kind::Peer,
            match reason {
                DIED => format!("node {} (pid {pid}) died", rank + 1),
                LEFT => format!("node {} left the tree (closed it, or its thread ended)", rank + 1),
                _ => "the shared-memory group failed".to_string(),
            },
        ))
    }

    /// Looks at every other rank: records the first one that died or left.
    fn check_peers(&self) {
        for k in 0..self.n {
            if k == self.rank {
                continue;
            }
            let s = self.slot(k);
            if s.left.load(SeqCst) != 0 {
                self.fail(LEFT, k);
            } else if s.joined.load(SeqCst) != 0 && start_time(s.pid.load(SeqCst)) != Some(s.start.load(SeqCst)) {
                self.fail(DIED, k);
            }
        }
    }

    /// Waits until `done(word)`: spins briefly (not where ranks outnumber CPUs), yields for a
    /// while, then sleeps on the futex, looking at the peers between naps. Fails once any rank
    /// has died or left.
    pub fn wait(&self, word: &AtomicU32, done: impl Fn(u32) -> bool) -> Result<()> {
        let h = self.header();
        if self.spread {
            self.spread();
        }
        let (spin, yld) = wait_policy(self.spin);
        let t0 = Instant::now();
        if !spin.is_zero() {
            // Adaptive: a spin that ended in time makes the next one last up to a few times as
            // long; one that ran out halves the next (the rank waited for was not running:
            // most likely it waits for this very CPU, which only a yield or a sleep gives up).
            let budget = Duration::from_nanos(self.spin_ns.get()).min(spin);
            loop {
                for _ in 0..64 {
                    if done(word.load(SeqCst)) {
                        let took = t0.elapsed().as_nanos() as u64;
                        // The first wait starts from u64::MAX ("the whole spin"): saturate.
                        let cap = spin.as_nanos() as u64;
                        let prev = self.spin_ns.get().min(cap);
                        let next = prev
                            .saturating_mul(3)
                            .saturating_add(took.saturating_mul(4))
                            .saturating_add(MIN_SPIN_NS)
                            / 4;
                        self.spin_ns.set(next.min(cap));
                        return Ok(());
                    }
                    std::hint::spin_loop();
                }
                if t0.elapsed() > budget {
                    self.spin_ns.set((self.spin_ns.get() / 2).max(MIN_SPIN_NS));
                    break;
                }
            }
        }
        let until = spin + yld;
        while t0.elapsed() < until {
            if done(word.load(SeqCst)) {
                return Ok(());
            }
            std::thread::yield_now();
        }
        loop {
            h.sleepers.0.fetch_add(1, SeqCst);
            let seen = word.load(SeqCst);
            if done(seen) {
                h.sleepers.0.fetch_sub(1, SeqCst);
                return Ok(());
            }
            if let Some(e) = self.failure() {
                h.sleepers.0.fetch_sub(1, SeqCst);
                return Err(e);
            }
            futex_wait(word, seen, NAP);
            h.sleepers.0.fetch_sub(1, SeqCst);
            if done(word.load(SeqCst)) {
                return Ok(());
            }
            self.check_peers();
        }
    }

    /// Ranks that could each have a CPU often end up on one: the scheduler puts a task woken by a
    /// futex next to its waker, and two ranks that wake each other then stay together, taking
    /// turns on one CPU (each wait a context switch) while another idles. So each wait notes the
    /// CPU it runs on, and a rank that finds a lower rank on its CPU at SPREAD_AFTER waits in a
    /// row moves to a CPU of its affinity mask where no rank was seen: it sets its mask to that
    /// CPU and gives the whole mask back at once (the move stays, nothing is pinned; a mask of
    /// one CPU is left alone). LUATORCH_SHM_SPREAD=0 turns this off.
    fn spread(&self) {
        // SAFETY: no preconditions; it reads the CPU number the kernel keeps for this thread.
        let cpu = unsafe { libc::sched_getcpu() };
        if cpu < 0 {
            return;
        }
        let mine = cpu as u32 + 1;
        self.slot(self.rank).cpu.store(mine, SeqCst);
        if !(0..self.rank).any(|k| self.slot(k).cpu.load(SeqCst) == mine) {
            self.crowded.set(0);
            return;
        }
        self.crowded.set(self.crowded.get() + 1);
        if self.crowded.get() < SPREAD_AFTER {
            return;
        }
        self.crowded.set(0);
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: a zeroed cpu_set_t is an empty set; the calls read or write one set of `size`
        // bytes for this thread (pid 0).
        unsafe {
            let mut all: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, size, &mut all) != 0 {
                return;
            }
            let seen: Vec<u32> = (0..self.n).map(|k| self.slot(k).cpu.load(SeqCst)).collect();
            let free =
                (0..libc::CPU_SETSIZE as usize).find(|&c| libc::CPU_ISSET(c, &all) && !seen.contains(&(c as u32 + 1)));
            if let Some(c) = free {
                let mut one: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(c, &mut one);
                if libc::sched_setaffinity(0, size, &one) == 0 {
                    libc::sched_setaffinity(0, size, &all);
                }
            }
        }
    }

    /// Wakes the sleepers on `word` (after a change they wait for), when there are any.
    pub fn wake(&self, word: &AtomicU32) {
        if self.header().sleepers.0.load(SeqCst) > 0 {
            futex_wake(word);
        }
    }

    /// The root: every rank has attached (or not); the others learn which through `await_ready`.
    pub fn decide(&mut self, ready: bool) {
        self.unlink();
        let h = self.header();
        h.state.0.store(if ready { READY } else { ABANDONED }, SeqCst);
        futex_wake(&h.state.0);
    }

    /// A rank other than the root: whether the root found that every rank attached.
    pub fn await_ready(&self) -> Result<bool> {
        let h = self.header();
        self.wait(&h.state.0, |s| s != PENDING)?;
        Ok(h.state.0.load(SeqCst) == READY)
    }

    /// Leaves the group: the others' waits fail from now on.
    pub fn leave(&self) {
        self.slot(self.rank).left.store(1, SeqCst);
        self.fail(LEFT, self.rank);
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        self.unlink();
        if self.joined {
            self.leave();
        }
        // SAFETY: unmaps what create or attach mapped.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_is_its_pid_and_start_time() {
        let me = start_time(std::process::id());
        assert!(me.is_some());
        assert_eq!(me, start_time(std::process::id()));
        assert_eq!(start_time(u32::MAX - 1), None);
    }

    #[test]
    fn ranks_attach_and_the_name_goes_at_the_decision() {
        let (mut root, name, nonce) = Segment::create(3).unwrap();
        assert!(std::path::Path::new(&format!("/dev/shm/{name}")).exists());
        let a = Segment::attach(&name, nonce, 3, 1).unwrap();
        assert!(Segment::attach(&name, [nonce[0], !nonce[1]], 3, 2).is_err());
        assert!(Segment::attach(&name, nonce, 4, 2).is_err());
        root.decide(true);
        assert!(!std::path::Path::new(&format!("/dev/shm/{name}")).exists());
        assert!(a.await_ready().unwrap());
        drop(a);
        // The one that left makes the root's waits fail.
        let h = root.header();
        let e = root.wait(&h.arrive.0, |v| v == 99).unwrap_err();
        assert!(e.to_string().contains("node 2 left"), "{e}");
    }
}
