//! View arithmetic: narrow, select, transpose, permute, unfold, expand, squeeze, unsqueeze and
//! view compute a new offset, sizes and strides over the same storage; none copies data. Their
//! errors do not name an operation: the Lua method that called one names it.

use super::tensor::{Tensor, contiguous_strides};
use crate::error::{Error, Result};

impl Tensor {
    fn check_dim(&self, dim: usize) -> Result<()> {
        if dim >= self.dim() {
            return Err(Error::shape(format!(
                "dimension {} out of range of {}D tensor",
                dim + 1,
                self.dim()
            )));
        }
        Ok(())
    }

    /// `narrow(dim, start, len)`.
    pub fn narrow(&self, dim: usize, start: usize, len: usize) -> Result<Tensor> {
        self.check_dim(dim)?;
        if start + len > self.size[dim] || (len == 0 && start > self.size[dim]) {
            return Err(Error::shape(format!(
                "out of range (index {} and size {} for a dimension of size {})",
                start + 1,
                len,
                self.size[dim]
            )));
        }
        let mut t = self.clone();
        t.offset += start * self.stride[dim];
        t.size[dim] = len;
        Ok(t)
    }

    /// `select(dim, index)`: removes the dimension. On a 1-D tensor the result has no dimension
    /// (callers that want a number read the element instead).
    pub fn select(&self, dim: usize, index: usize) -> Result<Tensor> {
        self.check_dim(dim)?;
        if index >= self.size[dim] {
            return Err(Error::shape(format!(
                "index {} out of range for dimension of size {}",
                index + 1,
                self.size[dim]
            )));
        }
        let mut t = self.clone();
        t.offset += index * self.stride[dim];
        t.size.remove(dim);
        t.stride.remove(dim);
        Ok(t)
    }

    pub fn transpose(&self, d1: usize, d2: usize) -> Result<Tensor> {
        self.check_dim(d1)?;
        self.check_dim(d2)?;
        let mut t = self.clone();
        t.size.swap(d1, d2);
        t.stride.swap(d1, d2);
        Ok(t)
    }

    pub fn permute(&self, dims: &[usize]) -> Result<Tensor> {
        if dims.len() != self.dim() {
            return Err(Error::shape(format!(
                "expected {} dimensions, got {}",
                self.dim(),
                dims.len()
            )));
        }
        let mut seen = vec![false; self.dim()];
        for &d in dims {
            if d >= self.dim() || seen[d] {
                return Err(Error::argument("invalid permutation"));
            }
            seen[d] = true;
        }
        let mut t = self.clone();
        t.size = dims.iter().map(|&d| self.size[d]).collect();
        t.stride = dims.iter().map(|&d| self.stride[d]).collect();
        Ok(t)
    }

    /// `unfold(dim, size, step)`: a new last dimension of `size` slices taken every `step`.
    pub fn unfold(&self, dim: usize, size: usize, step: usize) -> Result<Tensor> {
        if self.dim() == 0 {
            return Err(Error::shape("cannot unfold an empty tensor"));
        }
        self.check_dim(dim)?;
        if size > self.size[dim] {
            return Err(Error::shape(format!(
                "size {size} larger than dimension of size {}",
                self.size[dim]
            )));
        }
        if step == 0 {
            return Err(Error::argument("step must be positive"));
        }
        let mut t = self.clone();
        t.size[dim] = (self.size[dim] - size) / step + 1;
        t.stride[dim] = self.stride[dim] * step;
        t.size.push(size);
        t.stride.push(self.stride[dim]);
        Ok(t)
    }

    /// `expand(sizes)`: dimensions of size 1 repeat with stride 0.
    pub fn expand(&self, size: &[usize]) -> Result<Tensor> {
        if size.len() < self.dim() {
            return Err(Error::shape(format!(
                "the number of sizes provided ({}) must be at least the number of dimensions ({})",
                size.len(),
                self.dim()
            )));
        }
        let lead = size.len() - self.dim();
        let mut t = self.clone();
        t.size = size.to_vec();
        t.stride = vec![0; size.len()];
        for (d, &want) in size.iter().enumerate().skip(lead) {
            let (os, ost) = (self.size[d - lead], self.stride[d - lead]);
            if os == want {
                t.stride[d] = ost;
            } else if os == 1 {
                t.stride[d] = 0;
            } else {
                return Err(Error::shape(format!(
                    "the expanded size of dimension {} ({}) must match the existing size ({}) when it is not 1",
                    d + 1,
                    want,
                    os
                )));
            }
        }
        Ok(t)
    }

    /// `squeeze()`: all dimensions of size 1 removed; `squeeze(dim)`: that one if it is of size 1.
    /// Torch keeps one dimension when every dimension has size 1.
    pub fn squeeze(&self, dim: Option<usize>) -> Result<Tensor> {
        let mut t = self.clone();
        match dim {
            Some(d) => {
                self.check_dim(d)?;
                if self.size[d] == 1 && self.dim() > 1 {
                    t.size.remove(d);
                    t.stride.remove(d);
                }
            }
            None => {
                let keep: Vec<usize> = (0..self.dim()).filter(|&d| self.size[d] != 1).collect();
                if keep.is_empty() && self.dim() > 0 {
                    t.size = vec![1];
                    t.stride = vec![1];
                } else {
                    t.size = keep.iter().map(|&d| self.size[d]).collect();
                    t.stride = keep.iter().map(|&d| self.stride[d]).collect();
                }
            }
        }
        Ok(t)
    }

    /// `unsqueeze(dim)`: a new dimension of size 1 before `dim` (0..=dim()).
    pub fn unsqueeze(&self, dim: usize) -> Result<Tensor> {
        if dim > self.dim() {
            return Err(Error::shape(format!("dimension {} out of range", dim + 1)));
        }
        let mut t = self.clone();
        let st = if dim < self.dim() {
            self.stride[dim] * self.size[dim]
        } else {
            1
        };
        t.size.insert(dim, 1);
        t.stride.insert(dim, st);
        Ok(t)
    }

    /// `view(sizes)` with at most one -1 (given as None): needs a contiguous tensor.
    pub fn view(&self, sizes: &[Option<usize>]) -> Result<Tensor> {
        let n = self.numel();
        let size = infer_size(sizes, n)?;
        if !self.is_contiguous() {
            return Err(Error::shape("input is not contiguous (call :contiguous() first)"));
        }
        let mut t = self.clone();
        t.stride = contiguous_strides(&size);
        t.size = size;
        Ok(t)
    }
}

/// Resolves a size list with at most one unknown (-1) against `n` elements.
pub fn infer_size(sizes: &[Option<usize>], n: usize) -> Result<Vec<usize>> {
    let unknown: Vec<usize> = (0..sizes.len()).filter(|&i| sizes[i].is_none()).collect();
    if unknown.len() > 1 {
        return Err(Error::argument("only one dimension can be inferred (-1)"));
    }
    let known: usize = sizes.iter().flatten().product();
    let mut size: Vec<usize> = sizes.iter().map(|s| s.unwrap_or(0)).collect();
    if let Some(&i) = unknown.first() {
        if known == 0 || !n.is_multiple_of(known) {
            return Err(Error::shape(format!("size mismatch, cannot infer -1 for {n} elements")));
        }
        size[i] = n / known;
    } else if known != n || (sizes.is_empty() && n != 0) {
        return Err(Error::shape(format!(
            "size mismatch ({} elements into a view of {} elements)",
            n, known
        )));
    }
    Ok(size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::base::dtype::DType;

    #[test]
    fn views_share_storage_and_compute_offsets() {
        let t = Tensor::zeros(DType::Float, &[3, 4]).unwrap();
        let n = t.narrow(1, 1, 2).unwrap();
        assert_eq!(
            (n.offset, n.size.clone(), n.stride.clone()),
            (1, vec![3, 2], vec![4, 1])
        );
        assert!(!n.is_contiguous());
        let s = t.select(0, 2).unwrap();
        assert_eq!((s.offset, s.size.clone()), (8, vec![4]));
        let tt = t.transpose(0, 1).unwrap();
        assert_eq!(tt.stride, vec![1, 4]);
        let u = Tensor::zeros(DType::Float, &[7]).unwrap().unfold(0, 2, 1).unwrap();
        assert_eq!((u.size.clone(), u.stride.clone()), (vec![6, 2], vec![1, 1]));
        let e = Tensor::zeros(DType::Float, &[3, 1]).unwrap().expand(&[3, 5]).unwrap();
        assert_eq!(e.stride, vec![1, 0]);
        assert!(t.narrow(1, 3, 2).is_err());
    }

    #[test]
    fn view_infers_one_size() {
        let t = Tensor::zeros(DType::Double, &[2, 6]).unwrap();
        assert_eq!(t.view(&[Some(3), None]).unwrap().size, vec![3, 4]);
        assert!(t.view(&[Some(5), None]).is_err());
        assert!(t.view(&[None, None]).is_err());
    }
}
