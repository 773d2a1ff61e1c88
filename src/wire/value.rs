//! A Lua value in wire form: the `.t7` binary body of one `writeObject`, and the storages left
//! out of it, which travel beside it. Each storage beside the body has a descriptor ([`Beside`])
//! saying where it is: a shared-memory segment, the next raw frame of the message, device memory
//! lent by CUDA IPC handle, or device bytes as a raw frame. The body refers to them in order.
//!
//! On the wire a value is its descriptors (postcard) followed by the body, in one frame; the raw
//! frames its descriptors announce follow that frame, in order. Which storages go beside (large
//! ones, every device one) is the `.t7` walker's business (`torch::t7::serialize_beside`), and
//! where each goes (shared memory for a peer on this machine, a frame for one far away) the
//! sender's.

use serde::{Deserialize, Serialize};

use super::cuda::Lent;
use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;
use crate::torch::base::storage::Storage;

/// Host storages of at least this many bytes leave the `.t7` body (device storages always do).
pub const BESIDE_MIN_BYTES: usize = 1 << 20;

/// The descriptors of a value with nothing beside its body.
pub const NOTHING_BESIDE: &[u8] = &[0];

/// Where one storage left out of a value's body is found.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Beside {
    /// A file in /dev/shm that the receiver maps, then tells the sender it is done with.
    Shm {
        name: String,
        #[serde(with = "super::dtype")]
        dtype: DType,
        len: u64,
    },
    /// The next raw frame of the message: `len` elements of `dtype`.
    Frame {
        #[serde(with = "super::dtype")]
        dtype: DType,
        len: u64,
    },
    /// A device storage lent by CUDA IPC handle, to a peer on this machine.
    Lent(Lent),
    /// A device storage's bytes as the next raw frame (between machines): the receiver puts them
    /// on its current device.
    DeviceFrame {
        #[serde(with = "super::dtype")]
        dtype: DType,
        len: u64,
    },
}

/// Appends a value in wire form to `out`: the descriptors of what is beside the body, then the
/// body.
pub fn encode_into(out: &mut Vec<u8>, beside: &[Beside], t7: &[u8]) {
    out.reserve(t7.len() + 16 * beside.len() + 1);
    postcard::to_io(beside, &mut *out).expect("descriptors always encode");
    out.extend_from_slice(t7);
}

/// The part of a value in wire form before its body, for a transport that writes the two parts
/// from where they are.
pub fn descriptors(beside: &[Beside]) -> Vec<u8> {
    postcard::to_allocvec(beside).expect("descriptors always encode")
}

/// A value in wire form: what is beside the body, and the body.
pub fn decode(bytes: &[u8]) -> Result<(Vec<Beside>, &[u8])> {
    postcard::take_from_bytes(bytes).map_err(|e| Error::corrupt(format!("a malformed value: {e}")))
}

/// A host storage holding a raw frame's bytes, which must be `len` elements of `dtype`.
pub fn storage_from_frame(dtype: DType, len: u64, frame: Option<&Vec<u8>>) -> Result<Storage> {
    let bytes = frame.ok_or_else(|| Error::corrupt("a storage is missing"))?;
    let len = usize::try_from(len).map_err(|_| Error::corrupt("a storage has the wrong size"))?;
    if bytes.len() != len.saturating_mul(dtype.size_of()) {
        return Err(Error::corrupt("a storage has the wrong size"));
    }
    let s = Storage::new(dtype, len)?;
    // SAFETY: a fresh storage of exactly bytes.len() bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), s.data_ptr(), bytes.len()) };
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip() {
        let beside = vec![
            Beside::Shm {
                name: "luatorch-x".into(),
                dtype: DType::Float,
                len: 9,
            },
            Beside::Frame {
                dtype: DType::Byte,
                len: 2,
            },
        ];
        let mut bytes = b"prefix".to_vec();
        encode_into(&mut bytes, &beside, b"the body");
        let (got, body) = decode(&bytes[6..]).unwrap();
        assert_eq!(got, beside);
        assert_eq!(body, b"the body");
        let mut plain = Vec::new();
        encode_into(&mut plain, &[], b"x");
        assert_eq!(plain, b"\0x", "a value with nothing beside costs one byte");
        assert_eq!(descriptors(&[]), NOTHING_BESIDE);
        assert_eq!([descriptors(&beside), b"the body".to_vec()].concat(), &bytes[6..]);
        assert_eq!(decode(&[200, 1, 2]).unwrap_err().kind(), crate::error::Kind::Corrupt);
    }

    #[test]
    fn frames_must_hold_their_storage() {
        let s = storage_from_frame(DType::Short, 2, Some(&vec![1, 0, 2, 0])).unwrap();
        // SAFETY: a fresh storage nobody else holds.
        assert_eq!(unsafe { s.as_slice::<i16>() }, &[1, 2]);
        assert!(storage_from_frame(DType::Short, 3, Some(&vec![1, 0, 2, 0])).is_err());
        assert!(storage_from_frame(DType::Short, 2, None).is_err());
    }
}
