//! One TCP connection of the client/server API, in frames (see `frame.rs`): value messages
//! buffered, tensor and storage bodies read straight into the receiver's memory.
//!
//! Every socket call is non-blocking (`MSG_DONTWAIT`) and waits in `poll`, so a wait can notice
//! Ctrl-C in the REPL, and `recvAsync` and `recvAny` use the same code as blocking receives. A
//! peer that closes cleanly sends a goodbye frame; one that vanishes (a crash, `kill -9`) shows
//! as end of stream or a reset. Either ends the connection with "remote peer disconnected".
//! A frame that does not fit the caller's receiver stays unread, so the caller may try again.

use std::io;
use std::net::{Shutdown, SocketAddr, TcpStream, ToSocketAddrs};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::auth::{self, HANDSHAKE_LIMIT};
use super::error::{DISCONNECTED, NetError, Res};
use super::frame::{self, HEADER_LEN, Header, Kind, TensorMeta};
use super::stats::NetStats;
use super::wait::{errno, fmt_seconds, os_text, set_int_opt, sleep_interruptible, wait_fd};
use crate::error::Error;
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::strided::try_for_each_contiguous_run as for_each_run;

/// Bytes asked of the kernel per read into the connection's buffer.
const READ_CHUNK: usize = 256 << 10;
/// Below this many bytes still to come, a body is read through the buffer; above, straight into
/// its destination.
const DIRECT_READ: usize = 64 << 10;
/// Runs of a tensor at least this long are sent straight from its memory; shorter ones are
/// gathered into the send buffer.
const DIRECT_WRITE: usize = 256 << 10;
/// The send buffer is flushed when it holds this much.
const WRITE_CHUNK: usize = 1 << 20;

pub fn tensor_meta(t: &Tensor) -> TensorMeta {
    TensorMeta {
        dtype: t.dtype,
        contiguous: t.is_contiguous(),
        size: t.size.clone(),
    }
}

pub struct Conn {
    sock: TcpStream,
    pub peer: SocketAddr,
    /// Received bytes not consumed yet: `rbuf[rpos..]`.
    rbuf: Vec<u8>,
    rpos: usize,
    wbuf: Vec<u8>,
    /// Set when the connection ended: what every later call reports.
    over: Option<String>,
    pub stats: NetStats,
}

impl Conn {
    pub fn new(sock: TcpStream) -> io::Result<Conn> {
        let peer = sock.peer_addr()?;
        sock.set_nodelay(true)?;
        let fd = sock.as_raw_fd();
        // A peer whose host vanished is noticed within ~5 minutes even on an idle connection.
        set_int_opt(fd, libc::SOL_SOCKET, libc::SO_KEEPALIVE, 1);
        set_int_opt(fd, libc::IPPROTO_TCP, libc::TCP_KEEPIDLE, 60);
        set_int_opt(fd, libc::IPPROTO_TCP, libc::TCP_KEEPINTVL, 30);
        set_int_opt(fd, libc::IPPROTO_TCP, libc::TCP_KEEPCNT, 8);
        Ok(Conn {
            sock,
            peer,
            rbuf: Vec::new(),
            rpos: 0,
            wbuf: Vec::new(),
            over: None,
            stats: NetStats::default(),
        })
    }

    /// Connects to `host:port`, retrying refused and failed attempts until `timeout` has passed.
    pub fn connect(host: &str, port: u16, timeout: Duration) -> crate::error::Result<Conn> {
        let secret = auth::secret()?;
        let deadline = Instant::now() + timeout;
        let mut delay = Duration::from_millis(20);
        loop {
            let last = match (host, port).to_socket_addrs() {
                Err(e) => format!("cannot resolve the host: {e}"),
                Ok(addrs) => {
                    let mut last = format!("no address for host {host}");
                    for addr in addrs {
                        let left = deadline.saturating_duration_since(Instant::now());
                        match TcpStream::connect_timeout(&addr, left.max(Duration::from_millis(100))) {
                            Ok(s) => {
                                // A server that refuses us will go on refusing: no retry.
                                auth::client_side(&s, secret, HANDSHAKE_LIMIT)
                                    .map_err(|e| e.context(format!("cannot connect to {host}:{port}")))?;
                                return Conn::new(s)
                                    .map_err(|e| Error::io(format!("cannot set up the connection: {e}")));
                            }
                            Err(e) => last = os_text(e.raw_os_error().unwrap_or(0)),
                        }
                    }
                    last
                }
            };
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Error::peer(format!(
                    "cannot connect to {host}:{port} within {} s (last error: {last})",
                    fmt_seconds(timeout)
                )));
            }
            sleep_interruptible(delay.min(left))?;
            delay = (delay * 2).min(Duration::from_millis(500));
        }
    }

    pub fn fd(&self) -> i32 {
        self.sock.as_raw_fd()
    }

    /// The authenticated socket, for a protocol of its own (the tree's data links): None when
    /// bytes were already read past the handshake (they would be lost).
    pub fn into_socket(self) -> Option<TcpStream> {
        if !self.buffered().is_empty() {
            return None;
        }
        let sock = self.sock.try_clone().ok()?;
        // Forget the rest without the goodbye and shutdown of Drop (the socket lives on).
        let mut me = std::mem::ManuallyDrop::new(self);
        // SAFETY: `me` is never used again; its socket's descriptor is closed once here (the
        // clone keeps the connection), and its buffers are freed once.
        unsafe {
            std::ptr::drop_in_place(&mut me.sock);
            std::ptr::drop_in_place(&mut me.rbuf);
            std::ptr::drop_in_place(&mut me.wbuf);
            std::ptr::drop_in_place(&mut me.over);
        }
        Some(sock)
    }

    /// Whether the connection ended (goodbye, reset, error); the reason.
    pub fn ended(&self) -> Option<&str> {
        self.over.as_deref()
    }

    pub(super) fn check_open(&self) -> Res<()> {
        match &self.over {
            Some(m) => Err(NetError::Gone(m.clone())),
            None => Ok(()),
        }
    }

    /// Records a fatal error as the end of the connection.
    fn note<T>(&mut self, r: Res<T>) -> Res<T> {
        if let Err(e) = &r
            && e.is_fatal()
            && self.over.is_none()
        {
            self.over = Some(match e {
                NetError::Interrupted => "a call on this connection was interrupted".into(),
                e => e.message(),
            });
        }
        r
    }

    // ---- receiving ----

    fn buffered(&self) -> &[u8] {
        &self.rbuf[self.rpos..]
    }

    pub(super) fn consume(&mut self, n: usize) {
        self.rpos += n;
        if self.rpos >= self.rbuf.len() {
            self.rbuf.clear();
            self.rpos = 0;
        }
    }

    /// One `recv` into `dst`; 0 when nothing is there and `block` is false.
    fn recv_raw(&mut self, dst: *mut u8, len: usize, block: bool) -> Res<usize> {
        loop {
            let t = Instant::now();
            // SAFETY: `dst` points to `len` writable bytes (callers pass spare buffer capacity
            // or a slice of the receiver's storage).
            let r = unsafe { libc::recv(self.fd(), dst.cast(), len, libc::MSG_DONTWAIT) };
            self.stats.rx.num_system_calls += 1;
            self.stats.rx.system_seconds += t.elapsed().as_secs_f64();
            if r > 0 {
                self.stats.rx.num_bytes += r as u64;
                return Ok(r as usize);
            }
            if r == 0 {
                return Err(NetError::Gone(format!(
                    "{DISCONNECTED} (the connection closed without a goodbye)"
                )));
            }
            match errno() {
                libc::EINTR => {}
                libc::EAGAIN => {
                    if !block {
                        return Ok(0);
                    }
                    wait_fd(self.fd(), libc::POLLIN, None)?;
                }
                e @ (libc::ECONNRESET | libc::ETIMEDOUT | libc::EHOSTUNREACH | libc::ENETUNREACH) => {
                    return Err(NetError::Gone(format!("{DISCONNECTED} ({})", os_text(e))));
                }
                e => return Err(NetError::Broken(format!("receive failed: {}", os_text(e)))),
            }
        }
    }

    /// Reads what the kernel has into the buffer; false when nothing came and `block` is false.
    fn fill_once(&mut self, want: usize, block: bool) -> Res<bool> {
        if self.rpos > 0 {
            self.rbuf.drain(..self.rpos);
            self.rpos = 0;
        }
        let len = self.rbuf.len();
        let ask = want.saturating_sub(len).max(READ_CHUNK);
        // `want` may be a peer's announced size: memory for it may not be there.
        self.rbuf
            .try_reserve(ask)
            .map_err(|_| NetError::Broken(format!("out of memory buffering a frame of {want} bytes")))?;
        let spare = self.rbuf.capacity() - len;
        // SAFETY: the pointer is to the buffer's spare capacity, `spare` bytes long.
        let dst = unsafe { self.rbuf.as_mut_ptr().add(len) };
        let n = self.recv_raw(dst, spare, block)?;
        // SAFETY: recv initialised the first `n` spare bytes.
        unsafe { self.rbuf.set_len(len + n) };
        Ok(n > 0)
    }

    /// Buffers at least `n` bytes; false when they are not all here and `block` is false.
    fn ensure(&mut self, n: usize, block: bool) -> Res<bool> {
        while self.buffered().len() < n {
            if !self.fill_once(n, block)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Fills `dst` from the stream: the buffer first, then large pieces straight from the socket.
    pub(super) fn read_exact_into(&mut self, dst: &mut [u8]) -> Res<()> {
        let mut done = 0;
        while done < dst.len() {
            let have = self.buffered().len();
            if have > 0 {
                let n = have.min(dst.len() - done);
                dst[done..done + n].copy_from_slice(&self.buffered()[..n]);
                self.consume(n);
                done += n;
            } else if dst.len() - done >= DIRECT_READ {
                let rest = &mut dst[done..];
                done += self.recv_raw(rest.as_mut_ptr(), rest.len(), true)?;
            } else {
                self.fill_once(0, true)?;
            }
        }
        Ok(())
    }

    pub(super) fn malformed(&self, what: Error) -> NetError {
        NetError::Broken(format!("malformed frame from {}: {}", self.peer, what.message()))
    }

    /// The next frame's header with its description buffered behind it, nothing consumed; None
    /// when not all of it is here and `block` is false. A goodbye is consumed and ends the
    /// connection.
    pub(super) fn peek(&mut self, block: bool) -> Res<Option<Header>> {
        self.check_open()?;
        if !self.ensure(HEADER_LEN, block)? {
            return Ok(None);
        }
        let h = Header::decode(&self.buffered()[..HEADER_LEN]).map_err(|e| self.malformed(e))?;
        if h.kind == Kind::Bye {
            self.consume(HEADER_LEN);
            return Err(NetError::Gone(DISCONNECTED.into()));
        }
        if !self.ensure(HEADER_LEN + h.meta_len, block)? {
            return Ok(None);
        }
        Ok(Some(h))
    }

    pub(super) fn meta_bytes(&self, h: &Header) -> &[u8] {
        &self.buffered()[HEADER_LEN..HEADER_LEN + h.meta_len]
    }

    /// What the next frame is, in words, for a receiver it does not fit.
    pub(super) fn describe(&self, h: &Header) -> Res<String> {
        Ok(match h.kind {
            Kind::Tensor => {
                let m = TensorMeta::decode(self.meta_bytes(h), h.body_len).map_err(|e| self.malformed(e))?;
                format!("a tensor ({})", m.describe())
            }
            Kind::Storage => {
                let (d, n) =
                    frame::decode_storage_meta(self.meta_bytes(h), h.body_len).map_err(|e| self.malformed(e))?;
                format!("a storage ({} of {n} elements)", d.storage_typename())
            }
            k => k.noun().to_string(),
        })
    }

    pub(super) fn timed<T>(&mut self, rx: bool, f: impl FnOnce(&mut Self) -> Res<T>) -> Res<T> {
        let t = Instant::now();
        let r = f(self);
        let s = if rx { &mut self.stats.rx } else { &mut self.stats.tx };
        s.num_calls += 1;
        s.total_seconds += t.elapsed().as_secs_f64();
        self.note(r)
    }

    /// The next value message's body (a value in wire form); None when `block` is false and it
    /// is not all here.
    pub fn recv_value(&mut self, block: bool) -> Res<Option<Vec<u8>>> {
        self.timed(true, |c| {
            let Some(h) = c.peek(block)? else { return Ok(None) };
            if h.kind != Kind::Value {
                return Err(NetError::Mismatch(format!(
                    "the peer sent {} where a message was expected; receive it with recv(x), x a \
                     preallocated tensor or storage of that type and size",
                    c.describe(&h)?
                )));
            }
            let total = HEADER_LEN + h.body_len as usize;
            if !c.ensure(total, block)? {
                return Ok(None);
            }
            let body = c.buffered()[HEADER_LEN..total].to_vec();
            c.consume(total);
            c.stats.rx.num_regions += 1;
            Ok(Some(body))
        })
    }

    /// Receives the next frame, a tensor, into `t`, whose type, sizes and contiguity must be the
    /// sender's.
    pub fn recv_tensor(&mut self, t: &Tensor) -> Res<()> {
        self.timed(true, |c| {
            let h = c
                .peek(true)?
                .ok_or_else(|| NetError::Broken("no frame after a blocking wait".into()))?;
            let mine = tensor_meta(t);
            if h.kind != Kind::Tensor {
                return Err(NetError::Mismatch(format!(
                    "the peer sent {} where a tensor was expected",
                    c.describe(&h)?
                )));
            }
            let theirs = TensorMeta::decode(c.meta_bytes(&h), h.body_len).map_err(|e| c.malformed(e))?;
            if theirs != mine {
                return Err(NetError::Mismatch(format!(
                    "the peer sent a {}, the receiving tensor is a {}",
                    theirs.describe(),
                    mine.describe()
                )));
            }
            let base = match t.numel() {
                0 => std::ptr::null_mut(),
                _ => t
                    .storage_checked()
                    .map_err(|e| NetError::Mismatch(format!("receiving tensor: {e}")))?
                    .data_ptr(),
            };
            c.consume(HEADER_LEN + h.meta_len);
            let es = t.dtype.size_of();
            for_each_run(t, |off, n| {
                // SAFETY: storage_checked showed every element of the view lies in the storage.
                let dst = unsafe { std::slice::from_raw_parts_mut(base.add(off * es), n * es) };
                c.read_exact_into(dst)
            })?;
            c.stats.rx.num_regions += 1;
            Ok(())
        })
    }

    /// Receives the next frame, a storage, into `s`, of the same type and length.
    pub fn recv_storage(&mut self, s: &Storage) -> Res<()> {
        self.timed(true, |c| {
            let h = c
                .peek(true)?
                .ok_or_else(|| NetError::Broken("no frame after a blocking wait".into()))?;
            if h.kind != Kind::Storage {
                return Err(NetError::Mismatch(format!(
                    "the peer sent {} where a storage was expected",
                    c.describe(&h)?
                )));
            }
            let (d, n) = frame::decode_storage_meta(c.meta_bytes(&h), h.body_len).map_err(|e| c.malformed(e))?;
            if d != s.dtype() || n != s.len() {
                return Err(NetError::Mismatch(format!(
                    "the peer sent a {} of {n} elements, the receiving storage is a {} of {} elements",
                    d.storage_typename(),
                    s.dtype().storage_typename(),
                    s.len()
                )));
            }
            c.consume(HEADER_LEN + h.meta_len);
            // SAFETY: the storage holds exactly len * size_of bytes.
            let dst = unsafe { std::slice::from_raw_parts_mut(s.data_ptr(), n * d.size_of()) };
            c.read_exact_into(dst)?;
            c.stats.rx.num_regions += 1;
            Ok(())
        })
    }

    /// Whether the peer is on this machine (loopback, or the address this end has): CUDA IPC
    /// handles work only there.
    pub fn same_host(&self) -> bool {
        let ip = self.peer.ip();
        ip.is_loopback() || self.sock.local_addr().is_ok_and(|l| l.ip() == ip)
    }

    /// Waits for the peer's release of `loan` (see `wire::cuda`): None when it copied the tensor,
    /// else why it could not. Frames the peer sent before it stay buffered, in order, for later
    /// receives.
    pub fn wait_release(&mut self, loan: u64) -> Res<Option<String>> {
        let mut pos = 0;
        loop {
            self.ensure(pos + HEADER_LEN, true)?;
            let h = Header::decode(&self.buffered()[pos..pos + HEADER_LEN]).map_err(|e| self.malformed(e))?;
            let len = (HEADER_LEN + h.meta_len) as u64 + h.body_len;
            match h.kind {
                Kind::Bye => return Err(NetError::Gone(DISCONNECTED.into())),
                Kind::Release => {
                    let len = len as usize;
                    self.ensure(pos + len, true)?;
                    let start = self.rpos + pos;
                    let frame: Vec<u8> = self.rbuf.drain(start..start + len).skip(HEADER_LEN).collect();
                    if self.rpos >= self.rbuf.len() {
                        self.consume(0);
                    }
                    let (released, text) = frame.split_at(8);
                    if released != loan.to_le_bytes() {
                        return Err(self.malformed(Error::corrupt("the release of another loan")));
                    }
                    return Ok((!text.is_empty()).then(|| String::from_utf8_lossy(text).into_owned()));
                }
                _ => {
                    let end = usize::try_from(len)
                        .ok()
                        .and_then(|l| l.checked_add(pos))
                        .ok_or_else(|| self.malformed(Error::corrupt(format!("frame of {len} bytes"))))?;
                    self.ensure(end, true)?;
                    pos = end;
                }
            }
        }
    }

    /// Releases `loan`, the device memory of a lent CUDA tensor: `failed` says why the copy did
    /// not happen.
    pub fn send_release(&mut self, loan: u64, failed: Option<&str>) -> Res<()> {
        let text = failed.unwrap_or("").as_bytes();
        let text = &text[..text.len().min(frame::MAX_RELEASE_TEXT)];
        self.start_frame(Kind::Release, &loan.to_le_bytes(), text.len() as u64);
        self.write_bytes(text)?;
        self.flush()
    }

    // ---- sending ----

    fn send_raw(&mut self, mut bytes: &[u8]) -> Res<()> {
        while !bytes.is_empty() {
            let t = Instant::now();
            // SAFETY: `bytes` is a valid slice; MSG_NOSIGNAL turns SIGPIPE into EPIPE.
            let r = unsafe {
                libc::send(
                    self.fd(),
                    bytes.as_ptr().cast(),
                    bytes.len(),
                    libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
                )
            };
            self.stats.tx.num_system_calls += 1;
            self.stats.tx.system_seconds += t.elapsed().as_secs_f64();
            if r >= 0 {
                self.stats.tx.num_bytes += r as u64;
                bytes = &bytes[r as usize..];
                continue;
            }
            match errno() {
                libc::EINTR => {}
                libc::EAGAIN => {
                    wait_fd(self.fd(), libc::POLLOUT, None)?;
                }
                e @ (libc::EPIPE | libc::ECONNRESET | libc::ETIMEDOUT | libc::EHOSTUNREACH | libc::ENETUNREACH) => {
                    return Err(NetError::Gone(format!("{DISCONNECTED} ({})", os_text(e))));
                }
                e => return Err(NetError::Broken(format!("send failed: {}", os_text(e)))),
            }
        }
        Ok(())
    }

    pub(super) fn flush(&mut self) -> Res<()> {
        let buf = std::mem::take(&mut self.wbuf);
        let r = self.send_raw(&buf);
        self.wbuf = buf;
        self.wbuf.clear();
        r
    }

    pub(super) fn write_bytes(&mut self, bytes: &[u8]) -> Res<()> {
        if bytes.len() >= DIRECT_WRITE {
            self.flush()?;
            return self.send_raw(bytes);
        }
        self.wbuf.extend_from_slice(bytes);
        if self.wbuf.len() >= WRITE_CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    pub(super) fn start_frame(&mut self, kind: Kind, meta: &[u8], body_len: u64) {
        let h = Header {
            kind,
            meta_len: meta.len(),
            body_len,
        };
        self.wbuf.clear();
        self.wbuf.extend_from_slice(&h.encode());
        self.wbuf.extend_from_slice(meta);
    }

    /// Sends a value message whose body is `parts`, one after the other (a value in wire form,
    /// short enough for `frame::MAX_MESSAGE`: callers check).
    pub fn send_value(&mut self, parts: &[&[u8]]) -> Res<()> {
        self.timed(false, |c| {
            c.check_open()?;
            let len: usize = parts.iter().map(|p| p.len()).sum();
            c.start_frame(Kind::Value, &[], len as u64);
            for p in parts {
                c.write_bytes(p)?;
            }
            c.flush()?;
            c.stats.tx.num_regions += 1;
            Ok(())
        })
    }

    /// Sends the elements of `t` in row-major order, whatever its strides.
    pub fn send_tensor(&mut self, t: &Tensor) -> Res<()> {
        self.timed(false, |c| {
            c.check_open()?;
            let es = t.dtype.size_of();
            let base = match t.numel() {
                0 => std::ptr::null_mut(),
                _ => t
                    .storage_checked()
                    .map_err(|e| NetError::Mismatch(format!("tensor to send: {e}")))?
                    .data_ptr(),
            };
            let meta = tensor_meta(t).encode();
            c.start_frame(Kind::Tensor, &meta, (t.numel() * es) as u64);
            for_each_run(t, |off, n| {
                // SAFETY: storage_checked showed every element of the view lies in the storage.
                let src = unsafe { std::slice::from_raw_parts(base.add(off * es), n * es) };
                c.write_bytes(src)
            })?;
            c.flush()?;
            c.stats.tx.num_regions += 1;
            Ok(())
        })
    }

    pub fn send_storage(&mut self, s: &Storage) -> Res<()> {
        self.timed(false, |c| {
            c.check_open()?;
            let d = s.dtype();
            c.start_frame(
                Kind::Storage,
                &frame::encode_storage_meta(d),
                (s.len() * d.size_of()) as u64,
            );
            // SAFETY: read-only view of the storage's bytes while they are sent.
            let bytes = unsafe { s.bytes() };
            c.write_bytes(bytes)?;
            c.flush()?;
            c.stats.tx.num_regions += 1;
            Ok(())
        })
    }

    /// Ends the connection: a goodbye if the socket takes it at once, then shutdown. Later calls
    /// report `why`.
    pub fn close(&mut self, why: &str) {
        if self.over.is_none() {
            let bye = Header {
                kind: Kind::Bye,
                meta_len: 0,
                body_len: 0,
            }
            .encode();
            // SAFETY: a valid 16-byte buffer; never blocks.
            unsafe {
                libc::send(
                    self.fd(),
                    bye.as_ptr().cast(),
                    bye.len(),
                    libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
                )
            };
            self.over = Some(why.to_string());
        }
        let _ = self.sock.shutdown(Shutdown::Both);
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.close("closed");
    }
}

#[cfg(test)]
mod tests {
    use super::super::listener::Listener;
    use super::*;
    use crate::torch::base::dtype::DType;

    fn pair() -> (Conn, Conn) {
        let l = Listener::bind("127.0.0.1", 0).unwrap();
        let c = Conn::connect("127.0.0.1", l.port, Duration::from_secs(5)).unwrap();
        let s = l.accept(Instant::now() + Duration::from_secs(5)).unwrap().unwrap();
        (c, s)
    }

    #[test]
    fn values_tensors_and_goodbye() {
        let (mut a, mut b) = pair();
        a.send_value(&[b"hello"]).unwrap();
        assert_eq!(b.recv_value(true).unwrap().unwrap(), b"hello");
        assert_eq!(b.recv_value(false).unwrap(), None);

        let src = Tensor::zeros(DType::Int, &[4, 5]).unwrap();
        // SAFETY: fresh storage, only this test uses it.
        unsafe {
            for (i, x) in src
                .storage
                .as_ref()
                .unwrap()
                .as_mut_slice::<i32>()
                .iter_mut()
                .enumerate()
            {
                *x = i as i32;
            }
        }
        let view = src.narrow(1, 1, 3).unwrap();
        a.send_tensor(&view).unwrap();
        // A receiver of another shape is refused and the frame stays.
        let wrong = Tensor::zeros(DType::Int, &[4, 4]).unwrap().narrow(1, 0, 2).unwrap();
        assert!(matches!(b.recv_tensor(&wrong), Err(NetError::Mismatch(_))));
        assert!(matches!(b.recv_value(true), Err(NetError::Mismatch(_))));
        let dst_full = Tensor::zeros(DType::Int, &[4, 6]).unwrap();
        let dst = dst_full.narrow(1, 2, 3).unwrap();
        b.recv_tensor(&dst).unwrap();
        // SAFETY: nothing else uses the storage.
        let got = unsafe { dst_full.storage.as_ref().unwrap().as_slice::<i32>().to_vec() };
        assert_eq!(&got[..6], &[0, 0, 1, 2, 3, 0]);
        assert_eq!(&got[18..], &[0, 0, 16, 17, 18, 0]);

        a.close("closed");
        let e = b.recv_value(true).unwrap_err();
        assert_eq!(e, NetError::Gone(DISCONNECTED.into()));
        assert!(b.recv_value(true).unwrap_err().message().contains(DISCONNECTED));
    }

    #[test]
    fn a_release_is_found_behind_other_frames_which_stay() {
        let (mut a, mut b) = pair();
        // What b sent before releasing stays, in order, for a's later receives.
        b.send_value(&[b"first"]).unwrap();
        let t = Tensor::zeros(DType::Float, &[300_000]).unwrap();
        b.send_tensor(&t).unwrap();
        b.send_release(1, None).unwrap();
        b.send_value(&[b"after"]).unwrap();
        b.send_release(2, Some("could not open it")).unwrap();
        assert_eq!(a.wait_release(1).unwrap(), None);
        assert_eq!(a.wait_release(2).unwrap().as_deref(), Some("could not open it"));
        assert_eq!(a.recv_value(true).unwrap().unwrap(), b"first");
        let into = Tensor::zeros(DType::Float, &[300_000]).unwrap();
        a.recv_tensor(&into).unwrap();
        assert_eq!(a.recv_value(true).unwrap().unwrap(), b"after");
        assert_eq!(a.recv_value(false).unwrap(), None);
        // A peer that leaves instead of releasing ends the wait, and a release of another loan is
        // refused.
        b.send_release(4, None).unwrap();
        assert!(matches!(a.wait_release(3), Err(NetError::Broken(_))));
        b.close("test");
        assert!(matches!(a.wait_release(5), Err(NetError::Gone(_))));
    }

    #[test]
    fn end_of_stream_is_a_disconnect() {
        let (a, mut b) = pair();
        // Closing the socket without a goodbye, as a crashed process does.
        let _ = a.sock.shutdown(Shutdown::Both);
        std::mem::forget(a);
        let e = b.recv_value(true).unwrap_err();
        assert!(e.message().contains(DISCONNECTED), "{e:?}");
    }

    #[test]
    fn big_tensor_round_trip() {
        let (mut a, mut b) = pair();
        let n = 3 << 20;
        let src = Tensor::zeros(DType::Float, &[n]).unwrap();
        // SAFETY: fresh storage.
        unsafe {
            for (i, x) in src
                .storage
                .as_ref()
                .unwrap()
                .as_mut_slice::<f32>()
                .iter_mut()
                .enumerate()
            {
                *x = i as f32;
            }
        }
        let dst = Tensor::zeros(DType::Float, &[n]).unwrap();
        let sender = std::thread::spawn(move || {
            a.send_tensor(&src).unwrap();
            a.send_value(&[b"after"]).unwrap();
            a
        });
        b.recv_tensor(&dst).unwrap();
        assert_eq!(b.recv_value(true).unwrap().unwrap(), b"after");
        let _a = sender.join().unwrap();
        // SAFETY: the sender is done.
        let got = unsafe { dst.storage.as_ref().unwrap().as_slice::<f32>() };
        assert!(got.iter().enumerate().all(|(i, &x)| x == i as f32));
    }

    #[test]
    fn connect_gives_up_naming_the_address() {
        let port = {
            let l = Listener::bind("127.0.0.1", 0).unwrap();
            l.port
        };
        let e = match Conn::connect("127.0.0.1", port, Duration::from_millis(300)) {
            Err(e) => e,
            Ok(_) => panic!("connected to a closed port"),
        };
        assert!(e.message().contains(&format!("127.0.0.1:{port}")), "{e}");
        assert!(e.message().contains("within 0.3 s"), "{e}");
    }
}
