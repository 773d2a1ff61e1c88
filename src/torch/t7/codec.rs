//! THFile's layer: typed reads and writes of elements in binary (host byte order, optionally
//! swapped; Long as 8 or 4 bytes) or ASCII (printf/scanf text, Byte and Char as raw bytes), with
//! Torch's quiet/pedantic error handling. The object layer (`read`, `write`) sits on top.

use std::io;

use super::ascii::{AsciiReader, Scalar};
use super::refs::Refs;
use super::stream::Stream;
use crate::dispatch;
use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;
use crate::torch::base::storage::Storage;

// Where crate::ipc and crate::parallel find them.
pub use super::refs::{Handle, HandleOf, Handles, OutOfBand};

/// Which class a File is: error messages and a few operations differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Disk,
    Memory,
    Pipe,
}

/// A torch.File's state: its stream, modes, error flag and references.
pub struct FileCore {
    stream: Option<Box<dyn Stream>>,
    pub kind: Kind,
    readable: bool,
    writable: bool,
    pub binary: bool,
    pub auto_spacing: bool,
    pub quiet: bool,
    pub has_error: bool,
    /// Bytes per Long in binary mode (8, or 4 for files from 32-bit-long platforms).
    pub long_size: usize,
    /// Swap the byte order of binary elements (DiskFile's big/little-endian encodings).
    pub swap: bool,
    pub refs: Refs,
    /// Nesting of readObject/writeObject calls in progress (bounded: hostile input and cycles
    /// written with referenced(false) must fail, not overflow the stack).
    pub depth: usize,
    /// Large storages carried beside the bytes instead of inside them (parallel's shared memory).
    pub out_of_band: Option<OutOfBand>,
}

/// Read buffers are allocated in pieces of this many bytes when the input's length is unknown
/// or shorter than declared, so a hostile size costs at most the input actually present.
const CHUNK_BYTES: usize = 1 << 20;

fn io_text(e: &io::Error) -> String {
    e.to_string()
}

impl FileCore {
    pub fn new(stream: Box<dyn Stream>, kind: Kind, readable: bool, writable: bool) -> FileCore {
        FileCore {
            stream: Some(stream),
            kind,
            readable,
            writable,
            binary: false,
            auto_spacing: true,
            quiet: false,
            has_error: false,
            long_size: 8,
            swap: false,
            out_of_band: None,
            refs: Refs::default(),
            depth: 0,
        }
    }

    pub fn is_open(&self) -> bool {
        self.stream.is_some()
    }

    pub fn is_readable(&self) -> bool {
        self.readable
    }

    pub fn is_writable(&self) -> bool {
        self.writable
    }

    pub fn stream(&mut self) -> Result<&mut Box<dyn Stream>> {
        self.stream
            .as_mut()
            .ok_or_else(|| Error::io("attempt to use a closed file"))
    }

    pub fn memory_data(&self) -> Option<&[u8]> {
        self.stream.as_ref()?.as_memory().map(|m| m.data())
    }

    /// A memory file's bytes, moved out: what a serializer hands on without a copy.
    pub fn take_memory_data(&mut self) -> Option<Vec<u8>> {
        self.stream.as_mut()?.take_memory()
    }

    fn check_read(&mut self) -> Result<()> {
        self.stream()?;
        if !self.readable {
            return Err(Error::argument("attempt to read in a write-only file"));
        }
        Ok(())
    }

    fn check_write(&mut self) -> Result<()> {
        self.stream()?;
        if !self.writable {
            return Err(Error::argument("attempt to write in a read-only file"));
        }
        Ok(())
    }

    /// Records a failure: an error in pedantic mode, a flag only in quiet mode.
    fn fail(&mut self, e: Error) -> Result<()> {
        self.has_error = true;
        if self.quiet { Ok(()) } else { Err(e) }
    }

    fn short_read(&mut self, got: usize, wanted: usize) -> Result<usize> {
        if got != wanted {
            self.fail(Error::io(format!("read error: read {got} blocks instead of {wanted}")))?;
        }
        Ok(got)
    }

    fn short_write(&mut self, done: usize, wanted: usize) -> Result<usize> {
        if done != wanted {
            self.fail(Error::io(format!(
                "write error: wrote {done} blocks instead of {wanted}"
            )))?;
        }
        Ok(done)
    }

    /// Binary element size of `T` in this file (Long may be 4).
    fn elem_bytes<T: Scalar>(&self) -> usize {
        if T::DTYPE == DType::Long {
            self.long_size
        } else {
            T::DTYPE.size_of()
        }
    }

    /// Reads into `dst`; returns how many elements were read (fewer only in quiet mode).
    pub fn read_into<T: Scalar>(&mut self, dst: &mut [T]) -> Result<usize> {
        self.check_read()?;
        let n = dst.len();
        let got = if self.binary {
            self.read_binary(dst)
        } else {
            self.read_ascii(dst)
        };
        let got = match got {
            Ok(g) => g,
            Err(e) => {
                self.fail(Error::io(format!("read error: {}", io_text(&e))))?;
                0
            }
        };
        self.short_read(got, n)
    }

    fn read_binary<T: Scalar>(&mut self, dst: &mut [T]) -> io::Result<usize> {
        let size = self.elem_bytes::<T>();
        let swap = self.swap;
        let stream = self.stream.as_mut().expect("checked open");
        if size == T::DTYPE.size_of() {
            // SAFETY: plain numeric elements; every byte pattern is a valid value.
            let bytes =
                unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(dst)) };
            let got = read_full(stream.as_mut(), bytes)?;
            let n = got / size;
            if swap && size > 1 {
                for chunk in bytes[..n * size].chunks_exact_mut(size) {
                    chunk.reverse();
                }
            }
            return Ok(n);
        }
        // Long stored in 4 bytes: read int32s and widen.
        let mut buf = [0u8; 4];
        for (i, d) in dst.iter_mut().enumerate() {
            if read_full(stream.as_mut(), &mut buf)? < 4 {
                return Ok(i);
            }
            if swap {
                buf.reverse();
            }
            *d = T::from_i64(i32::from_ne_bytes(buf) as i64);
        }
        Ok(dst.len())
    }

    fn read_ascii<T: Scalar>(&mut self, dst: &mut [T]) -> io::Result<usize> {
        let auto = self.auto_spacing;
        let stream = self.stream.as_mut().expect("checked open");
        let n = dst.len();
        let got = if T::RAW {
            // SAFETY: one-byte elements; every byte pattern is valid.
            let bytes = unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<u8>(), n) };
            read_full(stream.as_mut(), bytes)?
        } else {
            let mut reader = AsciiReader::new(stream.as_mut());
            let mut got = 0;
            for d in dst.iter_mut() {
                match T::read_ascii(&mut reader)? {
                    Some(v) => *d = v,
                    None => break,
                }
                got += 1;
            }
            got
        };
        // One newline after a read call is part of it (autoSpacing).
        if auto && n > 0 && stream.peek()? == Some(b'\n') {
            let mut one = [0u8; 1];
            stream.read(&mut one)?;
        }
        Ok(got)
    }

    /// Reads `n` elements into a new storage. Memory grows with the input actually read, so a
    /// hostile `n` fails with a read error instead of allocating it.
    pub fn read_storage(&mut self, dtype: DType, n: usize) -> Result<(Storage, usize)> {
        self.check_read()?;
        dispatch!(dtype, T => self.read_storage_of::<T>(n))
    }

    fn read_storage_of<T: Scalar>(&mut self, n: usize) -> Result<(Storage, usize)> {
        // Lower bound on the bytes `n` elements take: binary size, or one byte each in ASCII.
        let min_bytes = if self.binary { self.elem_bytes::<T>() } else { 1 };
        let fits = match self.stream()?.remaining() {
            Some(r) => (n as u128) * (min_bytes as u128) <= r as u128,
            None => false,
        };
        if fits || n.saturating_mul(size_of::<T>()) <= CHUNK_BYTES {
            let s = Storage::new(T::DTYPE, n)?;
            // SAFETY: fresh storage, not shared yet.
            let got = self.read_into(unsafe { s.as_mut_slice::<T>() })?;
            if got < n {
                s.resize(got)?;
            }
            return Ok((s, got));
        }
        let chunk = (CHUNK_BYTES / size_of::<T>()).max(1);
        let mut data: Vec<T> = Vec::new();
        let quiet = self.quiet;
        self.quiet = true;
        let before = self.has_error;
        while data.len() < n {
            let start = data.len();
            let want = chunk.min(n - start);
            data.resize(start + want, T::zero());
            let got = self.read_into(&mut data[start..]);
            let got = match got {
                Ok(g) => g,
                Err(e) => {
                    self.quiet = quiet;
                    return Err(e);
                }
            };
            data.truncate(start + got);
            if got < want {
                break;
            }
        }
        self.quiet = quiet;
        self.has_error = before;
        let got = data.len();
        self.short_read(got, n)?;
        Ok((Storage::from_slice(&data)?, got))
    }

    /// Writes `src`; returns how many elements were written.
    pub fn write_from<T: Scalar>(&mut self, src: &[T]) -> Result<usize> {
        self.check_write()?;
        let n = src.len();
        let r = if self.binary {
            self.write_binary(src)
        } else {
            self.write_ascii(src)
        };
        match r {
            Ok(()) => Ok(n),
            Err(e) => {
                self.fail(Error::io(format!("write error: {}", io_text(&e))))?;
                self.short_write(0, n)
            }
        }
    }

    fn write_binary<T: Scalar>(&mut self, src: &[T]) -> io::Result<()> {
        let size = self.elem_bytes::<T>();
        let swap = self.swap && size > 1;
        let stream = self.stream.as_mut().expect("checked open");
        if size == T::DTYPE.size_of() && !swap {
            // SAFETY: plain numeric elements viewed as bytes.
            let bytes = unsafe { std::slice::from_raw_parts(src.as_ptr().cast::<u8>(), std::mem::size_of_val(src)) };
            return stream.write(bytes);
        }
        let mut buf = Vec::with_capacity(CHUNK_BYTES.min(src.len() * size));
        for &v in src {
            if size == T::DTYPE.size_of() {
                // SAFETY: reading the bytes of a plain numeric value.
                let b = unsafe { std::slice::from_raw_parts((&v as *const T).cast::<u8>(), size) };
                buf.extend(b.iter().rev());
            } else {
                let b = (v.to_i64() as i32).to_ne_bytes();
                if swap {
                    buf.extend(b.iter().rev());
                } else {
                    buf.extend_from_slice(&b);
                }
            }
            if buf.len() >= CHUNK_BYTES {
                stream.write(&buf)?;
                buf.clear();
            }
        }
        stream.write(&buf)
    }

    fn write_ascii<T: Scalar>(&mut self, src: &[T]) -> io::Result<()> {
        let auto = self.auto_spacing;
        let stream = self.stream.as_mut().expect("checked open");
        let n = src.len();
        if T::RAW {
            // SAFETY: one-byte elements viewed as bytes.
            let bytes = unsafe { std::slice::from_raw_parts(src.as_ptr().cast::<u8>(), n) };
            stream.write(bytes)?;
        } else {
            let mut buf = Vec::new();
            for (i, &v) in src.iter().enumerate() {
                v.write_ascii(&mut buf);
                if auto && i + 1 < n {
                    buf.push(b' ');
                }
                if buf.len() >= CHUNK_BYTES {
                    stream.write(&buf)?;
                    buf.clear();
                }
            }
            stream.write(&buf)?;
        }
        if auto && n > 0 {
            stream.write(b"\n")?;
        }
        Ok(())
    }

    pub fn read_scalar<T: Scalar>(&mut self) -> Result<T> {
        let mut v = [T::zero()];
        self.read_into(&mut v)?;
        Ok(v[0])
    }

    pub fn write_scalar<T: Scalar>(&mut self, v: T) -> Result<usize> {
        self.write_from(&[v])
    }

    /// Reads exactly `n` raw bytes, whatever the mode (strings, bytecode).
    pub fn read_bytes(&mut self, n: usize) -> Result<Vec<u8>> {
        let (s, _) = self.read_storage(DType::Char, n)?;
        // SAFETY: fresh storage owned here.
        Ok(unsafe { s.bytes() }.to_vec())
    }

    /// `readString('*a')`, `('*l')` or `(n)`.
    pub fn read_string(&mut self, format: StringFormat) -> Result<Vec<u8>> {
        self.check_read()?;
        let stream = self.stream.as_mut().expect("checked open");
        let r: io::Result<(Vec<u8>, bool)> = (|| match format {
            StringFormat::All => {
                let mut out = Vec::new();
                let mut buf = vec![0u8; 64 * 1024];
                loop {
                    let n = stream.read(&mut buf)?;
                    if n == 0 {
                        break;
                    }
                    out.extend_from_slice(&buf[..n]);
                }
                Ok((out, true))
            }
            StringFormat::Line => {
                let mut out = Vec::new();
                let mut any = false;
                let mut one = [0u8; 1];
                while stream.read(&mut one)? == 1 {
                    any = true;
                    if one[0] == b'\n' {
                        break;
                    }
                    out.push(one[0]);
                }
                Ok((out, any))
            }
            StringFormat::Bytes(n) => {
                let mut out = Vec::new();
                let mut buf = vec![0u8; n.min(64 * 1024)];
                while out.len() < n {
                    let want = (n - out.len()).min(buf.len());
                    let got = stream.read(&mut buf[..want])?;
                    out.extend_from_slice(&buf[..got]);
                    if got < want {
                        break;
                    }
                }
                let ok = out.len() == n;
                Ok((out, ok))
            }
        })();
        match r {
            Ok((out, true)) => Ok(out),
            Ok((out, false)) => {
                let wanted = match format {
                    StringFormat::Bytes(n) => n,
                    _ => 1,
                };
                let got = if matches!(format, StringFormat::Bytes(_)) {
                    out.len()
                } else {
                    0
                };
                self.short_read(got, wanted)?;
                Ok(out)
            }
            Err(e) => {
                self.fail(Error::io(format!("read error: {}", io_text(&e))))?;
                Ok(Vec::new())
            }
        }
    }

    /// `writeString(s)`: raw bytes in every mode, no spacing.
    pub fn write_string(&mut self, s: &[u8]) -> Result<usize> {
        self.check_write()?;
        let r = self.stream.as_mut().expect("checked open").write(s);
        match r {
            Ok(()) => Ok(s.len()),
            Err(e) => {
                self.fail(Error::io(format!("write error: {}", io_text(&e))))?;
                Ok(0)
            }
        }
    }

    /// `seek(pos)` with a 0-based position.
    pub fn seek(&mut self, pos: u64) -> Result<()> {
        let kind = self.kind;
        let r = self.stream()?.seek(pos);
        if let Err(e) = r {
            let msg = if kind == Kind::Pipe {
                "seek: cannot seek in a pipe".to_string()
            } else {
                format!("unable to seek to position {} ({})", pos + 1, io_text(&e))
            };
            self.fail(Error::io(msg))?;
        }
        Ok(())
    }

    pub fn seek_end(&mut self) -> Result<()> {
        let kind = self.kind;
        let r = self.stream()?.seek_end();
        if let Err(e) = r {
            let msg = if kind == Kind::Pipe {
                "seekEnd: cannot seek in a pipe".to_string()
            } else {
                format!("unable to seek to the end ({})", io_text(&e))
            };
            self.fail(Error::io(msg))?;
        }
        Ok(())
    }

    /// 0-based position.
    pub fn position(&mut self) -> Result<u64> {
        self.stream()?.position().map_err(|e| Error::io(io_text(&e)))
    }

    pub fn synchronize(&mut self) -> Result<()> {
        let r = self.stream()?.flush();
        if let Err(e) = r {
            self.fail(Error::io(format!("write error: {}", io_text(&e))))?;
        }
        Ok(())
    }

    pub fn close(&mut self) -> Result<()> {
        let stream = self.stream.take();
        // References die with the file; a closed file holds nothing alive.
        self.refs = Refs {
            enabled: self.refs.enabled,
            ..Refs::default()
        };
        match stream {
            Some(mut s) => s.close().map_err(|e| Error::io(format!("close: {}", io_text(&e)))),
            None => Err(Error::io("attempt to use a closed file")),
        }
    }

    pub fn set_long_size(&mut self, n: usize) -> Result<()> {
        match n {
            0 | 8 => self.long_size = 8,
            4 => self.long_size = 4,
            _ => return Err(Error::argument(format!("invalid long size {n} (expected 0, 4 or 8)"))),
        }
        Ok(())
    }
}

/// What `readString` reads.
#[derive(Clone, Copy, Debug)]
pub enum StringFormat {
    All,
    Line,
    Bytes(usize),
}

/// Reads until `buf` is full or the input ends.
fn read_full(stream: &mut dyn Stream, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        let n = stream.read(&mut buf[got..])?;
        if n == 0 {
            break;
        }
        got += n;
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::super::stream::MemoryStream;
    use super::*;

    fn mem(data: &[u8]) -> FileCore {
        FileCore::new(Box::new(MemoryStream::new(data.to_vec())), Kind::Memory, true, true)
    }

    fn bytes(f: &FileCore) -> Vec<u8> {
        f.memory_data().unwrap().to_vec()
    }

    #[test]
    fn ascii_writes_as_printf_with_spacing() {
        let mut f = mem(b"");
        f.write_from(&[1i32, -2, 3]).unwrap();
        f.write_from(&[0.1f64, 1e300, f64::INFINITY, f64::NAN]).unwrap();
        f.write_from(&[0.1f32]).unwrap();
        f.write_from(b"ab".map(|b| b as i8).as_slice()).unwrap();
        f.write_from::<i64>(&[]).unwrap();
        assert_eq!(
            String::from_utf8(bytes(&f)).unwrap(),
            "1 -2 3\n0.10000000000000001 1.0000000000000001e+300 inf nan\n0.100000001\nab\n"
        );
        f.auto_spacing = false;
        f.write_from(&[4i16, 5]).unwrap();
        assert!(bytes(&f).ends_with(b"ab\n45"));
    }

    #[test]
    fn ascii_reads_as_scanf() {
        let mut f = mem(b"  12 -3\n0.5 -inf nan 1e3 +2.5E-1\nxyz\n7");
        let mut ints = [0i32; 2];
        assert_eq!(f.read_into(&mut ints).unwrap(), 2);
        assert_eq!(ints, [12, -3]);
        let mut d = [0f64; 5];
        assert_eq!(f.read_into(&mut d).unwrap(), 5);
        assert_eq!(d[0], 0.5);
        assert_eq!(d[1], f64::NEG_INFINITY);
        assert!(d[2].is_nan());
        assert_eq!((d[3], d[4]), (1000.0, 0.25));
        // Raw bytes, then the newline that ends the call.
        let mut c = [0u8; 3];
        assert_eq!(f.read_into(&mut c).unwrap(), 3);
        assert_eq!(&c, b"xyz");
        assert_eq!(f.read_scalar::<i64>().unwrap(), 7);
        let err = f.read_scalar::<i32>().unwrap_err().to_string();
        assert_eq!(err, "read error: read 0 blocks instead of 1");
        assert!(f.has_error);
    }

    #[test]
    fn ascii_bad_token_is_a_short_read() {
        let mut f = mem(b"1 x 3");
        let mut v = [0i32; 3];
        assert_eq!(
            f.read_into(&mut v).unwrap_err().to_string(),
            "read error: read 1 blocks instead of 3"
        );
        f.quiet = true;
        f.has_error = false;
        assert_eq!(f.read_scalar::<f32>().unwrap(), 0.0);
        assert!(f.has_error);
    }

    #[test]
    fn binary_round_trips_with_long_size_and_swap() {
        let mut f = mem(b"");
        f.binary = true;
        f.write_from(&[1i64, -2]).unwrap();
        f.set_long_size(4).unwrap();
        f.write_from(&[3i64, -4]).unwrap();
        f.swap = true;
        f.write_from(&[0x0102i16]).unwrap();
        f.write_from(&[1.5f64]).unwrap();
        let b = bytes(&f);
        assert_eq!(b.len(), 16 + 8 + 2 + 8);
        assert_eq!(&b[16..20], &3i32.to_ne_bytes());
        assert_eq!(&b[24..26], &[0x01, 0x02]);
        f.seek(0).unwrap();
        f.swap = false;
        f.set_long_size(8).unwrap();
        let mut l = [0i64; 2];
        f.read_into(&mut l).unwrap();
        assert_eq!(l, [1, -2]);
        f.set_long_size(4).unwrap();
        f.read_into(&mut l).unwrap();
        assert_eq!(l, [3, -4]);
        f.swap = true;
        assert_eq!(f.read_scalar::<i16>().unwrap(), 0x0102);
        assert_eq!(f.read_scalar::<f64>().unwrap(), 1.5);
        assert!(f.set_long_size(3).is_err());
    }

    #[test]
    fn hostile_sizes_do_not_allocate() {
        let mut f = mem(&[0u8; 10]);
        f.binary = true;
        let err = f.read_storage(DType::Double, usize::MAX / 16).unwrap_err().to_string();
        assert!(err.starts_with("read error: read 1 blocks instead of"), "{err}");
        f.seek(0).unwrap();
        f.quiet = true;
        let (s, got) = f.read_storage(DType::Double, 1 << 40).unwrap();
        assert_eq!((s.len(), got), (1, 1));
        assert!(f.has_error);
    }

    #[test]
    fn strings_and_modes() {
        let mut f = mem(b"line one\nrest");
        assert_eq!(f.read_string(StringFormat::Line).unwrap(), b"line one");
        assert_eq!(f.read_string(StringFormat::Bytes(2)).unwrap(), b"re");
        assert_eq!(f.read_string(StringFormat::All).unwrap(), b"st");
        assert!(f.read_string(StringFormat::Line).is_err());
        assert!(f.read_string(StringFormat::Bytes(1)).is_err());
        assert_eq!(f.read_string(StringFormat::All).unwrap(), b"");
        let mut ro = FileCore::new(Box::new(MemoryStream::default()), Kind::Memory, true, false);
        assert_eq!(
            ro.write_string(b"x").unwrap_err().to_string(),
            "attempt to write in a read-only file"
        );
        let mut wo = FileCore::new(Box::new(MemoryStream::default()), Kind::Memory, false, true);
        assert_eq!(
            wo.read_scalar::<i32>().unwrap_err().to_string(),
            "attempt to read in a write-only file"
        );
        wo.close().unwrap();
        assert_eq!(
            wo.write_string(b"x").unwrap_err().to_string(),
            "attempt to use a closed file"
        );
        assert!(wo.close().is_err());
    }
}
