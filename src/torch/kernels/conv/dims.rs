//! The words of the convolution kernels: boxes (depth, rows, columns), the two extents, the two
//! orientations.

/// Depth, rows, columns.
pub type Dims = [usize; 3];

/// Torch7's 'V' (the positions where the kernel fits inside the input) or 'F' (every position
/// where it overlaps the input).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Extent {
    Valid,
    Full,
}

impl Extent {
    /// 'V' or 'F' (the first letter of Torch7's option string).
    pub fn from_letter(c: u8) -> Option<Extent> {
        match c {
            b'V' => Some(Extent::Valid),
            b'F' => Some(Extent::Full),
            _ => None,
        }
    }

    /// The output length along one dimension (valid needs `kernel <= input`).
    pub fn out_len(self, input: usize, kernel: usize, step: usize) -> usize {
        match self {
            Extent::Valid => (input - kernel) / step + 1,
            Extent::Full => (input - 1) * step + kernel,
        }
    }

    pub(super) fn out_dims(self, input: Dims, kernel: Dims, step: Dims) -> Dims {
        [0, 1, 2].map(|d| self.out_len(input[d], kernel[d], step[d]))
    }
}

/// Convolution (the kernel flipped, `conv2`) or cross-correlation (`xcorr2`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Orientation {
    Convolution,
    Correlation,
}

impl Orientation {
    /// Whether the kernel must be flipped for `extent`'s loop: the valid loop correlates and the
    /// full loop convolves.
    pub(super) fn flips_kernel(self, extent: Extent) -> bool {
        match extent {
            Extent::Valid => self == Orientation::Convolution,
            Extent::Full => self == Orientation::Correlation,
        }
    }
}

pub(super) fn shape(d: &[usize]) -> String {
    let s: Vec<String> = d.iter().map(usize::to_string).collect();
    s.join("x")
}

pub(super) fn volume(d: Dims) -> usize {
    d.iter().product()
}
