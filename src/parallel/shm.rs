//! Shared-memory segments for large storages sent to a local process.
//!
//! Fresh memory is what costs: on a VM, faulting in 64 MiB of new pages takes four times as long
//! as copying 64 MiB into pages already there. So segments are recycled. The sender keeps a
//! [`Pool`] per peer: a storage goes into a free segment of the same size when there is one (one
//! copy into warm pages), else into a new one. The receiver maps the segment as the storage it
//! hands to Lua (no copy), keeps the mapping cached for the next message on that segment, and when
//! that storage is collected it queues a release, which travels back with its next message; the
//! sender then reuses the segment. Names carry the run and the sender's pid, so the top process
//! of a run removes what killed processes left behind (see `process::sweep`); segments themselves are made and mapped by `process::segments`.

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};

use super::owed::{self, Owed, Peer};
use crate::process::segments::{Mapped, close, create_once, map, map_existing, open};
use crate::process::sweep::{PREFIX, sweep, unlink};
use crate::torch::base::dtype::DType;
use crate::torch::base::storage::{Storage, track_external_bytes};

/// Free segments a sender keeps for reuse, per peer, at most.
const POOL_FREE_MAX_BYTES: usize = 1 << 30;
/// Mappings a receiver keeps cached, at most (in use or not).
const CACHE_MAX_ENTRIES: usize = 32;

struct Segment {
    bytes: usize,
    /// The sender's own mapping, made when the segment is first reused.
    map: Option<Mapped>,
}

/// The segments one sender made for one peer (and the device memory it lent it, whose releases
/// travel in the same messages).
pub struct Pool {
    run: String,
    segments: HashMap<String, Segment>,
    /// Released segments, oldest first.
    free: Vec<String>,
    pub device: crate::cuda::share::Stager,
}

impl Pool {
    pub fn new(run: &str) -> Pool {
        Pool {
            run: run.to_string(),
            segments: HashMap::new(),
            free: Vec::new(),
            device: Default::default(),
        }
    }

    pub fn run(&self) -> &str {
        &self.run
    }

    /// Puts the storage's bytes into a segment and returns its name.
    pub fn export(&mut self, storage: &Storage) -> io::Result<String> {
        let bytes = storage.len() * storage.dtype().size_of();
        // SAFETY: read-only view of the storage while it is copied.
        let data = unsafe { storage.bytes() };
        if let Some(pos) = self.free.iter().position(|n| self.segments[n].bytes == bytes) {
            let name = self.free.remove(pos);
            if let Err(e) = self.refill(&name, data) {
                self.drop_segment(&name);
                return Err(e);
            }
            return Ok(name);
        }
        let name = create_once(&self.run, data)?;
        self.segments.insert(name.clone(), Segment { bytes, map: None });
        Ok(name)
    }

    fn refill(&mut self, name: &str, data: &[u8]) -> io::Result<()> {
        let seg = self
            .segments
            .get_mut(name)
            .ok_or_else(|| io::Error::other("unknown segment"))?;
        if seg.map.is_none() {
            let fd = open(name, false)?;
            let mapped = map(fd, seg.bytes);
            close(fd);
            seg.map = Some(Mapped {
                ptr: mapped?,
                bytes: seg.bytes,
            });
        }
        let m = seg.map.as_ref().expect("mapped above");
        // SAFETY: the mapping holds `bytes` == data.len() bytes; the receiver released it.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), m.ptr as *mut u8, data.len()) };
        Ok(())
    }

    fn drop_segment(&mut self, name: &str) {
        self.segments.remove(name);
        self.free.retain(|n| n != name);
        let _ = unlink(name);
    }

    /// The receiver no longer reads what it was sent: a segment can carry the next storage of
    /// its size, lent device memory the next device storage.
    pub fn release(&mut self, owed: Owed) {
        match owed {
            Owed::Segment(name) => self.release_segment(&name),
            Owed::Loan(loan) => self.device.release(loan),
        }
    }

    fn release_segment(&mut self, name: &str) {
        if !self.segments.contains_key(name) || self.free.iter().any(|n| n == name) {
            return;
        }
        self.free.push(name.to_string());
        let mut free_bytes: usize = self.free.iter().map(|n| self.segments[n].bytes).sum();
        while free_bytes > POOL_FREE_MAX_BYTES && !self.free.is_empty() {
            let oldest = self.free[0].clone();
            free_bytes -= self.segments[&oldest].bytes;
            self.drop_segment(&oldest);
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        for name in self.segments.keys() {
            let _ = unlink(name);
        }
    }
}

/// A received storage's hold on its segment: counted for the collector while it lives, released
/// back to the sender when it goes.
struct Lease {
    _map: Arc<Mapped>,
    name: String,
    peer: Peer,
    bytes: usize,
}

impl Drop for Lease {
    fn drop(&mut self) {
        track_external_bytes(-(self.bytes as isize));
        owed::queue_release(self.peer, Owed::Segment(std::mem::take(&mut self.name)));
    }
}

/// Receivers' mappings by segment name, most recently used last.
static CACHE: Mutex<Vec<(String, Arc<Mapped>)>> = Mutex::new(Vec::new());

/// Maps segment `name` (from `peer`) as a storage of `len` elements of `dtype`.
pub fn import(name: &str, dtype: DType, len: usize, peer: Peer) -> io::Result<Storage> {
    let bytes = len
        .checked_mul(dtype.size_of())
        .filter(|b| *b > 0)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "bad segment size"))?;
    let map = {
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        match cache.iter().position(|(n, _)| n == name) {
            Some(i) => {
                let entry = cache.remove(i);
                let m = entry.1.clone();
                cache.push(entry);
                m
            }
            None => {
                let ptr = map_existing(name, bytes)?;
                let m = Arc::new(Mapped { ptr, bytes });
                cache.push((name.to_string(), m.clone()));
                if cache.len() > CACHE_MAX_ENTRIES {
                    cache.remove(0);
                }
                m
            }
        }
    };
    if map.bytes != bytes {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "segment size changed"));
    }
    let ptr = map.ptr as *mut u8;
    track_external_bytes(bytes as isize);
    let lease = Lease {
        _map: map,
        name: name.to_string(),
        peer,
        bytes,
    };
    // SAFETY: the mapping holds `bytes` = len elements and lives as long as the lease, which the
    // storage owns.
    Ok(unsafe { Storage::from_external(dtype, ptr, len, Box::new(lease)) })
}

/// Forgets cached mappings of segments from `peer`'s process (it is gone).
pub fn forget_sender(run: &str, pid: u32) {
    let prefix = format!("{PREFIX}{run}-{pid}-");
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache.retain(|(n, _)| !n.starts_with(&prefix));
    drop(cache);
    sweep(&prefix);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(s: &Storage) -> Vec<f32> {
        // SAFETY: test storages, not shared.
        unsafe { s.as_slice::<f32>() }.to_vec()
    }

    #[test]
    fn segments_carry_storages_and_are_recycled() {
        let data: Vec<f32> = (0..300_000).map(|i| i as f32).collect();
        let s = Storage::from_slice(&data).unwrap();
        let mut pool = Pool::new("testpool");
        let name = pool.export(&s).unwrap();
        let back = import(&name, DType::Float, data.len(), Peer::Child(7)).unwrap();
        assert_eq!(floats(&back), data);
        // Not released yet: the next export needs a new segment.
        let other = pool.export(&s).unwrap();
        assert_ne!(other, name);
        drop(back);
        let released = owed::take_releases(|p| p == Peer::Child(7));
        assert!(
            released.iter().any(|(_, n)| *n == Owed::Segment(name.clone())),
            "{released:?}"
        );
        for (_, n) in released {
            pool.release(n);
        }
        let twice: Vec<f32> = data.iter().map(|x| x * 2.0).collect();
        let again = pool.export(&Storage::from_slice(&twice).unwrap()).unwrap();
        assert_eq!(again, name, "a released segment is reused");
        let back = import(&again, DType::Float, data.len(), Peer::Child(7)).unwrap();
        assert_eq!(floats(&back), twice);
        drop(back);
        drop(pool);
        assert!(open(&name, false).is_err(), "the pool removes its segments");
        owed::take_releases(|_| true);
    }

    #[test]
    fn bad_names_and_sizes_are_refused() {
        assert!(import("../etc/passwd", DType::Byte, 1, Peer::Parent).is_err());
        assert!(import("luatorch-../x", DType::Byte, 1, Peer::Parent).is_err());
        let s = Storage::from_slice(&[1u8, 2, 3]).unwrap();
        let mut pool = Pool::new("sizetest");
        let name = pool.export(&s).unwrap();
        assert!(import(&name, DType::Byte, 4, Peer::Parent).is_err());
        let name = Pool::new("sweeptest").export(&s).unwrap_or_default();
        crate::process::sweep::sweep_run("sweeptest");
        assert!(import(&name, DType::Byte, 3, Peer::Parent).is_err());
    }

    #[test]
    #[ignore]
    fn timing() {
        let s = Storage::new(DType::Float, 16 << 20).unwrap();
        let mut pool = Pool::new("timing");
        for _ in 0..4 {
            let t = std::time::Instant::now();
            let name = pool.export(&s).unwrap();
            let e = t.elapsed();
            let t = std::time::Instant::now();
            let back = import(&name, DType::Float, 16 << 20, Peer::Parent).unwrap();
            let i = t.elapsed();
            drop(back);
            for (_, n) in owed::take_releases(|_| true) {
                pool.release(n);
            }
            eprintln!("export {e:?} import {i:?}");
        }
    }
}
