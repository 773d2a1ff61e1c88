//! Device storages between processes of one machine: one protocol, *lend and release*.
//!
//! The sender lends device memory: it exports a CUDA IPC handle of memory that it keeps alive and
//! unchanged, and sends its descriptor, a [`Lent`], which names the loan by a number. The receiver
//! opens the handle and reads the memory (maps it as a storage of its own, or copies it into one),
//! and once it no longer reads it, sends a *release* naming the loan. Until the release arrives the
//! sender neither frees nor changes the memory; after it, the memory is the sender's again.
//!
//! Why this one protocol for both APIs: it is the only one that costs neither API a copy or a
//! wait it does not already have. `parallel.send` returns at once and its receiver keeps what
//! arrived, so a parallel sender lends a staged copy of each storage (the one device copy it needs
//! anyway, the value as it was when sent) and its receiver maps it without copying, releasing it
//! when the storage is collected. ipc's `send` waits until the receiver has copied into the tensor
//! it preallocated (torch-ipc's contract), so an ipc sender lends its tensor's own memory and the
//! release is the acknowledgement it waits for. Handle-and-acknowledge alone would make
//! `parallel.send` wait for its receiver's `receive` (a deadlock when two processes both send
//! first); staging alone would add a device copy to every ipc transfer. Lending and releasing is
//! in `cuda::share`; between machines, device bytes travel as frames instead (`value::Beside`).

use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;

/// Bytes in a CUDA IPC memory handle.
pub const HANDLE_BYTES: usize = 64;
/// Bytes of a [`Lent`] on the wire.
pub const LENT_BYTES: usize = 64 + 8 + 8 + 4 + 16 + 4 + 4 + 8 + 8;

/// Device memory lent to a process of this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lent {
    /// The loan, as the release names it (unique in the lender's process).
    pub loan: u64,
    /// The CUDA IPC handle of the allocation that holds the memory.
    pub handle: [u8; HANDLE_BYTES],
    /// Bytes from the allocation's start to the memory's.
    pub offset: u64,
    /// Elements of `dtype` lent.
    pub len: u64,
    pub dtype: DType,
    /// The lender's 0-based device ordinal, and the GPU's UUID (which names it in every process,
    /// whatever its CUDA_VISIBLE_DEVICES; all zeros when unknown, and then `device` is used).
    pub device: u32,
    pub uuid: [u8; 16],
    /// The lender's process and the memory's address there: a receiver in that very process (a
    /// thread of one th) reads it directly, since no process can open its own handle.
    pub pid: u32,
    pub addr: u64,
}

impl Lent {
    pub fn bytes(&self) -> usize {
        (self.len as usize).saturating_mul(self.dtype.size_of())
    }

    pub fn encode(&self) -> [u8; LENT_BYTES] {
        let mut m = [0u8; LENT_BYTES];
        m[..64].copy_from_slice(&self.handle);
        m[64..72].copy_from_slice(&self.offset.to_le_bytes());
        m[72..80].copy_from_slice(&self.len.to_le_bytes());
        m[80..84].copy_from_slice(&self.device.to_le_bytes());
        m[84..100].copy_from_slice(&self.uuid);
        m[100] = super::dtype::code(self.dtype);
        m[104..108].copy_from_slice(&self.pid.to_le_bytes());
        m[108..116].copy_from_slice(&self.addr.to_le_bytes());
        m[116..124].copy_from_slice(&self.loan.to_le_bytes());
        m
    }

    pub fn decode(m: &[u8]) -> Result<Lent> {
        if m.len() != LENT_BYTES || m[101..104] != [0, 0, 0] {
            return Err(Error::corrupt("a malformed CUDA IPC descriptor"));
        }
        let u64_at = |i: usize| u64::from_le_bytes(m[i..i + 8].try_into().expect("8 bytes"));
        let u32_at = |i: usize| u32::from_le_bytes(m[i..i + 4].try_into().expect("4 bytes"));
        Ok(Lent {
            handle: m[..64].try_into().expect("64 bytes"),
            offset: u64_at(64),
            len: u64_at(72),
            device: u32_at(80),
            uuid: m[84..100].try_into().expect("16 bytes"),
            dtype: super::dtype::of(m[100])?,
            pid: u32_at(104),
            addr: u64_at(108),
            loan: u64_at(116),
        })
    }
}

/// In a serde-encoded envelope, a `Lent` is its fixed bytes: one encoding wherever it goes.
impl serde::Serialize for Lent {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&self.encode()[..], s)
    }
}

impl<'de> serde::Deserialize<'de> for Lent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Lent, D::Error> {
        let bytes = <Vec<u8> as serde::Deserialize>::deserialize(d)?;
        Lent::decode(&bytes).map_err(serde::de::Error::custom)
    }
}

/// A descriptor for the tests of the wire and of its transports.
#[cfg(test)]
pub(crate) fn example() -> Lent {
    Lent {
        loan: 77,
        handle: [7; 64],
        offset: 256,
        len: 200,
        dtype: DType::Double,
        device: 1,
        uuid: [9; 16],
        pid: 1234,
        addr: 0x7f00_0000_1000,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_round_trip() {
        let l = example();
        assert_eq!(Lent::decode(&l.encode()).unwrap(), l);
        assert_eq!(l.bytes(), 1600);
        let via_serde: Lent = postcard::from_bytes(&postcard::to_allocvec(&l).unwrap()).unwrap();
        assert_eq!(via_serde, l);
        let mut bad = l.encode();
        bad[100] = 99;
        assert!(Lent::decode(&bad).is_err());
        assert!(Lent::decode(&l.encode()[1..]).is_err());
    }
}
