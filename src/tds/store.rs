//! tds's containers in plain Rust, off the Lua heap: a hash table that keeps its entries in the
//! order they were made, a vector, and an atomic counter. Elements are numbers, booleans, strings,
//! tensors, storages, the containers themselves, and the C objects of `tds.elem.addctype`.
//!
//! Each container sits behind a mutex: threads share them by reference, and one thread may write
//! while another reads (which was a data race in the original's C).

use std::hash::{BuildHasher, Hash as _, Hasher};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use hashbrown::HashTable;

use crate::error::{Error, Result};
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::Tensor;

/// A C object stored through `tds.elem.addctype`: its pointer, the destructor the script named
/// (called once, when the element is dropped), and the class it was stored as.
pub struct Custom {
    pub ptr: usize,
    pub free: unsafe extern "C" fn(usize),
    pub class: Arc<str>,
}

impl Drop for Custom {
    fn drop(&mut self) {
        // SAFETY: the script handed the pointer over with this destructor (addctype's contract).
        unsafe { (self.free)(self.ptr) }
    }
}

/// One element (a value, or a hash key).
pub enum Elem {
    /// Only as a vector's value (a vector may hold nils); a removed hash entry.
    Nil,
    Bool(bool),
    Num(f64),
    Str(Box<[u8]>),
    Tensor(Box<Tensor>),
    Storage(Storage),
    Hash(Arc<Hash>),
    Vec(Arc<Vector>),
    Counter(Arc<Counter>),
    Custom(Box<Custom>),
}

/// What an element is compared and hashed by, borrowed: keys are looked up without making one.
/// Numbers compare by value (0 and -0 are one key); containers by identity; a tensor by its view
/// (storage, offset, sizes, strides): a script's tensor finds the entry it was stored under.
#[derive(Clone, Copy)]
pub enum Probe<'a> {
    Bool(bool),
    Num(f64),
    Str(&'a [u8]),
    Tensor(&'a Tensor),
    /// A container, storage or C object: its kind and address.
    Object(u8, usize),
}

fn same_view(a: &Tensor, b: &Tensor) -> bool {
    let storage = |t: &Tensor| t.storage.as_ref().map(|s| s.id());
    a.dtype == b.dtype && storage(a) == storage(b) && a.offset == b.offset && a.size == b.size && a.stride == b.stride
}

impl PartialEq for Probe<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Probe::Bool(a), Probe::Bool(b)) => a == b,
            (Probe::Num(a), Probe::Num(b)) => a == b,
            (Probe::Str(a), Probe::Str(b)) => a == b,
            (Probe::Tensor(a), Probe::Tensor(b)) => same_view(a, b),
            (Probe::Object(k, a), Probe::Object(l, b)) => k == l && a == b,
            _ => false,
        }
    }
}

impl Probe<'_> {
    fn hash_into(&self, h: &mut impl Hasher) {
        match *self {
            Probe::Bool(b) => (1u8, b).hash(h),
            // 0.0 == -0.0, so both hash as 0.0; NaN never gets here (it is not a key).
            Probe::Num(n) => (2u8, if n == 0.0 { 0u64 } else { n.to_bits() }).hash(h),
            Probe::Str(s) => (3u8, s).hash(h),
            Probe::Tensor(t) => (4u8, t.storage.as_ref().map(|s| s.id()), t.offset, &t.size).hash(h),
            Probe::Object(k, p) => (5u8, k, p).hash(h),
        }
    }
}

impl Elem {
    /// The key this element is, None for nil.
    pub fn probe(&self) -> Option<Probe<'_>> {
        Some(match self {
            Elem::Nil => return None,
            Elem::Bool(b) => Probe::Bool(*b),
            Elem::Num(n) => Probe::Num(*n),
            Elem::Str(s) => Probe::Str(s),
            Elem::Tensor(t) => Probe::Tensor(t),
            Elem::Storage(s) => Probe::Object(0, s.id()),
            Elem::Hash(x) => Probe::Object(1, Arc::as_ptr(x) as usize),
            Elem::Vec(x) => Probe::Object(2, Arc::as_ptr(x) as usize),
            Elem::Counter(x) => Probe::Object(3, Arc::as_ptr(x) as usize),
            Elem::Custom(c) => Probe::Object(4, c.ptr),
        })
    }

    /// A copy for another owner: containers deeply (their own copies of everything, storages
    /// included), other values with their storages shared. None for a C object (it cannot be
    /// copied without its type's help).
    pub fn deep_copy(&self) -> Result<Elem> {
        Ok(match self {
            Elem::Nil => Elem::Nil,
            Elem::Bool(b) => Elem::Bool(*b),
            Elem::Num(n) => Elem::Num(*n),
            Elem::Str(s) => Elem::Str(s.clone()),
            Elem::Tensor(t) => {
                let mut t = (**t).clone();
                if let Some(s) = t.storage.as_mut().filter(|s| !s.is_device()) {
                    *s = s.duplicate()?;
                }
                Elem::Tensor(Box::new(t))
            }
            Elem::Storage(s) if !s.is_device() => Elem::Storage(s.duplicate()?),
            Elem::Storage(s) => Elem::Storage(s.clone()),
            Elem::Hash(h) => Elem::Hash(Arc::new(h.deep_copy()?)),
            Elem::Vec(v) => Elem::Vec(Arc::new(v.deep_copy()?)),
            Elem::Counter(c) => Elem::Counter(Arc::new(Counter::new(c.get()))),
            Elem::Custom(c) => {
                return Err(Error::dtype(format!(
                    "cannot copy a {} stored in a tds container",
                    c.class
                )));
            }
        })
    }
}

fn hasher() -> &'static foldhash::fast::RandomState {
    static STATE: OnceLock<foldhash::fast::RandomState> = OnceLock::new();
    STATE.get_or_init(foldhash::fast::RandomState::default)
}

fn hash_of(p: &Probe) -> u64 {
    let mut h = hasher().build_hasher();
    p.hash_into(&mut h);
    h.finish()
}

/// The hash of a stored key (live keys are never nil).
fn rehash(key: &Elem) -> u64 {
    key.probe().map_or(0, |p| hash_of(&p))
}

/// The entries of a hash, in the order their keys were first stored. A removed entry leaves a
/// hole (key `Nil`), so that removing during a walk never moves what the walk has yet to see;
/// holes are squeezed out when a new key would otherwise grow the list past twice the live count.
#[derive(Default)]
pub struct HashStore {
    index: HashTable<u32>,
    entries: Vec<(Elem, Elem)>,
    live: usize,
}

/// The limit on entries of one hash (positions are 32-bit).
const MAX_ENTRIES: usize = u32::MAX as usize;

impl HashStore {
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    fn find(&self, key: &Probe) -> Option<usize> {
        self.find_hashed(hash_of(key), key)
    }

    fn find_hashed(&self, hash: u64, key: &Probe) -> Option<usize> {
        let entries = &self.entries;
        self.index
            .find(hash, |&i| entries[i as usize].0.probe().is_some_and(|p| p == *key))
            .map(|&i| i as usize)
    }

    pub fn get(&self, key: &Probe) -> Option<&Elem> {
        self.find(key).map(|i| &self.entries[i].1)
    }

    /// Stores `value` under `key` (made by `make_key` only when the key is new); returns what was
    /// there. A `Nil` value removes the key.
    pub fn set(&mut self, key: &Probe, make_key: impl FnOnce() -> Elem, value: Elem) -> Result<Option<Elem>> {
        if matches!(value, Elem::Nil) {
            return Ok(self.remove(key));
        }
        let hash = hash_of(key);
        if let Some(i) = self.find_hashed(hash, key) {
            return Ok(Some(std::mem::replace(&mut self.entries[i].1, value)));
        }
        self.push(hash, make_key(), value)?;
        Ok(None)
    }

    /// As `set`, for a key that is already an element (nil keys are refused by the caller).
    pub fn set_owned(&mut self, key: Elem, value: Elem) -> Result<Option<Elem>> {
        let Some(probe) = key.probe() else {
            return Err(Error::argument("hash index is nil"));
        };
        if matches!(value, Elem::Nil) {
            return Ok(self.remove(&probe));
        }
        let hash = hash_of(&probe);
        if let Some(i) = self.find_hashed(hash, &probe) {
            return Ok(Some(std::mem::replace(&mut self.entries[i].1, value)));
        }
        self.push(hash, key, value)?;
        Ok(None)
    }

    /// Appends a new key (not in the index yet) with its hash.
    fn push(&mut self, hash: u64, key: Elem, value: Elem) -> Result<()> {
        if self.entries.len() == self.entries.capacity() && self.entries.len() >= 2 * self.live.max(8) {
            self.squeeze();
        }
        if self.entries.len() >= MAX_ENTRIES {
            return Err(Error::shape("too many entries"));
        }
        self.entries
            .try_reserve(1)
            .map_err(|_| Error::memory("out of memory"))?;
        let i = self.entries.len() as u32;
        let entries = &self.entries;
        self.index.insert_unique(hash, i, |&j| rehash(&entries[j as usize].0));
        self.entries.push((key, value));
        self.live += 1;
        Ok(())
    }

    pub fn remove(&mut self, key: &Probe) -> Option<Elem> {
        let entries = &self.entries;
        let found = self
            .index
            .find_entry(hash_of(key), |&i| {
                entries[i as usize].0.probe().is_some_and(|p| p == *key)
            })
            .ok()?;
        let (i, _) = found.remove();
        self.live -= 1;
        let (_key, value) = std::mem::replace(&mut self.entries[i as usize], (Elem::Nil, Elem::Nil));
        // A trailing hole can go at once (a walk past the end ends anyway).
        while matches!(self.entries.last(), Some((Elem::Nil, _))) {
            self.entries.pop();
        }
        Some(value)
    }

    /// Drops the holes, renumbering the live entries.
    fn squeeze(&mut self) {
        self.entries.retain(|(k, _)| !matches!(k, Elem::Nil));
        self.index.clear();
        for (i, (k, _)) in self.entries.iter().enumerate() {
            let entries = &self.entries;
            self.index
                .insert_unique(rehash(k), i as u32, |&j| rehash(&entries[j as usize].0));
        }
    }

    /// The first live entry at or after position `from`, with its position.
    pub fn next(&self, from: usize) -> Option<(usize, &Elem, &Elem)> {
        self.entries
            .get(from..)?
            .iter()
            .enumerate()
            .find(|(_, (k, _))| !matches!(k, Elem::Nil))
            .map(|(i, (k, v))| (from + i, k, v))
    }

    pub fn clear(&mut self) -> Vec<(Elem, Elem)> {
        self.index.clear();
        self.live = 0;
        std::mem::take(&mut self.entries)
    }
}

/// A tds.Hash.
#[derive(Default)]
pub struct Hash(Mutex<HashStore>);

impl Hash {
    pub fn lock(&self) -> MutexGuard<'_, HashStore> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn deep_copy(&self) -> Result<Hash> {
        let src = self.lock();
        let mut out = HashStore::default();
        let mut at = 0;
        while let Some((i, k, v)) = src.next(at) {
            out.set_owned(k.deep_copy()?, v.deep_copy()?)?;
            at = i + 1;
        }
        Ok(Hash(Mutex::new(out)))
    }
}

/// The values of a tds.Vec, position 0 being Lua's index 1.
#[derive(Default)]
pub struct Vector(Mutex<Vec<Elem>>);

/// The limit on the length of one vector (far beyond memory, but it keeps the sizes in range).
pub const MAX_LEN: usize = 1 << 48;

impl Vector {
    pub fn lock(&self) -> MutexGuard<'_, Vec<Elem>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn deep_copy(&self) -> Result<Vector> {
        let src = self.lock();
        let copy: Result<Vec<Elem>> = src.iter().map(Elem::deep_copy).collect();
        Ok(Vector(Mutex::new(copy?)))
    }
}

/// Grows `v` with nils to `len` (or cuts it), refusing lengths no memory could hold.
pub fn resize(v: &mut Vec<Elem>, len: usize) -> Result<()> {
    if len > MAX_LEN {
        return Err(Error::shape(format!("size {len} is too large")));
    }
    if len > v.len() {
        v.try_reserve(len - v.len())
            .map_err(|_| Error::memory("out of memory"))?;
        v.resize_with(len, || Elem::Nil);
    } else {
        v.truncate(len);
    }
    Ok(())
}

/// A tds.AtomicCounter.
pub struct Counter(AtomicI64);

impl Counter {
    pub fn new(v: i64) -> Counter {
        Counter(AtomicI64::new(v))
    }

    /// Adds one; returns the value before.
    pub fn inc(&self) -> i64 {
        self.0.fetch_add(1, Ordering::SeqCst)
    }

    pub fn get(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }

    pub fn set(&self, v: i64) {
        self.0.store(v, Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Elem {
        Elem::Str(x.as_bytes().into())
    }

    fn set(h: &mut HashStore, k: Elem, v: Elem) {
        h.set_owned(k, v).unwrap();
    }

    fn num(e: Option<&Elem>) -> Option<f64> {
        match e {
            Some(Elem::Num(n)) => Some(*n),
            _ => None,
        }
    }

    #[test]
    fn keys_keep_their_order_and_removal_leaves_the_rest_in_place() {
        let mut h = HashStore::default();
        for i in 0..100 {
            set(&mut h, Elem::Num(i as f64), Elem::Num((i * 2) as f64));
        }
        set(&mut h, s("a"), Elem::Num(-1.0));
        assert_eq!(h.len(), 101);
        assert_eq!(num(h.get(&Probe::Num(7.0))), Some(14.0));
        assert_eq!(num(h.get(&Probe::Str(b"a"))), Some(-1.0));
        assert!(h.get(&Probe::Str(b"7")).is_none());
        // -0 and 0 are one key.
        set(&mut h, Elem::Num(-0.0), Elem::Num(5.0));
        assert_eq!(num(h.get(&Probe::Num(0.0))), Some(5.0));
        assert_eq!(h.len(), 101);
        // Remove every other key while walking: the walk still sees every key once.
        let mut seen = 0;
        let mut at = 0;
        while let Some((i, k, _)) = h.next(at) {
            let k = match k {
                Elem::Num(n) => *n,
                _ => -1.0,
            };
            if k >= 0.0 && (k as i64) % 2 == 0 {
                h.remove(&Probe::Num(k));
            }
            seen += 1;
            at = i + 1;
        }
        assert_eq!(seen, 101);
        assert_eq!(h.len(), 51);
        assert_eq!(num(h.get(&Probe::Num(9.0))), Some(18.0));
    }

    #[test]
    fn holes_are_squeezed_out_as_the_hash_grows() {
        let mut h = HashStore::default();
        for round in 0..50 {
            for i in 0..1000 {
                set(&mut h, Elem::Num((round * 1000 + i) as f64), Elem::Bool(true));
            }
            for i in 0..1000 {
                h.remove(&Probe::Num((round * 1000 + i) as f64));
            }
            set(&mut h, Elem::Num(-1.0 - round as f64), Elem::Bool(true));
        }
        assert_eq!(h.len(), 50);
        assert!(h.entries.len() < 5000, "{} entries for 50 keys", h.entries.len());
        assert!(h.get(&Probe::Num(-50.0)).is_some());
    }
}
