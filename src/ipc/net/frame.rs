//! The frames of a client/server connection. Every frame starts with a 16-byte header:
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | magic `LTI1` |
//! | 4 | kind: 1 value message, 2 tensor, 3 storage, 4 goodbye |
//! | 5 | 0 |
//! | 6..8 | length of the description after the header (u16, little endian) |
//! | 8..16 | length of the body after the description (u64, little endian) |
//!
//! A value message's body is one `.t7` binary `writeObject` (at most [`MAX_MESSAGE`] bytes). A
//! tensor's description is its element type, a contiguity flag, its number of dimensions and its
//! sizes; its body is its elements in row-major order, packed. A storage's description is its
//! element type; its body is its elements. A goodbye has neither: the peer closed the connection
//! on purpose. Wire compatibility with torch-ipc is not a goal (only our own implementation talks
//! to itself); its two modes on one socket, value messages and raw tensor transfers, are kept.

use crate::torch::dtype::DType;

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
}

impl Kind {
    fn of(code: u8) -> Option<Kind> {
        Some(match code {
            1 => Kind::Value,
            2 => Kind::Tensor,
            3 => Kind::Storage,
            4 => Kind::Bye,
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
    pub fn decode(h: &[u8]) -> Result<Header, String> {
        if h.len() < HEADER_LEN || h[..4] != MAGIC {
            return Err(format!("bad frame start {:02x?}", &h[..h.len().min(8)]));
        }
        let kind = Kind::of(h[4]).ok_or_else(|| format!("unknown frame kind {}", h[4]))?;
        if h[5] != 0 {
            return Err(format!("bad frame flags {}", h[5]));
        }
        let meta_len = u16::from_le_bytes([h[6], h[7]]) as usize;
        let body_len = u64::from_le_bytes(h[8..16].try_into().expect("8 bytes"));
        let meta_ok = match kind {
            Kind::Value | Kind::Bye => meta_len == 0,
            Kind::Tensor => meta_len >= 4 && (meta_len - 4).is_multiple_of(8) && (meta_len - 4) / 8 <= MAX_DIMS,
            Kind::Storage => meta_len == 4,
        };
        if !meta_ok {
            return Err(format!("bad description length {meta_len} for {}", kind.noun()));
        }
        match kind {
            Kind::Value if body_len > MAX_MESSAGE as u64 => {
                Err(format!("message of {body_len} bytes (the limit is {MAX_MESSAGE})"))
            }
            Kind::Bye if body_len != 0 => Err("goodbye with a body".into()),
            _ => Ok(Header {
                kind,
                meta_len,
                body_len,
            }),
        }
    }
}

fn dtype_code(d: DType) -> u8 {
    DType::ALL.iter().position(|x| *x == d).unwrap_or(0) as u8
}

fn dtype_of(code: u8) -> Result<DType, String> {
    DType::ALL
        .get(code as usize)
        .copied()
        .ok_or_else(|| format!("unknown element type {code}"))
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
    pub fn decode(m: &[u8], body_len: u64) -> Result<TensorMeta, String> {
        if m.len() < 4 {
            return Err("short tensor description".into());
        }
        let dtype = dtype_of(m[0])?;
        if m[1] > 1 {
            return Err(format!("bad tensor flags {}", m[1]));
        }
        let ndim = u16::from_le_bytes([m[2], m[3]]) as usize;
        if m.len() != 4 + 8 * ndim {
            return Err("tensor description length does not match its dimensions".into());
        }
        let mut size = Vec::with_capacity(ndim);
        for c in m[4..].chunks_exact(8) {
            let s = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            size.push(usize::try_from(s).map_err(|_| format!("tensor size {s} too large"))?);
        }
        let meta = TensorMeta {
            dtype,
            contiguous: m[1] == 1,
            size,
        };
        let bytes = meta
            .numel()
            .and_then(|n| n.checked_mul(dtype.size_of()))
            .ok_or("tensor sizes overflow")?;
        if bytes as u64 != body_len {
            return Err(format!("tensor of {bytes} bytes in a body of {body_len} bytes"));
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

pub fn encode_storage_meta(dtype: DType) -> [u8; 4] {
    [dtype_code(dtype), 0, 0, 0]
}

/// A storage frame's element type and length, checked against its body length.
pub fn decode_storage_meta(m: &[u8], body_len: u64) -> Result<(DType, usize), String> {
    if m.len() != 4 || m[1..] != [0, 0, 0] {
        return Err("bad storage description".into());
    }
    let dtype = dtype_of(m[0])?;
    let es = dtype.size_of() as u64;
    if !body_len.is_multiple_of(es) {
        return Err(format!(
            "storage body of {body_len} bytes is not a whole number of {}s",
            dtype.name()
        ));
    }
    let len = usize::try_from(body_len / es).map_err(|_| "storage too large".to_string())?;
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
        assert!(Header::decode(&bad).unwrap_err().contains("unknown frame kind"));
        let big = Header {
            kind: Kind::Value,
            meta_len: 0,
            body_len: MAX_MESSAGE as u64 + 1,
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
    fn storage_meta_checks() {
        assert_eq!(
            decode_storage_meta(&encode_storage_meta(DType::Int), 12).unwrap(),
            (DType::Int, 3)
        );
        assert!(decode_storage_meta(&encode_storage_meta(DType::Int), 13).is_err());
        assert!(decode_storage_meta(&[9, 0, 0, 0], 0).is_err());
    }
}
