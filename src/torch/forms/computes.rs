//! What a form of an op computes, named as Torch7's cwrap named each C function beside its forms
//! (`cname("sumall")` for `x:sum()`, `cname("sum")` for `x:sum(d)`): every form of
//! `table::TABLE` carries one, so the host and the device each map the name to the kernel that
//! carries it out, and no other list of ops is kept. Plain data, as the rest of `forms`.

use crate::torch::kernels::conv::Orientation;
use crate::torch::kernels::linalg::Product;
use crate::torch::kernels::math::{Binary, Compare, Unary};

/// What one form computes.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Computes {
    /// `f(source)`, elementwise.
    Unary(Unary),
    /// `source (op) number`.
    WithValue(Binary),
    /// `source (op) tensor`, elementwise.
    WithTensor(Binary),
    /// `source + number * tensor`, or minus (cadd, csub).
    AddScaled { subtract: bool },
    /// `source ^ number`.
    Pow,
    /// `number ^ source`.
    ValuePow,
    /// `atan2(source, tensor)`, elementwise.
    Atan2,
    /// `source + number * (tensor - source)`.
    Lerp,
    /// `source` limited to `[number, number]`.
    Clamp,
    /// `source + number * tensor1 * tensor2`, or `/ tensor2` (addcmul, addcdiv).
    AddProduct { divide: bool },
    /// `source (cmp) number or tensor`, as 1 or 0.
    Compare(Compare),
    /// Whether two tensors have the same size and the same values (`equal`).
    Equal,
    /// Whether two numbers are equal (`torch.equal(1, 1)`).
    EqualNumbers,
    /// A reduction of every element to a number (`x:sum()`, cwrap's `sumall`).
    Whole(Reduction),
    /// A reduction along a dimension, which the result keeps with size 1 (`x:sum(d)`); max and
    /// min also give the indices.
    Along(Reduction),
    /// The p-norm of the difference of two tensors, a number (`dist`).
    Dist,
    /// Whether every element (`all`) or some element (`any`) is not zero, a boolean.
    Logical { any: bool },
    /// The inclusive sums (cumsum), or products (cumprod), along a dimension.
    Scan { product: bool },
    /// An order statistic of each lane along a dimension: values and indices.
    Order(Order),
    /// Each slice along a dimension scaled down to a p-norm of at most maxnorm (`renorm`).
    Renorm,
    /// A histogram of the elements (`histc`), or of each row of a matrix (`bhistc`).
    Histogram { rows: bool },
    /// A matrix product of `shape`; with `adds`, `beta * M + alpha * product` (addmm, addmv,
    /// addr, baddbmm, addbmm), else the product alone (mm, mv, ger, bmm).
    Product { shape: Product, adds: bool },
    /// The dot product of two tensors, a number.
    Dot,
    /// The sum of a matrix's diagonal, a number.
    Trace,
    /// The cross product of two tensors along a dimension of size 3.
    Cross,
    /// A vector's square matrix with it on diagonal k, or a matrix's diagonal k.
    Diag,
    /// A matrix's elements on and below (`lower`: tril) or above (triu) diagonal k, zeros
    /// elsewhere.
    Triangle { lower: bool },
    /// One of Torch7's LAPACK functions.
    Lapack(Lapack),
    /// A `dims`-dimensional convolution (conv2, conv3) or cross-correlation (xcorr2, xcorr3).
    Convolution { dims: usize, orientation: Orientation },
}

impl Computes {
    /// Whether it is computed element by element, each result element from the elements at its
    /// place (the elementwise maths and the comparisons). Every computation is named here, so a
    /// new one must say.
    pub fn is_elementwise(self) -> bool {
        match self {
            Computes::Unary(_)
            | Computes::WithValue(_)
            | Computes::WithTensor(_)
            | Computes::AddScaled { .. }
            | Computes::Pow
            | Computes::ValuePow
            | Computes::Atan2
            | Computes::Lerp
            | Computes::Clamp
            | Computes::AddProduct { .. }
            | Computes::Compare(_) => true,
            Computes::Equal
            | Computes::EqualNumbers
            | Computes::Whole(_)
            | Computes::Along(_)
            | Computes::Dist
            | Computes::Logical { .. }
            | Computes::Scan { .. }
            | Computes::Order(_)
            | Computes::Renorm
            | Computes::Histogram { .. }
            | Computes::Product { .. }
            | Computes::Dot
            | Computes::Trace
            | Computes::Cross
            | Computes::Diag
            | Computes::Triangle { .. }
            | Computes::Lapack(_)
            | Computes::Convolution { .. } => false,
        }
    }
}

/// What a reduction accumulates, of the whole tensor (`Computes::Whole`) or along a dimension
/// (`Computes::Along`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Reduction {
    Sum,
    Prod,
    Mean,
    /// The largest element (NaN when there is one).
    Max,
    /// The smallest element (NaN when there is one).
    Min,
    /// The variance (divided by n - 1, or by n when asked for the biased estimate).
    Var,
    /// The standard deviation: the square root of `Var`.
    Std,
    /// The p-norm.
    Norm,
}

/// An order statistic, of each lane along a dimension (the last by default).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Order {
    /// The lane sorted (`sort`).
    Sort,
    /// Its k smallest or largest elements, sorted (`topk`).
    TopK,
    /// Its k-th smallest element (`kthvalue`).
    KthValue,
    /// Its lower median (`median`).
    Median,
    /// Its most frequent element (`mode`).
    Mode,
}

/// Torch7's LAPACK functions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Lapack {
    /// Solves `A X = B` (and gives A's LU factors).
    Gesv,
    /// Least squares (or minimum norm) solution of `A X = B`.
    Gels,
    /// Solves `A X = B` for a triangular A.
    Trtrs,
    /// Eigenvalues (and vectors) of a symmetric matrix.
    Symeig,
    /// Eigenvalues (and vectors) of a general matrix.
    Eig,
    /// Singular value decomposition.
    Svd,
    /// The inverse of a matrix.
    Inverse,
    /// Cholesky factor of a positive definite matrix.
    Potrf,
    /// Solves `A X = B` from A's Cholesky factor.
    Potrs,
    /// The inverse of a matrix from its Cholesky factor.
    Potri,
    /// Cholesky factor with full pivoting, of a positive semidefinite matrix.
    Pstrf,
    /// QR decomposition.
    Qr,
    /// QR decomposition as LAPACK keeps it (Householder reflectors and their scales).
    Geqrf,
    /// Q of `geqrf`'s result.
    Orgqr,
    /// A matrix multiplied by Q of `geqrf`'s result.
    Ormqr,
}
