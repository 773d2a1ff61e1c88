//! The solvers and the factorizations of square matrices: gesv, trtrs, gels, inverse (getrf +
//! getri), potrf, potrs, potri, pstrf. Each result tensor argument is `Option<&Tensor>` (None: a
//! new tensor) and each returns the views its results end with.

use super::layout::{
    as_matrix, check, clear_triangle, expect_square, expect_system, gather, int, letter, mirror_triangle, place_matrix,
    place_plain, ptr, real, routines, same_types, vector, workspace,
};
use super::library::Real;
use crate::error::{Error, Result};
use crate::torch::base::dtype::Element;
use crate::torch::base::tensor::Tensor;

/// `torch.gesv([rb, ra,] b, a)`: X with `A X = B`, and A's LU factors.
pub fn gesv(rb: Option<&Tensor>, ra: Option<&Tensor>, b: &Tensor, a: &Tensor) -> Result<(Tensor, Tensor)> {
    expect_system(b, a, true)?;
    real!(same_types(&[b, a])?, T => gesv_as::<T>(rb, ra, b, a))
}

fn gesv_as<T: Real>(rb: Option<&Tensor>, ra: Option<&Tensor>, b: &Tensor, a: &Tensor) -> Result<(Tensor, Tensor)> {
    let r = routines::<T>()?;
    let n = a.size[0];
    let (am, bm) = (gather(a, n)?, gather(&as_matrix(b), n)?);
    let (ni, nrhs) = (int(n)?, int(bm.size[1])?);
    let mut ipiv = vec![0; n];
    let mut info = 0;
    // SAFETY: n x n and n x nrhs column-major buffers, n pivots.
    unsafe { (r.gesv)(&ni, &nrhs, ptr(&am), &ni, ipiv.as_mut_ptr(), ptr(&bm), &ni, &mut info) };
    check("gesv", info, |i| format!("U({i},{i}) is zero, singular U."))?;
    Ok((place_matrix(rb, Some(b), bm)?, place_matrix(ra, Some(a), am)?))
}

/// `torch.trtrs([rb, ra,] b, a [, uplo] [, trans] [, diag])`: X with `op(A) X = B`, A triangular.
pub fn trtrs(
    rb: Option<&Tensor>,
    ra: Option<&Tensor>,
    b: &Tensor,
    a: &Tensor,
    (uplo, trans, diag): (u8, u8, u8),
) -> Result<(Tensor, Tensor)> {
    expect_system(b, a, true)?;
    real!(same_types(&[b, a])?, T => {
        let r = routines::<T>()?;
        let n = a.size[0];
        let (am, bm) = (gather(a, n)?, gather(&as_matrix(b), n)?);
        let (ni, nrhs) = (int(n)?, int(bm.size[1])?);
        let mut info = 0;
        // SAFETY: n x n and n x nrhs column-major buffers.
        unsafe {
            (r.trtrs)(letter(uplo), letter(trans), letter(diag), &ni, &nrhs, ptr::<T>(&am), &ni, ptr::<T>(&bm), &ni, &mut info, 1, 1, 1)
        };
        check("trtrs", info, |i| format!("A({i},{i}) is zero, singular A"))?;
        Ok((place_matrix(rb, Some(b), bm)?, place_matrix(ra, Some(a), am)?))
    })
}

/// `torch.gels([rb, ra,] b, a)`: the least-squares (or, underdetermined, minimum-norm) X of
/// `A X = B`, and A's QR (or LQ) factors. X is the first n rows of a `max(m, n)`-row buffer, as
/// in Torch7.
pub fn gels(rb: Option<&Tensor>, ra: Option<&Tensor>, b: &Tensor, a: &Tensor) -> Result<(Tensor, Tensor)> {
    expect_system(b, a, false)?;
    real!(same_types(&[b, a])?, T => gels_as::<T>(rb, ra, b, a))
}

fn gels_as<T: Real>(rb: Option<&Tensor>, ra: Option<&Tensor>, b: &Tensor, a: &Tensor) -> Result<(Tensor, Tensor)> {
    let r = routines::<T>()?;
    let (m, n) = (a.size[0], a.size[1]);
    let ldb = m.max(n);
    let b2 = as_matrix(b);
    let (am, bm) = (gather(a, m)?, gather(&b2, ldb)?);
    let (mi, ni, nrhs, ldbi) = (int(m)?, int(n)?, int(bm.size[1])?, int(ldb)?);
    let gels = |work: *mut T, lwork: i32| {
        let mut info = 0;
        // SAFETY: m x n and ldb x nrhs column-major buffers, a workspace of lwork.
        unsafe {
            (r.gels)(
                letter(b'N'),
                &mi,
                &ni,
                &nrhs,
                ptr(&am),
                &mi,
                ptr(&bm),
                &ldbi,
                work,
                &lwork,
                &mut info,
                1,
            )
        };
        info
    };
    let mut query = T::zero();
    check("gels", gels(&mut query, -1), |i| {
        format!("workspace query failed ({i})")
    })?;
    let mut work = vec![T::zero(); workspace(query)];
    let info = gels(work.as_mut_ptr(), int(work.len())?);
    check("gels", info, |i| {
        format!("The {i}-th diagonal element of the triangular factor of A is zero")
    })?;
    let x = match rb {
        Some(r) if r.same_view(b) => place_plain(Some(r), &bm.narrow(0, 0, n)?)?,
        Some(r) => place_matrix(Some(r), None, bm)?.narrow(0, 0, n)?,
        None => bm.narrow(0, 0, n)?,
    };
    Ok((x, place_matrix(ra, Some(a), am)?))
}

/// `torch.inverse([res,] a)`: LU (getrf), then getri.
pub fn inverse(res: Option<&Tensor>, a: &Tensor) -> Result<Tensor> {
    let n = expect_square(a)?;
    real!(a.dtype, T => {
        let r = routines::<T>()?;
        let am = gather(a, n)?;
        let ni = int(n)?;
        let mut ipiv = vec![0; n];
        let mut info = 0;
        // SAFETY: an n x n column-major buffer, n pivots.
        unsafe { (r.getrf)(&ni, &ni, ptr::<T>(&am), &ni, ipiv.as_mut_ptr(), &mut info) };
        check("getrf", info, |i| format!("U({i},{i}) is 0, U is singular"))?;
        let getri = |work: *mut T, lwork: i32| {
            let mut info = 0;
            // SAFETY: as above, with the pivots getrf gave and a workspace of lwork.
            unsafe { (r.getri)(&ni, ptr::<T>(&am), &ni, ipiv.as_ptr(), work, &lwork, &mut info) };
            info
        };
        let mut query = T::zero();
        check("getri", getri(&mut query, -1), |i| format!("workspace query failed ({i})"))?;
        let mut work = vec![T::zero(); workspace(query)];
        let info = getri(work.as_mut_ptr(), int(work.len())?);
        check("getri", info, |i| format!("U({i},{i}) is 0, U is singular"))?;
        place_matrix(res, Some(a), am)
    })
}

/// `torch.potrf([res,] a [, uplo])`: the Cholesky factor U (`A = U'U`) or L (`A = LL'`), the other
/// triangle zero.
pub fn potrf(res: Option<&Tensor>, a: &Tensor, uplo: u8) -> Result<Tensor> {
    let n = expect_square(a)?;
    real!(a.dtype, T => {
        let r = routines::<T>()?;
        let am = gather(a, n)?;
        let ni = int(n)?;
        let mut info = 0;
        // SAFETY: an n x n column-major buffer.
        unsafe { (r.potrf)(letter(uplo), &ni, ptr::<T>(&am), &ni, &mut info, 1) };
        check("potrf", info, |i| format!("the leading minor of order {i} is not positive definite"))?;
        clear_triangle::<T>(&am, uplo == b'U');
        place_matrix(res, Some(a), am)
    })
}

/// `torch.potrs([res,] b, chol [, uplo])`: X with `A X = B`, given A's Cholesky factor.
pub fn potrs(res: Option<&Tensor>, b: &Tensor, chol: &Tensor, uplo: u8) -> Result<Tensor> {
    expect_system(b, chol, true)?;
    real!(same_types(&[b, chol])?, T => {
        let r = routines::<T>()?;
        let n = chol.size[0];
        let (am, bm) = (gather(chol, n)?, gather(&as_matrix(b), n)?);
        let (ni, nrhs) = (int(n)?, int(bm.size[1])?);
        let mut info = 0;
        // SAFETY: n x n and n x nrhs column-major buffers.
        unsafe { (r.potrs)(letter(uplo), &ni, &nrhs, ptr::<T>(&am), &ni, ptr::<T>(&bm), &ni, &mut info, 1) };
        check("potrs", info, |i| format!("A({i},{i}) is zero, singular A"))?;
        place_matrix(res, Some(b), bm)
    })
}

/// `torch.potri([res,] chol [, uplo])`: A's inverse from its Cholesky factor, both triangles.
pub fn potri(res: Option<&Tensor>, chol: &Tensor, uplo: u8) -> Result<Tensor> {
    let n = expect_square(chol)?;
    real!(chol.dtype, T => {
        let r = routines::<T>()?;
        let am = gather(chol, n)?;
        let ni = int(n)?;
        let mut info = 0;
        // SAFETY: an n x n column-major buffer.
        unsafe { (r.potri)(letter(uplo), &ni, ptr::<T>(&am), &ni, &mut info, 1) };
        check("potri", info, |i| format!("A({i},{i}) is 0, A cannot be factorized"))?;
        mirror_triangle::<T>(&am, uplo == b'U');
        place_matrix(res, Some(chol), am)
    })
}

/// `torch.pstrf([res, piv,] a [, uplo] [, tol])`: the Cholesky factor of a positive semidefinite
/// A with complete pivoting, and the pivots (1-based, an IntTensor): `P'AP = U'U` (or `LL'`) with
/// `P[piv[k], k] = 1`. A negative tolerance lets LAPACK choose; a rank-deficient A is an error,
/// as in Torch7.
pub fn pstrf(res: Option<&Tensor>, rpiv: Option<&Tensor>, a: &Tensor, uplo: u8, tol: f64) -> Result<(Tensor, Tensor)> {
    let n = expect_square(a)?;
    if let Some(p) = rpiv
        && p.dtype != crate::torch::base::dtype::DType::Int
    {
        return Err(Error::dtype(format!(
            "torch.IntTensor expected for the pivots, got {}",
            p.dtype.tensor_typename()
        )));
    }
    real!(a.dtype, T => {
        let r = routines::<T>()?;
        let am = gather(a, n)?;
        let ni = int(n)?;
        let (mut piv, mut rank, mut info) = (vec![0; n], 0, 0);
        let mut work = vec![T::zero(); 2 * n];
        let tol = T::from_f64(tol);
        // SAFETY: an n x n column-major buffer, n pivots, a workspace of 2n.
        unsafe {
            (r.pstrf)(letter(uplo), &ni, ptr::<T>(&am), &ni, piv.as_mut_ptr(), &mut rank, &tol, work.as_mut_ptr(), &mut info, 1)
        };
        check("pstrf", info, |_| "matrix is rank deficient or not positive semidefinite".to_string())?;
        clear_triangle::<T>(&am, uplo == b'U');
        let piv = place_plain(rpiv, &vector(&piv)?)?;
        Ok((place_matrix(res, Some(a), am)?, piv))
    })
}

#[cfg(test)]
mod tests {
    use super::super::layout::tests::matrix;
    use super::super::layout::{available, elements};
    use super::*;
    use crate::torch::base::dtype::DType;

    #[test]
    fn solves_and_factorizes() {
        if !available() {
            eprintln!("skipped: no LAPACK");
            return;
        }
        let a = matrix(2, 2, &[4.0, 2.0, 2.0, 3.0]);
        let b = vector(&[2.0f64, 1.0]).unwrap();
        let (x, _) = gesv(None, None, &b, &a).unwrap();
        let x = elements::<f64>(&x).unwrap();
        assert!((x[0] - 0.5).abs() < 1e-12 && x[1].abs() < 1e-12, "{x:?}");
        let u = elements::<f64>(&potrf(None, &a, b'U').unwrap()).unwrap();
        assert!(
            (u[0] - 2.0).abs() < 1e-12 && (u[1] - 1.0).abs() < 1e-12 && u[2] == 0.0,
            "{u:?}"
        );
        let singular = matrix(2, 2, &[1.0, 2.0, 2.0, 4.0]);
        let e = inverse(None, &singular).unwrap_err();
        assert_eq!(e.to_string(), "U(2,2) is 0, U is singular");
        let e = potrf(None, &matrix(2, 2, &[1.0, 2.0, 2.0, 1.0]), b'U').unwrap_err();
        assert_eq!(e.to_string(), "the leading minor of order 2 is not positive definite");
        let long = Tensor::zeros(DType::Long, &[2, 2]).unwrap();
        assert!(inverse(None, &long).is_err());
    }
}
