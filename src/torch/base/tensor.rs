//! A tensor as Torch has it: a storage, an offset into it, sizes and strides, and what can be told
//! from them alone (element count, contiguity, the extent it reaches into its storage). The view
//! operations are in `layout`. Dimensions and indices are 0-based in Rust; the Lua layer converts
//! from Torch's 1-based ones.

use super::dtype::DType;
use super::storage::Storage;
use crate::error::{Error, Result};

#[derive(Clone, Debug)]
pub struct Tensor {
    pub dtype: DType,
    /// None for a tensor that was never given memory (`torch.Tensor()`).
    pub storage: Option<Storage>,
    /// In elements, 0-based.
    pub offset: usize,
    pub size: Vec<usize>,
    pub stride: Vec<usize>,
}

/// Row-major strides of a contiguous tensor of `size`.
pub fn contiguous_strides(size: &[usize]) -> Vec<usize> {
    let mut stride = vec![0; size.len()];
    let mut acc = 1usize;
    for d in (0..size.len()).rev() {
        stride[d] = acc;
        acc = acc.saturating_mul(size[d].max(1));
    }
    stride
}

/// Product of sizes, or an error when it overflows.
pub fn checked_numel(size: &[usize]) -> Result<usize> {
    size.iter()
        .try_fold(1usize, |acc, &s| acc.checked_mul(s))
        .ok_or_else(|| {
            let dims: Vec<String> = size.iter().map(usize::to_string).collect();
            Error::shape(format!(
                "a tensor of size {} is too large (more than 2^64 elements)",
                dims.join("x")
            ))
        })
}

impl Tensor {
    /// An empty tensor with no storage and no dimension.
    pub fn empty(dtype: DType) -> Tensor {
        Tensor {
            dtype,
            storage: None,
            offset: 0,
            size: Vec::new(),
            stride: Vec::new(),
        }
    }

    /// A contiguous, zero-filled tensor of `size`.
    pub fn zeros(dtype: DType, size: &[usize]) -> Result<Tensor> {
        let n = checked_numel(size)?;
        // Storage still reports in words (crate::parallel and crate::ipc build on that).
        let storage = Storage::new(dtype, n)?;
        Ok(Tensor {
            dtype,
            storage: Some(storage),
            offset: 0,
            size: size.to_vec(),
            stride: contiguous_strides(size),
        })
    }

    /// A 1-D view of a whole storage.
    pub fn of_storage(storage: Storage) -> Tensor {
        let n = storage.len();
        Tensor {
            dtype: storage.dtype(),
            size: if n == 0 { vec![] } else { vec![n] },
            stride: if n == 0 { vec![] } else { vec![1] },
            storage: Some(storage),
            offset: 0,
        }
    }

    pub fn dim(&self) -> usize {
        self.size.len()
    }

    /// Number of elements (0 for a tensor with no dimension).
    pub fn numel(&self) -> usize {
        if self.size.is_empty() {
            0
        } else {
            self.size.iter().product()
        }
    }

    pub fn is_contiguous(&self) -> bool {
        let mut expected = 1;
        for d in (0..self.dim()).rev() {
            if self.size[d] != 1 {
                if self.stride[d] != expected {
                    return false;
                }
                expected *= self.size[d];
            }
        }
        true
    }

    pub fn same_size(&self, other: &Tensor) -> bool {
        self.size == other.size
    }

    /// One past the largest element offset a view touches (0 when it has no element).
    pub fn extent(&self) -> usize {
        if self.numel() == 0 {
            return self.offset;
        }
        self.offset
            + self
                .size
                .iter()
                .zip(&self.stride)
                .map(|(&s, &st)| (s - 1) * st)
                .sum::<usize>()
            + 1
    }

    /// The storage, checked to cover every element of the view.
    pub fn storage_checked(&self) -> Result<&Storage> {
        match &self.storage {
            Some(s) if s.len() >= self.extent() => Ok(s),
            Some(_) => Err(Error::shape("tensor view extends past the end of its storage")),
            None => Err(Error::argument("tensor has no storage")),
        }
    }

    /// Whether two views are the same tensor (same memory, offset, sizes and strides).
    pub fn same_view(&self, other: &Tensor) -> bool {
        let same_storage = match (&self.storage, &other.storage) {
            (Some(x), Some(y)) => x.same(y),
            (None, None) => true,
            _ => false,
        };
        same_storage && self.offset == other.offset && self.size == other.size && self.stride == other.stride
    }

    /// Whether two views share memory (the same storage, whatever part of it they see).
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        matches!((&self.storage, &other.storage), (Some(x), Some(y)) if x.same(y))
    }
}
