//! The byte streams under a torch.File: memory, a disk file, and a pipe to or from a shell command.
//! The format layer (`codec`) only needs buffered reads with one-byte lookahead, writes, and
//! positioning; each kind says what it cannot do.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::process::{Child, ChildStdin, ChildStdout};

/// What the format layer asks of a stream. Positions are 0-based byte offsets.
pub trait Stream {
    /// Reads up to `buf.len()` bytes; fewer only at the end of the input.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize>;
    /// The next byte without consuming it (None at the end).
    fn peek(&mut self) -> io::Result<Option<u8>>;
    fn write(&mut self, data: &[u8]) -> io::Result<()>;
    fn seek(&mut self, pos: u64) -> io::Result<()>;
    fn seek_end(&mut self) -> io::Result<()>;
    fn position(&mut self) -> io::Result<u64>;
    /// Bytes left before the end, when the stream knows (a pipe does not). The reader checks
    /// declared sizes against it before allocating.
    fn remaining(&mut self) -> Option<u64>;
    fn flush(&mut self) -> io::Result<()>;
    /// Flushes and releases the underlying resource.
    fn close(&mut self) -> io::Result<()>;
    /// Memory files hand their bytes to `MemoryFile:storage()`.
    fn as_memory(&self) -> Option<&MemoryStream> {
        None
    }
    /// A memory file's bytes, moved out (the file is left empty), for a caller done with it.
    fn take_memory(&mut self) -> Option<Vec<u8>> {
        None
    }
    /// `DiskFile:noBuffer()`: write through at once (a no-op where there is no buffer).
    fn set_unbuffered(&mut self) {}
}

/// A growable byte buffer, as THMemoryFile: writes overwrite at the position and extend the end.
#[derive(Default)]
pub struct MemoryStream {
    data: Vec<u8>,
    pos: usize,
}

impl MemoryStream {
    pub fn new(data: Vec<u8>) -> MemoryStream {
        MemoryStream { data, pos: 0 }
    }

    pub fn data(&self) -> &[u8] {
        &self.data
    }
}

impl Stream for MemoryStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }

    fn peek(&mut self) -> io::Result<Option<u8>> {
        Ok(self.data.get(self.pos).copied())
    }

    fn write(&mut self, data: &[u8]) -> io::Result<()> {
        let end = self.pos.saturating_add(data.len());
        if end > self.data.len() {
            // The size is the script's: a failure is an error, not an abort.
            self.data.try_reserve(end - self.data.len()).map_err(|_| {
                io::Error::new(
                    io::ErrorKind::OutOfMemory,
                    format!("out of memory growing a memory file to {end} bytes"),
                )
            })?;
        }
        if self.pos == self.data.len() {
            // Appending, as a serializer does: no zero-fill first.
            self.data.extend_from_slice(data);
            self.pos = self.data.len();
            return Ok(());
        }
        if end > self.data.len() {
            self.data.resize(end, 0);
        }
        self.data[self.pos..end].copy_from_slice(data);
        self.pos = end;
        Ok(())
    }

    fn seek(&mut self, pos: u64) -> io::Result<()> {
        if pos > self.data.len() as u64 {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "past the end"));
        }
        self.pos = pos as usize;
        Ok(())
    }

    fn seek_end(&mut self) -> io::Result<()> {
        self.pos = self.data.len();
        Ok(())
    }

    fn position(&mut self) -> io::Result<u64> {
        Ok(self.pos as u64)
    }

    fn remaining(&mut self) -> Option<u64> {
        Some((self.data.len() - self.pos) as u64)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn close(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn as_memory(&self) -> Option<&MemoryStream> {
        Some(self)
    }

    fn take_memory(&mut self) -> Option<Vec<u8>> {
        self.pos = 0;
        Some(std::mem::take(&mut self.data))
    }
}

const BUFFER: usize = 64 * 1024;

/// The OS handle under a buffered stream.
enum Raw {
    File(File),
    PipeIn(Child, ChildStdout),
    PipeOut(Child, Option<ChildStdin>),
}

impl Raw {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let r = match self {
                Raw::File(f) => f.read(buf),
                Raw::PipeIn(_, out) => out.read(buf),
                Raw::PipeOut(..) => return Err(io::Error::other("not readable")),
            };
            match r {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                r => return r,
            }
        }
    }

    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        match self {
            Raw::File(f) => f.write_all(data),
            Raw::PipeOut(_, Some(input)) => input.write_all(data),
            _ => Err(io::Error::other("not writable")),
        }
    }

    fn seekable(&self) -> bool {
        matches!(self, Raw::File(_))
    }
}

/// A disk file or pipe with one buffer used for reading or for writing, as stdio has it.
pub struct BufferedStream {
    raw: Option<Raw>,
    /// Bytes read ahead: `rbuf[rpos..]` are not consumed yet.
    rbuf: Vec<u8>,
    rpos: usize,
    wbuf: Vec<u8>,
    /// Offset of the OS cursor (for pipes: bytes moved so far).
    os_pos: u64,
    /// Write through at once (`DiskFile:noBuffer()`).
    unbuffered: bool,
}

impl BufferedStream {
    fn new(raw: Raw) -> BufferedStream {
        BufferedStream {
            raw: Some(raw),
            rbuf: Vec::new(),
            rpos: 0,
            wbuf: Vec::new(),
            os_pos: 0,
            unbuffered: false,
        }
    }

    /// Opens `path` as Torch's DiskFile does: 'r' reads an existing file, 'w' truncates or
    /// creates, 'rw' opens an existing file for update or creates it.
    pub fn open_file(path: &str, readable: bool, writable: bool) -> io::Result<BufferedStream> {
        let mut opts = std::fs::OpenOptions::new();
        opts.read(readable);
        if writable {
            opts.write(true).create(true);
            if !readable {
                opts.truncate(true);
            }
        }
        let file = opts.open(path)?;
        // A directory opens on Linux but cannot be read; Torch fails at open for it.
        if file.metadata()?.is_dir() {
            return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory"));
        }
        Ok(BufferedStream::new(Raw::File(file)))
    }

    /// `sh -c cmd` with its stdout (mode 'r') or stdin (mode 'w') connected.
    pub fn open_pipe(cmd: &str, read: bool) -> io::Result<BufferedStream> {
        use std::process::{Command, Stdio};
        let mut command = Command::new("/bin/sh");
        command.arg("-c").arg(cmd);
        if read {
            let mut child = command.stdout(Stdio::piped()).spawn()?;
            let out = child.stdout.take().ok_or_else(|| io::Error::other("no stdout"))?;
            Ok(BufferedStream::new(Raw::PipeIn(child, out)))
        } else {
            let mut child = command.stdin(Stdio::piped()).spawn()?;
            let input = child.stdin.take();
            Ok(BufferedStream::new(Raw::PipeOut(child, input)))
        }
    }

    fn raw(&mut self) -> io::Result<&mut Raw> {
        self.raw.as_mut().ok_or_else(|| io::Error::other("closed"))
    }

    fn flush_writes(&mut self) -> io::Result<()> {
        if self.wbuf.is_empty() {
            return Ok(());
        }
        let data = std::mem::take(&mut self.wbuf);
        let r = self.raw()?.write_all(&data);
        self.os_pos += data.len() as u64;
        let mut data = data;
        data.clear();
        self.wbuf = data;
        r
    }

    /// Drops read-ahead, moving the OS cursor back to the logical position.
    fn drop_reads(&mut self) -> io::Result<()> {
        let ahead = (self.rbuf.len() - self.rpos) as u64;
        if ahead > 0 {
            let logical = self.os_pos - ahead;
            if let Raw::File(f) = self.raw()? {
                f.seek(SeekFrom::Start(logical))?;
            }
            self.os_pos = logical;
        }
        self.rbuf.clear();
        self.rpos = 0;
        Ok(())
    }

    fn fill(&mut self) -> io::Result<bool> {
        if self.rpos < self.rbuf.len() {
            return Ok(true);
        }
        self.flush_writes()?;
        self.rbuf.resize(BUFFER, 0);
        let mut buf = std::mem::take(&mut self.rbuf);
        let n = self.raw().and_then(|r| r.read(&mut buf));
        let n = match n {
            Ok(n) => n,
            Err(e) => {
                buf.clear();
                self.rbuf = buf;
                self.rpos = 0;
                return Err(e);
            }
        };
        buf.truncate(n);
        self.rbuf = buf;
        self.rpos = 0;
        self.os_pos += n as u64;
        Ok(n > 0)
    }
}

impl Stream for BufferedStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut got = 0;
        while got < buf.len() {
            if self.rpos == self.rbuf.len() && buf.len() - got >= BUFFER {
                // Large reads go straight into the destination.
                self.flush_writes()?;
                let n = self.raw()?.read(&mut buf[got..])?;
                self.os_pos += n as u64;
                if n == 0 {
                    break;
                }
                got += n;
                continue;
            }
            if !self.fill()? {
                break;
            }
            let n = (buf.len() - got).min(self.rbuf.len() - self.rpos);
            buf[got..got + n].copy_from_slice(&self.rbuf[self.rpos..self.rpos + n]);
            self.rpos += n;
            got += n;
        }
        Ok(got)
    }

    fn peek(&mut self) -> io::Result<Option<u8>> {
        if !self.fill()? {
            return Ok(None);
        }
        Ok(Some(self.rbuf[self.rpos]))
    }

    fn write(&mut self, data: &[u8]) -> io::Result<()> {
        self.drop_reads()?;
        self.wbuf.extend_from_slice(data);
        if self.unbuffered || self.wbuf.len() >= BUFFER {
            self.flush_writes()?;
        }
        Ok(())
    }

    fn seek(&mut self, pos: u64) -> io::Result<()> {
        if !self.raw()?.seekable() {
            return Err(io::Error::new(io::ErrorKind::Unsupported, "cannot seek in a pipe"));
        }
        self.flush_writes()?;
        self.rbuf.clear();
        self.rpos = 0;
        if let Raw::File(f) = self.raw()? {
            // As fseek: past the end is allowed (a later write fills the gap with zeros).
            self.os_pos = f.seek(SeekFrom::Start(pos))?;
        }
        Ok(())
    }

    fn seek_end(&mut self) -> io::Result<()> {
        if !self.raw()?.seekable() {
            return Err(io::Error::new(io::ErrorKind::Unsupported, "cannot seek in a pipe"));
        }
        self.flush_writes()?;
        self.rbuf.clear();
        self.rpos = 0;
        if let Raw::File(f) = self.raw()? {
            self.os_pos = f.seek(SeekFrom::End(0))?;
        }
        Ok(())
    }

    fn position(&mut self) -> io::Result<u64> {
        Ok(self.os_pos - (self.rbuf.len() - self.rpos) as u64 + self.wbuf.len() as u64)
    }

    fn set_unbuffered(&mut self) {
        self.unbuffered = true;
    }

    fn remaining(&mut self) -> Option<u64> {
        let pos = self.position().ok()?;
        match self.raw.as_ref()? {
            Raw::File(f) => f.metadata().ok().map(|m| m.len().saturating_sub(pos)),
            _ => None,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flush_writes()?;
        if let Some(Raw::File(f)) = self.raw.as_mut() {
            f.flush()?;
        }
        Ok(())
    }

    fn close(&mut self) -> io::Result<()> {
        let flushed = self.flush_writes();
        let closed = match self.raw.take() {
            Some(Raw::PipeIn(mut child, out)) => {
                drop(out);
                child.wait().map(|_| ())
            }
            Some(Raw::PipeOut(mut child, input)) => {
                // Closing stdin lets the command see the end of its input.
                drop(input);
                child.wait().map(|_| ())
            }
            Some(Raw::File(f)) => {
                drop(f);
                Ok(())
            }
            None => Ok(()),
        };
        flushed.and(closed)
    }
}

impl Drop for BufferedStream {
    fn drop(&mut self) {
        // A file collected without close() still gets its data and reaps its command.
        let _ = self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_overwrites_and_extends() {
        let mut m = MemoryStream::default();
        m.write(b"hello").unwrap();
        m.seek(1).unwrap();
        m.write(b"EY").unwrap();
        assert_eq!(m.data(), b"hEYlo");
        m.seek_end().unwrap();
        m.write(b"!").unwrap();
        assert_eq!(m.data(), b"hEYlo!");
        m.seek(0).unwrap();
        let mut buf = [0u8; 10];
        assert_eq!(m.read(&mut buf).unwrap(), 6);
        assert_eq!(m.peek().unwrap(), None);
        assert!(m.seek(7).is_err());
        assert_eq!(m.remaining(), Some(0));
    }

    #[test]
    fn disk_mixes_reads_writes_and_seeks() {
        let dir = std::env::temp_dir().join(format!("t7stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.bin");
        let p = path.to_str().unwrap();
        let mut w = BufferedStream::open_file(p, false, true).unwrap();
        w.write(b"0123456789").unwrap();
        assert_eq!(w.position().unwrap(), 10);
        w.close().unwrap();
        let mut rw = BufferedStream::open_file(p, true, true).unwrap();
        let mut two = [0u8; 2];
        assert_eq!(rw.read(&mut two).unwrap(), 2);
        assert_eq!(&two, b"01");
        assert_eq!(rw.remaining(), Some(8));
        // A write after a read lands at the logical position, not after the read-ahead.
        rw.write(b"ab").unwrap();
        assert_eq!(rw.position().unwrap(), 4);
        assert_eq!(rw.peek().unwrap(), Some(b'4'));
        rw.seek(0).unwrap();
        let mut all = Vec::new();
        let mut buf = [0u8; 3];
        loop {
            let n = rw.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            all.extend_from_slice(&buf[..n]);
        }
        assert_eq!(all, b"01ab456789");
        rw.seek_end().unwrap();
        assert_eq!(rw.position().unwrap(), 10);
        drop(rw);
        assert!(BufferedStream::open_file(dir.to_str().unwrap(), true, false).is_err());
        assert!(BufferedStream::open_file(dir.join("missing").to_str().unwrap(), true, false).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pipes_read_and_write() {
        let mut r = BufferedStream::open_pipe("printf 'abc'", true).unwrap();
        let mut buf = [0u8; 8];
        assert_eq!(r.read(&mut buf).unwrap(), 3);
        assert!(r.seek(0).is_err());
        assert_eq!(r.remaining(), None);
        r.close().unwrap();
        let mut w = BufferedStream::open_pipe("cat > /dev/null", false).unwrap();
        w.write(b"xyz").unwrap();
        assert!(w.read(&mut buf).is_err());
        w.close().unwrap();
    }
}
