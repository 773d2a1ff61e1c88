//! Mirror images: `flip` reverses one dimension of a tensor of any number of dimensions (hflip
//! is the last of a channels x height x width image, vflip the middle one).

use crate::error::{Error, Result};

/// Where a strided tensor's elements are: offset, sizes and strides.
#[derive(Clone, Debug)]
pub struct Strided {
    pub offset: usize,
    pub size: Vec<usize>,
    pub stride: Vec<usize>,
}

impl Strided {
    fn extent(&self) -> usize {
        if self.size.contains(&0) {
            return self.offset;
        }
        self.offset
            + self
                .size
                .iter()
                .zip(&self.stride)
                .map(|(s, t)| (s - 1) * t)
                .sum::<usize>()
            + 1
    }
}

/// `dst` = `src` with dimension `dim` (0-based) reversed. Both have the same sizes; they must
/// not share memory (the glue copies a source that does).
pub fn flip<T: Copy>(src: &[T], s: &Strided, dst: &mut [T], d: &Strided, dim: usize) -> Result<()> {
    if s.size != d.size {
        return Err(Error::shape("src and dst are not the same size"));
    }
    if dim >= s.size.len() {
        return Err(Error::shape("flip_dim out of bounds"));
    }
    if s.extent() > src.len() || d.extent() > dst.len() {
        return Err(Error::shape("image view extends past the end of its storage"));
    }
    if s.size.contains(&0) {
        return Ok(());
    }
    let n = s.size.len();
    let last = n - 1;
    let mut index = vec![0usize; n];
    loop {
        // One run along the last dimension.
        let mut so = s.offset;
        let mut dof = d.offset;
        for (k, &at) in index.iter().enumerate().take(last) {
            so += at * s.stride[k];
            let i = if k == dim { s.size[k] - 1 - at } else { at };
            dof += i * d.stride[k];
        }
        let len = s.size[last];
        let (ss, ds) = (s.stride[last], d.stride[last]);
        if dim == last {
            for i in 0..len {
                dst[dof + (len - 1 - i) * ds] = src[so + i * ss];
            }
        } else {
            for i in 0..len {
                dst[dof + i * ds] = src[so + i * ss];
            }
        }
        // Next index over the leading dimensions.
        let mut k = last;
        loop {
            if k == 0 {
                return Ok(());
            }
            k -= 1;
            index[k] += 1;
            if index[k] < s.size[k] {
                break;
            }
            index[k] = 0;
        }
    }
}
