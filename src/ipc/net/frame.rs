//! The frames of a client/server connection. Every frame starts with a 16-byte header:
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | magic `LTI1` |
//! | 4 | kind: 1 value message, 2 tensor, 3 storage, 4 goodbye, 5 lent CUDA tensor, 6 release |
//! | 5 | 0 |
//! | 6..8 | length of the description after the header (u16, little endian) |
//! | 8..16 | length of the body after the description (u64, little endian) |
//!
//! A value message's body is a value in wire form (`wire::value`) with nothing beside its `.t7`
//! body, of at most [`MAX_MESSAGE`] bytes (tensors travel in frames of their own). A tensor's
//! description is its element type, a contiguity flag, its number of dimensions and its sizes; its
//! body is its elements in row-major order, packed. A storage's description is its element type;
//! its body is its elements. A goodbye has neither: the peer closed the connection on purpose. A
//! lent CUDA tensor has no body: its description is the wire's descriptor of the device memory the
//! sender lends (`wire::cuda::Lent`) and the sender's view of it, which a receiver on the same
//! machine copies from device to device and then releases; a release's description names the
//! loan, and its body is empty or says why the copy failed. The sender waits for the release
//! before its tensor may change (as torch-ipc waited for its acknowledgement). Wire compatibility
//! with torch-ipc is not a goal (only our own implementation talks to itself); its two modes on one
//! socket, value messages and raw tensor transfers, are kept.

use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;
use crate::wire::cuda::{LENT_BYTES, Lent};
use crate::wire::dtype::{code as dtype_code, of as dtype_of};
use crate::wire::value::NOTHING_BESIDE;

pub const MAGIC: [u8; 4] = *b"LTI1";
pub const HEADER_LEN: usize = 16;
/// The largest value message, serialised. torch-ipc's limit was 16 KiB; tables of a few hundred
/// thousand numbers are common enough in allreduce code to allow more. Tensors have no limit.
pub const MAX_MESSAGE: usize = 16 << 20;
/// The most dimensions a tensor frame may describe.
pub const MAX_DIMS: usize = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Value = 1,
    Tensor = 2,
    Storage = 3,
    Bye = 4,
    Lent = 5,
    Release = 6,
}

impl Kind {
    fn of(code: u8) -> Option<Kind> {
        Some(match code {
            1 => Kind::Value,
            2 => Kind::Tensor,
            3 => Kind::Storage,
            4 => Kind::Bye,
            5 => Kind::Lent,
            6 => Kind::Release,
            _ => return None,
        })
    }

    /// What the peer sent, for error messages.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Value => "a message",
            Kind::Tensor => "a tensor",
            Kind::Storage => "a storage",
            Kind::Bye => "a goodbye",
            Kind::Lent => "a CUDA tensor",
            Kind::Release => "a release",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub kind: Kind,
    pub meta_len: usize,
    pub body_len: u64,
}

impl Header {
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[..4].copy_from_slice(&MAGIC);
        h[4] = self.kind as u8;
        h[6..8].copy_from_slice(&(self.meta_len as u16).to_le_bytes());
        h[8..16].copy_from_slice(&self.body_len.to_le_bytes());
        h
    }

    /// Reads and checks a header; what is wrong is described for the "malformed frame" error.
    pub fn decode(h: &[u8]) -> Result<Header> {
        if h.len() < HEADER_LEN || h[..4] != MAGIC {
            return Err(Error::corrupt(format!("bad frame start {:02x?}", &h[..h.len().min(8)])));
        }
        let kind = Kind::of(h[4]).ok_or_else(|| Error::corrupt(format!("unknown frame kind {}", h[4])))?;
        if h[5] != 0 {
            return Err(Error::corrupt(format!("bad frame flags {}", h[5])));
        }
        let meta_len = u16::from_le_bytes([h[6], h[7]]) as usize;
        let body_len = u64::from_le_bytes(h[8..16].try_into().expect("8 bytes"));
        let meta_ok = match kind {
            Kind::Value | Kind::Bye => meta_len == 0,
            Kind::Release => meta_len == 8,
            Kind::Lent => {
                meta_len >= LENT_META_FIXED
                    && (meta_len - LENT_META_FIXED).is_multiple_of(16)
                    && (meta_len - LENT_META_FIXED) / 16 <= MAX_DIMS
            }
            Kind::Tensor => meta_len >= 4 && (meta_len - 4).is_multiple_of(8) && (meta_len - 4) / 8 <= MAX_DIMS,
            Kind::Storage => meta_len == 4,
        };
        if !meta_ok {
            return Err(Error::corrupt(format!(
                "bad description length {meta_len} for {}",
                kind.noun()
            )));
        }
        match kind {
            Kind::Value if body_len > (MAX_MESSAGE + NOTHING_BESIDE.len()) as u64 => Err(Error::corrupt(format!(
                "message of {body_len} bytes (the limit is {MAX_MESSAGE})"
            ))),
            Kind::Bye if body_len != 0 => Err(Error::corrupt("goodbye with a body")),
            Kind::Lent if body_len != 0 => Err(Error::corrupt("lent CUDA tensor with a body")),
            Kind::Release if body_len > MAX_RELEASE_TEXT as u64 => {
                Err(Error::corrupt(format!("release of {body_len} bytes")))
            }
            _ => Ok(Header {
                kind,
                meta_len,
                body_len,
            }),
        }
    }
}

/// What a tensor frame says about its tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMeta {
    pub dtype: DType,
    pub contiguous: bool,
    pub size: Vec<usize>,
}

impl TensorMeta {
    /// Elements in the body (0 for no dimension, as Torch counts).
    pub fn numel(&self) -> Option<usize> {
        if self.size.is_empty() {
            return Some(0);
        }
        self.size.iter().try_fold(1usize, |a, &s| a.checked_mul(s))
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut m = Vec::with_capacity(4 + 8 * self.size.len());
        m.push(dtype_code(self.dtype));
        m.push(self.contiguous as u8);
        m.extend_from_slice(&(self.size.len() as u16).to_le_bytes());
        for &s in &self.size {
            m.extend_from_slice(&(s as u64).to_le_bytes());
        }
        m
    }

    /// Reads a description and checks it against the body length of its header.
    pub fn decode(m: &[u8], body_len: u64) -> Result<TensorMeta> {
        if m.len() < 4 {
            return Err(Error::corrupt("short tensor description"));
        }
        let dtype = dtype_of(m[0])?;
        if m[1] > 1 {
            return Err(Error::corrupt(format!("bad tensor flags {}", m[1])));
        }
        let ndim = u16::from_le_bytes([m[2], m[3]]) as usize;
        if m.len() != 4 + 8 * ndim {
            return Err(Error::corrupt(
                "tensor description length does not match its dimensions",
            ));
        }
        let mut size = Vec::with_capacity(ndim);
        for c in m[4..].chunks_exact(8) {
            let s = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            size.push(usize::try_from(s).map_err(|_| Error::corrupt(format!("tensor size {s} too large")))?);
        }
        let meta = TensorMeta {
            dtype,
            contiguous: m[1] == 1,
            size,
        };
        let bytes = meta
            .numel()
            .and_then(|n| n.checked_mul(dtype.size_of()))
            .ok_or_else(|| Error::corrupt("tensor sizes overflow"))?;
        if bytes as u64 != body_len {
            return Err(Error::corrupt(format!(
                "tensor of {bytes} bytes in a body of {body_len} bytes"
            )));
        }
        Ok(meta)
    }

    /// `torch.FloatTensor of size 2x3` (or `with no dimension`), non-contiguous noted.
    pub fn describe(&self) -> String {
        let shape = if self.size.is_empty() {
            "with no dimension".to_string()
        } else {
            format!(
                "of size {}",
                self.size.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("x")
            )
        };
        let layout = if self.contiguous { "" } else { " (non-contiguous)" };
        format!("{} {shape}{layout}", self.dtype.tensor_typename())
    }
}

/// Bytes of a lent CUDA tensor's description before its sizes and strides.
pub const LENT_META_FIXED: usize = LENT_BYTES + 8 + 4;
/// The longest reason a release may give.
pub const MAX_RELEASE_TEXT: usize = 4096;

/// What a lent CUDA tensor's frame says: the device memory lent, and the sender's view of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LentView {
    pub lent: Lent,
    /// The view: storage offset (elements), sizes and strides.
    pub view_offset: u64,
    pub size: Vec<usize>,
    pub stride: Vec<usize>,
}

impl LentView {
    pub fn encode(&self) -> Vec<u8> {
        let mut m = Vec::with_capacity(LENT_META_FIXED + 16 * self.size.len());
        m.extend_from_slice(&self.lent.encode());
        m.extend_from_slice(&self.view_offset.to_le_bytes());
        m.extend_from_slice(&(self.size.len() as u16).to_le_bytes());
        m.extend_from_slice(&[0, 0]);
        for &x in self.size.iter().chain(&self.stride) {
            m.extend_from_slice(&(x as u64).to_le_bytes());
        }
        m
    }

    /// Reads a description, checking that the view lies inside the lent memory.
    pub fn decode(m: &[u8]) -> Result<LentView> {
        if m.len() < LENT_META_FIXED {
            return Err(Error::corrupt("short CUDA tensor description"));
        }
        let u64_at = |i: usize| u64::from_le_bytes(m[i..i + 8].try_into().expect("8 bytes"));
        let ndim = u16::from_le_bytes([m[LENT_BYTES + 8], m[LENT_BYTES + 9]]) as usize;
        if m.len() != LENT_META_FIXED + 16 * ndim || m[LENT_BYTES + 10..LENT_META_FIXED] != [0, 0] {
            return Err(Error::corrupt(
                "CUDA tensor description length does not match its dimensions",
            ));
        }
        let dims = (0..2 * ndim)
            .map(|i| {
                usize::try_from(u64_at(LENT_META_FIXED + 8 * i)).map_err(|_| Error::corrupt("tensor size too large"))
            })
            .collect::<Result<Vec<usize>>>()?;
        let view = LentView {
            lent: Lent::decode(&m[..LENT_BYTES])?,
            view_offset: u64_at(LENT_BYTES),
            size: dims[..ndim].to_vec(),
            stride: dims[ndim..].to_vec(),
        };
        let extent = view
            .size
            .iter()
            .zip(&view.stride)
            .try_fold(view.view_offset, |end, (&s, &st)| match s {
                0 => Some(end),
                s => ((s - 1) as u64).checked_mul(st as u64)?.checked_add(end),
            })
            .ok_or_else(|| Error::corrupt("CUDA tensor view overflows"))?;
        let numel = view.size.iter().try_fold(1u64, |a, &s| a.checked_mul(s as u64));
        if ndim == 0 || numel == Some(0) || extent >= view.lent.len {
            return Err(Error::corrupt("CUDA tensor view is empty or lies outside its storage"));
        }
        Ok(view)
    }

    /// `torch.CudaTensor of size 2x3`.
    pub fn describe(&self) -> String {
        let size: Vec<String> = self.size.iter().map(|s| s.to_string()).collect();
        format!(
            "{} of size {}",
            crate::cuda::ops::tensor_typename(self.lent.dtype),
            size.join("x")
        )
    }
}

pub fn encode_storage_meta(dtype: DType) -> [u8; 4] {
    [dtype_code(dtype), 0, 0, 0]
}

/// A storage frame's element type and length, checked against its body length.
pub fn decode_storage_meta(m: &[u8], body_len: u64) -> Result<(DType, usize)> {
    if m.len() != 4 || m[1..] != [0, 0, 0] {
        return Err(Error::corrupt("bad storage description"));
    }
    let dtype = dtype_of(m[0])?;
    let es = dtype.size_of() as u64;
    if !body_len.is_multiple_of(es) {
        return Err(Error::corrupt(format!(
            "storage body of {body_len} bytes is not a whole number of {}s",
            dtype.name()
        )));
    }
    let len = usize::try_from(body_len / es).map_err(|_| Error::corrupt("storage too large"))?;
    Ok((dtype, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_and_checks() {
        let h = Header {
            kind: Kind::Tensor,
            meta_len: 4 + 16,
            body_len: 24,
        };
        assert_eq!(Header::decode(&h.encode()).unwrap(), h);
        let mut bad = h.encode();
        bad[0] = b'X';
        assert!(Header::decode(&bad).is_err());
        let mut bad = h.encode();
        bad[4] = 9;
        assert!(
            Header::decode(&bad)
                .unwrap_err()
                .message()
                .contains("unknown frame kind")
        );
        let big = Header {
            kind: Kind::Value,
            meta_len: 0,
            body_len: (MAX_MESSAGE + NOTHING_BESIDE.len()) as u64 + 1,
        };
        assert!(Header::decode(&big.encode()).is_err());
    }

    #[test]
    fn tensor_meta_round_trip_and_checks() {
        let m = TensorMeta {
            dtype: DType::Float,
            contiguous: false,
            size: vec![2, 3],
        };
        assert_eq!(TensorMeta::decode(&m.encode(), 24).unwrap(), m);
        assert!(TensorMeta::decode(&m.encode(), 25).is_err());
        let huge = TensorMeta {
            dtype: DType::Double,
            contiguous: true,
            size: vec![usize::MAX, 2],
        };
        assert!(TensorMeta::decode(&huge.encode(), 0).is_err());
        let empty = TensorMeta {
            dtype: DType::Byte,
            contiguous: true,
            size: vec![],
        };
        assert_eq!(TensorMeta::decode(&empty.encode(), 0).unwrap(), empty);
        assert_eq!(m.describe(), "torch.FloatTensor of size 2x3 (non-contiguous)");
    }

    #[test]
    fn lent_views_round_trip_and_checks() {
        let m = LentView {
            lent: crate::wire::cuda::example(),
            view_offset: 40,
            size: vec![4, 20],
            stride: vec![20, 1],
        };
        let bytes = m.encode();
        assert_eq!(bytes.len(), LENT_META_FIXED + 32);
        assert_eq!(LentView::decode(&bytes).unwrap(), m);
        assert_eq!(m.describe(), "torch.CudaDoubleTensor of size 4x20");
        // Past the storage's end, overflowing strides, and a cut description are refused.
        let past = LentView {
            view_offset: 121,
            ..m.clone()
        };
        assert!(LentView::decode(&past.encode()).is_err());
        let huge = LentView {
            stride: vec![usize::MAX, 1],
            ..m.clone()
        };
        assert!(LentView::decode(&huge.encode()).is_err());
        assert!(LentView::decode(&bytes[..bytes.len() - 1]).is_err());
        let h = Header {
            kind: Kind::Lent,
            meta_len: bytes.len(),
            body_len: 0,
        };
        assert_eq!(Header::decode(&h.encode()).unwrap(), h);
        assert!(Header::decode(&Header { body_len: 1, ..h }.encode()).is_err());
        let r = Header {
            kind: Kind::Release,
            meta_len: 8,
            body_len: 0,
        };
        assert_eq!(Header::decode(&r.encode()).unwrap(), r);
        assert!(Header::decode(&Header { meta_len: 0, ..r }.encode()).is_err());
    }

    #[test]
    fn storage_meta_checks() {
        assert_eq!(
            decode_storage_meta(&encode_storage_meta(DType::Int), 12).unwrap(),
            (DType::Int, 3)
        );
        assert!(decode_storage_meta(&encode_storage_meta(DType::Int), 13).is_err());
        assert!(decode_storage_meta(&[9, 0, 0, 0], 0).is_err());
    }
}
