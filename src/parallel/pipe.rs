//! The fast path between a parent and a child on this machine: the two ends of a socketpair
//! (AF_UNIX, stream) that the parent makes and the child inherits at its start, and nobody else
//! has. No port, no handshake (nothing else can reach it), and no I/O thread between the process
//! and the kernel: a message is one `sendmsg` on one side and, when small, one `recv` on the
//! other. ZeroMQ stays for remote children (and for local ones when `LUATORCH_PARALLEL_FAST=0`).
//!
//! A message is a header (the number of frames, u32 LE, then each frame's length, u64 LE) and the
//! frames' bytes. Sends never block, as ZeroMQ's did not: what the socket cannot take at once goes
//! to a writer thread, made the first time that happens, which writes it as the peer reads; later
//! messages queue behind it, so the order holds. A peer that ends shows as the end of the stream,
//! after everything it wrote.

use std::collections::VecDeque;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// Frames one message may have at most: a header that says more is corrupt.
const MAX_FRAMES: usize = 1 << 20;
/// How much one read asks the kernel for, at least.
const READ_CHUNK: usize = 64 << 10;
/// The socket buffers asked for (the kernel caps them at net.core.[rw]mem_max).
const SOCKET_BUFFER: libc::c_int = 4 << 20;
/// Buffers one sendmsg takes at most (IOV_MAX is 1024 on Linux).
const IOV_BATCH: usize = 512;
/// How often the writer thread looks at whether it should give up, while the peer reads nothing.
const WRITER_POLL_MS: libc::c_int = 200;

/// What one look at the pipe found.
#[derive(Debug)]
pub enum Got {
    Message(Vec<Vec<u8>>),
    /// Nothing yet (the wait ran out, or a signal came).
    Nothing,
    /// The peer closed its end (it ended), and everything it wrote was read.
    Closed,
}

pub struct Pipe {
    fd: Arc<OwnedFd>,
    reader: Reader,
    writer: Arc<Writer>,
    /// The receive timeout the socket has now (ms; 0: none).
    rcvtimeo: i64,
    closed: bool,
}

fn os_err(what: &str) -> Error {
    Error::io(format!("{what}: {}", std::io::Error::last_os_error()))
}

fn set_int_option(fd: RawFd, level: libc::c_int, name: libc::c_int, value: libc::c_int) -> bool {
    // SAFETY: setsockopt with a pointer to a live c_int and its size.
    unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&value as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        ) == 0
    }
}

/// Sets or clears close-on-exec on `fd`.
pub fn set_cloexec(fd: RawFd, on: bool) -> std::io::Result<()> {
    let flag = if on { libc::FD_CLOEXEC } else { 0 };
    // SAFETY: fcntl on a descriptor number; the result is checked.
    if unsafe { libc::fcntl(fd, libc::F_SETFD, flag) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// A connected pair: the parent's end and the end the child is to inherit. Both are
/// close-on-exec: the child's is made inheritable only in that child (see `launch::spawn`).
pub fn pair() -> Result<(Pipe, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: socketpair writes two descriptors into `fds` on success.
    let r = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if r != 0 {
        return Err(os_err("cannot make a socket pair"));
    }
    // SAFETY: both descriptors are new and ours.
    let (mine, theirs) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // The child's end must not be 0, 1 or 2 (free when this process was started without them):
    // its standard streams are set up over those numbers before it runs.
    let theirs = if theirs.as_raw_fd() < 3 {
        // SAFETY: fcntl duplicates a descriptor we own; the result is checked.
        let fd = unsafe { libc::fcntl(theirs.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3) };
        if fd < 0 {
            return Err(os_err("cannot make a socket pair"));
        }
        // SAFETY: a new descriptor, ours.
        unsafe { OwnedFd::from_raw_fd(fd) }
    } else {
        theirs
    };
    for fd in [&mine, &theirs] {
        set_int_option(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_SNDBUF, SOCKET_BUFFER);
        set_int_option(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_RCVBUF, SOCKET_BUFFER);
    }
    Ok((Pipe::new(mine), theirs))
}

impl Pipe {
    pub fn new(fd: OwnedFd) -> Pipe {
        Pipe {
            fd: Arc::new(fd),
            reader: Reader::default(),
            writer: Arc::default(),
            rcvtimeo: 0,
            closed: false,
        }
    }

    /// The end a parent handed down at descriptor `fd` (made close-on-exec here, so that this
    /// process's own children do not inherit it). The descriptor must be a stream socket.
    pub fn inherited(fd: RawFd) -> Result<Pipe> {
        let mut kind: libc::c_int = 0;
        let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: getsockopt into a live c_int of the given size.
        let r = unsafe {
            libc::getsockopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_TYPE,
                (&mut kind as *mut libc::c_int).cast(),
                &mut len,
            )
        };
        if r != 0 || kind != libc::SOCK_STREAM {
            return Err(Error::argument(format!(
                "descriptor {fd} is not the socket parallel.fork passes"
            )));
        }
        set_cloexec(fd, true).map_err(|e| Error::io(format!("cannot set up descriptor {fd}: {e}")))?;
        // SAFETY: the descriptor was handed to this process for this use only.
        Ok(Pipe::new(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Whether the peer's end of the stream was reached.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Sends one message without blocking (see the module's note); an error once the peer is
    /// known to be gone.
    pub fn send(&self, frames: Vec<Vec<u8>>) -> Result<()> {
        let mut out = Outgoing::new(frames);
        {
            let st = self.writer.lock();
            if let Some(why) = &st.failed {
                return Err(Error::peer(why.clone()));
            }
            if st.busy {
                return self.queue(st, out);
            }
        }
        // Only this thread starts the writer, so it stays idle while we write here.
        match write_some(self.raw_fd(), &mut out) {
            Ok(true) => Ok(()),
            Ok(false) => {
                let st = self.writer.lock();
                self.queue(st, out)
            }
            Err(e) => Err(Error::peer(format!("the connection broke ({e})"))),
        }
    }

    fn queue(&self, mut st: MutexGuard<'_, WriteState>, out: Outgoing) -> Result<()> {
        st.queue.push_back(out);
        st.busy = true;
        if st.thread.is_none() {
            let (fd, writer) = (self.fd.clone(), self.writer.clone());
            let thread = std::thread::Builder::new()
                .name("parallel-pipe".into())
                .spawn(move || writer.serve(&fd))
                .map_err(|e| Error::io(format!("cannot start a writer thread: {e}")))?;
            st.thread = Some(thread);
        }
        self.writer.wake.notify_all();
        Ok(())
    }

    /// Waits (up to `timeout`) until everything sent has left; false if it has not.
    pub fn flush(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut st = self.writer.lock();
        while st.busy && st.failed.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            st = self
                .writer
                .wake
                .wait_timeout(st, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        !st.busy
    }

    /// A message already read with an earlier one, if there is one (no system call).
    pub fn take_buffered(&mut self) -> Result<Option<Vec<Vec<u8>>>> {
        self.reader.take()
    }

    /// The next message, waiting up to `timeout_ms` for it (0: only what is there already).
    pub fn recv(&mut self, timeout_ms: i64) -> Result<Got> {
        loop {
            if let Some(m) = self.reader.take()? {
                return Ok(Got::Message(m));
            }
            if self.closed {
                return if self.reader.is_empty() {
                    Ok(Got::Closed)
                } else {
                    Err(Error::corrupt(
                        "the peer closed the connection in the middle of a message",
                    ))
                };
            }
            let flags = if timeout_ms <= 0 {
                libc::MSG_DONTWAIT
            } else {
                self.set_rcvtimeo(timeout_ms)?;
                0
            };
            let fd = self.raw_fd();
            let room = self.reader.room();
            // SAFETY: recv into the writable tail of our buffer, at most its length.
            let n = unsafe { libc::recv(fd, room.as_mut_ptr().cast(), room.len(), flags) };
            match n {
                0 => self.closed = true,
                n if n > 0 => self.reader.filled(n as usize),
                _ => {
                    let e = std::io::Error::last_os_error();
                    match e.raw_os_error() {
                        Some(libc::EAGAIN) | Some(libc::EINTR) => return Ok(Got::Nothing),
                        // A peer killed with data unread on its side resets the connection.
                        Some(libc::ECONNRESET) => self.closed = true,
                        _ => return Err(Error::io(format!("cannot read from the connection: {e}"))),
                    }
                }
            }
        }
    }

    fn set_rcvtimeo(&mut self, ms: i64) -> Result<()> {
        if self.rcvtimeo == ms {
            return Ok(());
        }
        let tv = libc::timeval {
            tv_sec: (ms / 1000) as libc::time_t,
            tv_usec: ((ms % 1000) * 1000) as libc::suseconds_t,
        };
        // SAFETY: setsockopt with a pointer to a live timeval and its size.
        let r = unsafe {
            libc::setsockopt(
                self.raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_RCVTIMEO,
                (&tv as *const libc::timeval).cast(),
                std::mem::size_of::<libc::timeval>() as libc::socklen_t,
            )
        };
        if r != 0 {
            return Err(os_err("socket option"));
        }
        self.rcvtimeo = ms;
        Ok(())
    }
}

impl Drop for Pipe {
    /// Whatever the writer thread still holds is dropped, and the thread ends: a caller that
    /// wants it delivered flushes first.
    fn drop(&mut self) {
        let mut st = self.writer.lock();
        st.closing = true;
        st.queue.clear();
        let thread = st.thread.take();
        if thread.is_some() {
            // Wakes a writer waiting for room: its next write fails.
            // SAFETY: shutdown of our own descriptor, still open (the thread holds it too).
            unsafe { libc::shutdown(self.raw_fd(), libc::SHUT_RDWR) };
        }
        self.writer.wake.notify_all();
        drop(st);
        // The thread holds the descriptor: once it is gone, so is the descriptor.
        if let Some(t) = thread {
            let _ = t.join();
        }
    }
}

/// Received bytes not yet taken as messages: `buf[start..end]`.
#[derive(Default)]
struct Reader {
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

/// A message the sender sized too large for this process's memory.
fn out_of_memory(total: usize) -> Error {
    Error::memory(format!("out of memory receiving a message of {total} bytes"))
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().expect("4 bytes"))
}

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
}

impl Reader {
    fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// A whole message at the front, taken out; None while part of it has yet to come (the
    /// buffer then has room for all of it).
    fn take(&mut self) -> Result<Option<Vec<Vec<u8>>>> {
        let avail = &self.buf[self.start..self.end];
        if avail.len() < 4 {
            return Ok(None);
        }
        let n = le_u32(avail) as usize;
        if n == 0 || n > MAX_FRAMES {
            return Err(Error::corrupt(format!("a message announces {n} frames")));
        }
        let head = 4 + 8 * n;
        if avail.len() < head {
            self.reserve(head)?;
            return Ok(None);
        }
        let mut total = head;
        for i in 0..n {
            let len = usize::try_from(le_u64(&avail[4 + 8 * i..])).ok();
            total = len
                .and_then(|l| total.checked_add(l))
                .ok_or_else(|| Error::corrupt("a message announces an impossible size"))?;
        }
        if avail.len() < total {
            self.reserve(total)?;
            return Ok(None);
        }
        let mut frames = Vec::with_capacity(n);
        let mut at = head;
        for i in 0..n {
            let len = le_u64(&avail[4 + 8 * i..]) as usize;
            let mut frame = Vec::new();
            frame.try_reserve_exact(len).map_err(|_| out_of_memory(total))?;
            frame.extend_from_slice(&avail[at..at + len]);
            frames.push(frame);
            at += len;
        }
        self.start += total;
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            // A big message's buffer is not kept for the small ones after it.
            if self.buf.len() > 4 * READ_CHUNK {
                self.buf = Vec::new();
            }
        }
        Ok(Some(frames))
    }

    /// Makes room for a message of `total` bytes from `start`; the size is the sender's, so
    /// memory for it may not be there.
    fn reserve(&mut self, total: usize) -> Result<()> {
        if self.buf.len() - self.start >= total {
            return Ok(());
        }
        self.compact();
        if self.buf.len() < total {
            self.buf
                .try_reserve_exact(total - self.buf.len())
                .map_err(|_| out_of_memory(total))?;
            self.buf.resize(total, 0);
        }
        Ok(())
    }

    fn compact(&mut self) {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
    }

    /// Where the next read goes: at least READ_CHUNK bytes, unless a message's size set it.
    fn room(&mut self) -> &mut [u8] {
        if self.buf.len() - self.end < READ_CHUNK / 4 {
            self.compact();
            if self.buf.len() - self.end < READ_CHUNK / 4 {
                let len = (self.end + READ_CHUNK).max(self.buf.len());
                self.buf.resize(len, 0);
            }
        }
        &mut self.buf[self.end..]
    }

    fn filled(&mut self, n: usize) {
        self.end += n;
    }
}

/// One message on its way out: its header and frames, and how much of them left already.
struct Outgoing {
    bufs: Vec<Vec<u8>>,
    at: usize,
    offset: usize,
}

impl Outgoing {
    fn new(frames: Vec<Vec<u8>>) -> Outgoing {
        let mut header = Vec::with_capacity(4 + 8 * frames.len());
        header.extend_from_slice(&(frames.len() as u32).to_le_bytes());
        for f in &frames {
            header.extend_from_slice(&(f.len() as u64).to_le_bytes());
        }
        let mut bufs = Vec::with_capacity(frames.len() + 1);
        bufs.push(header);
        bufs.extend(frames);
        Outgoing { bufs, at: 0, offset: 0 }
    }

    fn advance(&mut self, mut n: usize) {
        while n > 0 {
            let left = self.bufs[self.at].len() - self.offset;
            if n < left {
                self.offset += n;
                return;
            }
            n -= left;
            self.at += 1;
            self.offset = 0;
        }
        while self.at < self.bufs.len() && self.bufs[self.at].len() == self.offset {
            self.at += 1;
            self.offset = 0;
        }
    }

    fn done(&self) -> bool {
        self.at >= self.bufs.len()
    }
}

/// Writes as much of `out` as the socket takes now: Ok(true) once all of it left.
fn write_some(fd: RawFd, out: &mut Outgoing) -> std::io::Result<bool> {
    out.advance(0);
    while !out.done() {
        let iov: smallvec::SmallVec<[libc::iovec; 4]> = out.bufs[out.at..]
            .iter()
            .take(IOV_BATCH)
            .enumerate()
            .map(|(i, b)| {
                let skip = if i == 0 { out.offset } else { 0 };
                libc::iovec {
                    iov_base: b[skip..].as_ptr() as *mut libc::c_void,
                    iov_len: b.len() - skip,
                }
            })
            .collect();
        // SAFETY: a zeroed msghdr is valid; we set only the buffers.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = iov.as_ptr() as *mut libc::iovec;
        msg.msg_iovlen = iov.len() as _;
        // SAFETY: the iovecs point into buffers `out` keeps alive during the call.
        let n = unsafe { libc::sendmsg(fd, &msg, libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EAGAIN) => return Ok(false),
                Some(libc::EINTR) => continue,
                _ => return Err(e),
            }
        }
        out.advance(n as usize);
    }
    Ok(true)
}

#[derive(Default)]
struct WriteState {
    queue: VecDeque<Outgoing>,
    /// The thread writes (the queue, or the message it took from it): others queue behind.
    busy: bool,
    thread: Option<std::thread::JoinHandle<()>>,
    closing: bool,
    /// Why writing stopped for good.
    failed: Option<String>,
}

#[derive(Default)]
struct Writer {
    state: Mutex<WriteState>,
    wake: Condvar,
}

impl Writer {
    fn lock(&self) -> MutexGuard<'_, WriteState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The writer thread: writes what is queued, in order, waiting for room as the peer reads.
    fn serve(&self, fd: &OwnedFd) {
        let fd = fd.as_raw_fd();
        loop {
            let mut out = {
                let mut st = self.lock();
                loop {
                    if st.closing {
                        st.busy = false;
                        self.wake.notify_all();
                        return;
                    }
                    if let Some(o) = st.queue.pop_front() {
                        break o;
                    }
                    st.busy = false;
                    self.wake.notify_all();
                    st = self.wake.wait(st).unwrap_or_else(|e| e.into_inner());
                }
            };
            loop {
                match write_some(fd, &mut out) {
                    Ok(true) => break,
                    Ok(false) => {
                        if self.lock().closing {
                            break;
                        }
                        let mut p = libc::pollfd {
                            fd,
                            events: libc::POLLOUT,
                            revents: 0,
                        };
                        // SAFETY: poll on one live pollfd.
                        unsafe { libc::poll(&mut p, 1, WRITER_POLL_MS) };
                    }
                    Err(e) => {
                        let mut st = self.lock();
                        st.failed = Some(format!("the connection broke ({e})"));
                        st.queue.clear();
                        st.busy = false;
                        self.wake.notify_all();
                        return;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recv_wait(p: &mut Pipe) -> Vec<Vec<u8>> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match p.recv(100).unwrap() {
                Got::Message(m) => return m,
                Got::Nothing if Instant::now() < deadline => {}
                other => panic!("no message: {other:?}"),
            }
        }
    }

    #[test]
    fn messages_keep_their_frames_and_order() {
        let (mut a, theirs) = pair().unwrap();
        let mut b = Pipe::new(theirs);
        a.send(vec![b"one".to_vec()]).unwrap();
        a.send(vec![Vec::new(), b"x".to_vec(), vec![7; 300]]).unwrap();
        assert_eq!(recv_wait(&mut b), vec![b"one".to_vec()]);
        assert_eq!(recv_wait(&mut b), vec![Vec::new(), b"x".to_vec(), vec![7; 300]]);
        assert!(matches!(b.recv(0).unwrap(), Got::Nothing));
        b.send(vec![b"back".to_vec()]).unwrap();
        assert_eq!(recv_wait(&mut a), vec![b"back".to_vec()]);
    }

    /// Messages larger than the socket takes go through the writer thread, in order with the
    /// small ones around them, while the sender itself does not block.
    #[test]
    fn big_messages_do_not_block_the_sender() {
        let (a, theirs) = pair().unwrap();
        let mut b = Pipe::new(theirs);
        let big: Vec<u8> = (0..(24 << 20)).map(|i| (i % 251) as u8).collect();
        a.send(vec![b"first".to_vec()]).unwrap();
        a.send(vec![b"big".to_vec(), big.clone()]).unwrap();
        a.send(vec![b"last".to_vec()]).unwrap();
        assert_eq!(recv_wait(&mut b), vec![b"first".to_vec()]);
        assert_eq!(recv_wait(&mut b), vec![b"big".to_vec(), big]);
        assert_eq!(recv_wait(&mut b), vec![b"last".to_vec()]);
        assert!(a.flush(Duration::from_secs(20)));
    }

    #[test]
    fn a_closed_peer_is_seen_after_what_it_sent() {
        let (a, theirs) = pair().unwrap();
        let mut b = Pipe::new(theirs);
        a.send(vec![b"bye".to_vec()]).unwrap();
        drop(a);
        assert_eq!(recv_wait(&mut b), vec![b"bye".to_vec()]);
        assert!(matches!(b.recv(100).unwrap(), Got::Closed));
        assert!(b.is_closed());
        let e = b.send(vec![b"anyone?".to_vec()]);
        assert!(e.is_err());
    }

    #[test]
    fn corrupt_headers_are_errors() {
        let (a, theirs) = pair().unwrap();
        let mut b = Pipe::new(theirs);
        let junk = (u32::MAX).to_le_bytes();
        // SAFETY: a plain write of a live buffer.
        unsafe { libc::write(a.raw_fd(), junk.as_ptr().cast(), junk.len()) };
        assert!(b.recv(1000).is_err());
    }
}
