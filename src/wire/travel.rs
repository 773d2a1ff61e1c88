//! How each storage left beside a value's body travels: one rule for every transport, and what a
//! transport can do as its policy.
//!
//! The rule: a device storage is lent when the transport can lend it (CUDA IPC, to a peer on this
//! machine), else its bytes follow as a frame that the receiver puts on its device; a host
//! storage goes into a shared-memory segment when the transport can make one the peer maps, else
//! its bytes follow as a frame. A policy that cannot lend or make a segment (a peer on another
//! machine, staging that failed) falls back to the frame, which always works.
//!
//! The frames' bytes are left to the transport (parallel copies them into its message, the
//! cluster sends them in pieces straight from the storage), and so is getting a device storage's
//! bytes to the host: this layer knows no device.

use super::cuda::Lent;
use super::value::Beside;
use crate::torch::base::storage::Storage;

/// What one transport, for one peer, can do with a storage besides sending its bytes.
pub trait Policy {
    /// Lends the device storage `s` to the peer; None when this transport cannot.
    fn lend(&mut self, _s: &Storage) -> Option<Lent> {
        None
    }

    /// A shared-memory segment holding the host storage `s`, for the peer to map; None when this
    /// transport cannot make one.
    fn segment(&mut self, s: &Storage) -> Option<String>;
}

/// A storage whose bytes follow the value as frames, in order.
pub enum Bytes<'a> {
    /// A host storage: its own bytes.
    Host(&'a Storage),
    /// A device storage: its bytes once copied to the host.
    Device(&'a Storage),
}

/// Where each of `storages` goes under `policy`: the descriptors, in order, and the storages
/// whose bytes follow as frames.
pub fn place<'a>(storages: &'a [Storage], policy: &mut impl Policy) -> (Vec<Beside>, Vec<Bytes<'a>>) {
    let mut beside = Vec::with_capacity(storages.len());
    let mut frames = Vec::new();
    for s in storages {
        let (dtype, len) = (s.dtype(), s.len() as u64);
        if s.is_device() {
            match policy.lend(s) {
                Some(lent) => beside.push(Beside::Lent(lent)),
                None => {
                    beside.push(Beside::DeviceFrame { dtype, len });
                    frames.push(Bytes::Device(s));
                }
            }
        } else {
            match policy.segment(s) {
                Some(name) => beside.push(Beside::Shm { name, dtype, len }),
                None => {
                    beside.push(Beside::Frame { dtype, len });
                    frames.push(Bytes::Host(s));
                }
            }
        }
    }
    (beside, frames)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::base::dtype::DType;

    /// Makes a segment for every host storage, named after its length.
    struct Segments;

    impl Policy for Segments {
        fn segment(&mut self, s: &Storage) -> Option<String> {
            Some(format!("seg{}", s.len()))
        }
    }

    /// Can do nothing but frames.
    struct Far;

    impl Policy for Far {
        fn segment(&mut self, _s: &Storage) -> Option<String> {
            None
        }
    }

    #[test]
    fn host_storages_go_in_segments_where_the_policy_can_make_them() {
        let storages = vec![
            Storage::new(DType::Float, 3).unwrap(),
            Storage::new(DType::Byte, 5).unwrap(),
        ];
        let (beside, frames) = place(&storages, &mut Segments);
        assert!(frames.is_empty());
        assert_eq!(
            beside,
            vec![
                Beside::Shm {
                    name: "seg3".into(),
                    dtype: DType::Float,
                    len: 3
                },
                Beside::Shm {
                    name: "seg5".into(),
                    dtype: DType::Byte,
                    len: 5
                },
            ]
        );
        let (beside, frames) = place(&storages, &mut Far);
        assert_eq!(frames.len(), 2);
        assert!(matches!(frames[1], Bytes::Host(s) if s.len() == 5));
        assert_eq!(
            beside[0],
            Beside::Frame {
                dtype: DType::Float,
                len: 3
            }
        );
    }
}
