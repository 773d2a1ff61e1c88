//! The decompositions: symeig (syev), eig (geev), svd (gesvd), and QR: geqrf, orgqr, ormqr, and
//! qr built from geqrf and orgqr as Torch7 builds it.

use super::layout::{
    check, column_major, elements, expect_dims, expect_square, gather, int, letter, place_matrix, place_plain, ptr,
    real, resized, routines, same_types, vector, workspace,
};
use super::library::Real;
use crate::error::{Error, Result};
use crate::torch::base::dtype::Element;
use crate::torch::base::tensor::Tensor;

/// Runs a LAPACK routine twice, as its callers must: a workspace query (`lwork = -1`), then the
/// work with the size it answered. `call(work, lwork)` returns `info`.
fn with_workspace<T: Element>(routine: &str, mut call: impl FnMut(*mut T, i32) -> i32) -> Result<i32> {
    let mut query = T::zero();
    check(routine, call(&mut query, -1), |i| {
        format!("workspace query failed ({i})")
    })?;
    let mut work = vec![T::zero(); workspace(query)];
    Ok(call(work.as_mut_ptr(), int(work.len())?))
}

/// `torch.symeig([re, rv,] a [, jobz] [, uplo])`: the eigenvalues of a symmetric matrix
/// (ascending) and, with jobz 'V', its eigenvectors as columns (with 'N', what LAPACK leaves).
pub fn symeig(re: Option<&Tensor>, rv: Option<&Tensor>, a: &Tensor, jobz: u8, uplo: u8) -> Result<(Tensor, Tensor)> {
    let n = expect_square(a)?;
    real!(a.dtype, T => {
        let r = routines::<T>()?;
        let am = gather(a, n)?;
        let ni = int(n)?;
        let mut w = vec![T::zero(); n];
        let info = with_workspace::<T>("syev", |work, lwork| {
            let mut info = 0;
            // SAFETY: an n x n column-major buffer, n eigenvalues, a workspace of lwork.
            unsafe {
                (r.syev)(letter(jobz), letter(uplo), &ni, ptr(&am), &ni, w.as_mut_ptr(), work, &lwork, &mut info, 1, 1)
            };
            info
        })?;
        check("syev", info, |i| format!("{i} off-diagonal elements didn't converge to zero"))?;
        Ok((place_plain(re, &vector(&w)?)?, place_matrix(rv, Some(a), am)?))
    })
}

/// `torch.eig([re, rv,] a [, jobvr])`: the eigenvalues of a general matrix as an n x 2 tensor
/// (real and imaginary parts) and, with jobvr 'V', the right eigenvectors (LAPACK's real form of
/// complex pairs); with 'N', rv as it was (a new empty tensor when not given).
pub fn eig(re: Option<&Tensor>, rv: Option<&Tensor>, a: &Tensor, jobvr: u8) -> Result<(Tensor, Tensor)> {
    let n = expect_square(a)?;
    real!(a.dtype, T => {
        let r = routines::<T>()?;
        let am = gather(a, n)?;
        let ni = int(n)?;
        let (mut wr, mut wi) = (vec![T::zero(); n], vec![T::zero(); n]);
        let vectors = jobvr == b'V';
        let vr = if vectors { Some(column_major(a.dtype, n, n)?) } else { None };
        let (vr_ptr, ldvr) = match &vr {
            Some(v) => (ptr::<T>(v), ni),
            None => (std::ptr::null_mut(), 1),
        };
        let info = with_workspace::<T>("geev", |work, lwork| {
            let mut info = 0;
            // SAFETY: an n x n buffer, n eigenvalue parts each, vr n x n when asked for (else not
            // referenced, ldvr 1), vl not referenced (jobvl 'N'), a workspace of lwork.
            unsafe {
                (r.geev)(
                    letter(b'N'), letter(jobvr), &ni, ptr(&am), &ni, wr.as_mut_ptr(), wi.as_mut_ptr(),
                    std::ptr::null_mut(), &1, vr_ptr, &ldvr, work, &lwork, &mut info, 1, 1,
                )
            };
            info
        })?;
        check("geev", info, |i| format!("{i} off-diagonal elements didn't converge to zero"))?;
        let pairs: Vec<T> = wr.iter().zip(&wi).flat_map(|(&x, &y)| [x, y]).collect();
        let mut e = vector(&pairs)?;
        e.size = vec![n, 2];
        e.stride = vec![2, 1];
        let v = match vr {
            Some(vr) => place_matrix(rv, None, vr)?,
            None => rv.cloned().unwrap_or_else(|| Tensor::empty(a.dtype)),
        };
        Ok((place_plain(re, &e)?, v))
    })
}

/// `torch.svd([ru, rs, rv,] a [, jobu])`: `A = U diag(S) V'`; with jobu 'S' (the default) U is
/// m x k and V n x k (k = min(m, n)), with 'A' U is m x m and V n x n.
pub fn svd(
    ru: Option<&Tensor>,
    rs: Option<&Tensor>,
    rv: Option<&Tensor>,
    a: &Tensor,
    jobu: u8,
) -> Result<(Tensor, Tensor, Tensor)> {
    expect_dims(a, "A")?;
    real!(a.dtype, T => {
        let r = routines::<T>()?;
        let (m, n) = (a.size[0], a.size[1]);
        let k = m.min(n);
        let all = jobu == b'A';
        let am = gather(a, m)?;
        let u = column_major(a.dtype, m, if all { m } else { k })?;
        let vt = column_major(a.dtype, n, n)?;
        let mut s = vec![T::zero(); k];
        let (mi, ni) = (int(m)?, int(n)?);
        let info = with_workspace::<T>("gesvd", |work, lwork| {
            let mut info = 0;
            // SAFETY: m x n, m x (m or k) and n x n column-major buffers (VT's first k rows with
            // 'S'), k singular values, a workspace of lwork.
            unsafe {
                (r.gesvd)(
                    letter(jobu), letter(jobu), &mi, &ni, ptr(&am), &mi, s.as_mut_ptr(), ptr(&u), &mi,
                    ptr(&vt), &ni, work, &lwork, &mut info, 1, 1,
                )
            };
            info
        })?;
        check("gesvd", info, |i| format!("{i} superdiagonals failed to converge."))?;
        // VT column-major is V row-major.
        let v = vt.transpose(0, 1)?;
        let v = if all { v } else { v.narrow(1, 0, k)? };
        Ok((place_matrix(ru, None, u)?, place_plain(rs, &vector(&s)?)?, place_plain(rv, &v)?))
    })
}

/// geqrf on a column-major buffer, in place: R on and above the diagonal, the reflectors below;
/// their scales returned.
fn geqrf_in<T: Real>(am: &Tensor) -> Result<Vec<T>> {
    let r = routines::<T>()?;
    let (m, n) = (am.size[0], am.size[1]);
    let (mi, ni) = (int(m)?, int(n)?);
    let mut tau = vec![T::zero(); m.min(n)];
    let info = with_workspace::<T>("geqrf", |work, lwork| {
        let mut info = 0;
        // SAFETY: an m x n column-major buffer, min(m, n) scales, a workspace of lwork.
        unsafe { (r.geqrf)(&mi, &ni, ptr(am), &mi, tau.as_mut_ptr(), work, &lwork, &mut info) };
        info
    })?;
    check("geqrf", info, |i| format!("unknown Lapack error. info = {i}"))?;
    Ok(tau)
}

/// orgqr on a column-major buffer, in place: its first k = tau.len() columns become Q's.
fn orgqr_in<T: Real>(am: &Tensor, tau: &[T]) -> Result<()> {
    let r = routines::<T>()?;
    let (m, n) = (am.size[0], am.size[1]);
    let k = tau.len();
    if k > m.min(n) {
        return Err(Error::shape(format!(
            "tau should have at most {} elements for a {m}x{n} A, but has {k}",
            m.min(n)
        )));
    }
    let (mi, ki) = (int(m)?, int(k)?);
    let info = with_workspace::<T>("orgqr", |work, lwork| {
        let mut info = 0;
        // SAFETY: an m x n column-major buffer of which m x k is used, k scales, a workspace.
        unsafe { (r.orgqr)(&mi, &ki, &ki, ptr(am), &mi, tau.as_ptr(), work, &lwork, &mut info) };
        info
    })?;
    check("orgqr", info, |i| format!("unknown Lapack error. info = {i}"))
}

/// `torch.geqrf([ra, rtau,] a)`: LAPACK's QR factors of A (R and the reflectors) and the
/// reflectors' scales.
pub fn geqrf(ra: Option<&Tensor>, rtau: Option<&Tensor>, a: &Tensor) -> Result<(Tensor, Tensor)> {
    expect_dims(a, "A")?;
    real!(a.dtype, T => {
        let am = gather(a, a.size[0])?;
        let tau = geqrf_in::<T>(&am)?;
        Ok((place_matrix(ra, Some(a), am)?, place_plain(rtau, &vector(&tau)?)?))
    })
}

/// `torch.orgqr([res,] a, tau)`: Q from geqrf's factors, in A's first tau:size(1) columns.
pub fn orgqr(res: Option<&Tensor>, a: &Tensor, tau: &Tensor) -> Result<Tensor> {
    expect_dims(a, "A")?;
    real!(same_types(&[a, tau])?, T => {
        let am = gather(a, a.size[0])?;
        orgqr_in::<T>(&am, &elements::<T>(tau)?)?;
        place_matrix(res, Some(a), am)
    })
}

/// `torch.ormqr([res,] a, tau, c [, side] [, trans])`: C multiplied by geqrf's Q: `op(Q) C` with
/// side 'L', `C op(Q)` with 'R'; op is the transpose with trans 'T'.
pub fn ormqr(res: Option<&Tensor>, a: &Tensor, tau: &Tensor, c: &Tensor, side: u8, trans: u8) -> Result<Tensor> {
    expect_dims(a, "A")?;
    expect_dims(c, "C")?;
    real!(same_types(&[a, tau, c])?, T => {
        let r = routines::<T>()?;
        let (m, n) = (c.size[0], c.size[1]);
        let tau = elements::<T>(tau)?;
        let k = tau.len();
        // Q is nq x nq, made of k reflectors: A's first k columns, nq rows.
        let nq = if side == b'L' { m } else { n };
        if a.size[0] != nq || a.size[1] < k || k > nq {
            return Err(Error::shape(format!(
                "A ({}x{}) and tau ({k}) do not make a Q of order {nq} for C ({m}x{n}) on the {}",
                a.size[0],
                a.size[1],
                if side == b'L' { "left" } else { "right" }
            )));
        }
        let am = gather(a, nq)?;
        let cm = gather(c, m)?;
        let (mi, ni, ki, lda) = (int(m)?, int(n)?, int(k)?, int(nq)?);
        let info = with_workspace::<T>("ormqr", |work, lwork| {
            let mut info = 0;
            // SAFETY: A nq x (>= k), k scales, C m x n, all column-major; a workspace of lwork.
            unsafe {
                (r.ormqr)(
                    letter(side), letter(trans), &mi, &ni, &ki, ptr(&am), &lda, tau.as_ptr(), ptr(&cm), &mi,
                    work, &lwork, &mut info, 1, 1,
                )
            };
            info
        })?;
        check("ormqr", info, |i| format!("unknown Lapack error. info = {i}"))?;
        place_matrix(res, Some(c), cm)
    })
}

/// `torch.qr([rq, rr,] a)`: `A = Q R` with Q m x k orthonormal columns and R k x n upper
/// triangular (k = min(m, n)), from geqrf and orgqr.
pub fn qr(rq: Option<&Tensor>, rr: Option<&Tensor>, a: &Tensor) -> Result<(Tensor, Tensor)> {
    expect_dims(a, "A")?;
    real!(a.dtype, T => {
        let (m, n) = (a.size[0], a.size[1]);
        let k = m.min(n);
        let am = gather(a, m)?;
        let tau = geqrf_in::<T>(&am)?;
        // R: the first k rows, upper triangle.
        let rm = Tensor::zeros(a.dtype, &[k, n])?;
        crate::torch::kernels::copy::copy(&rm, &am.narrow(0, 0, k)?)?;
        let p = ptr::<T>(&rm);
        for i in 1..k {
            for j in 0..i.min(n) {
                // SAFETY: (i, j) of the contiguous k x n buffer.
                unsafe { *p.add(i * n + j) = T::zero() };
            }
        }
        let r = place_plain(rr, &rm)?;
        orgqr_in::<T>(&am, &tau)?;
        // Torch7 sizes Q as m x k before orgqr places m x n in it, then keeps k columns.
        let rq = match rq {
            Some(q) => Some(resized(q.clone(), &[m, k])?),
            None => None,
        };
        let q = place_matrix(rq.as_ref(), None, am)?.narrow(1, 0, k)?;
        Ok((q, r))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qr_of_a_small_matrix() {
        if !super::super::layout::available() {
            eprintln!("skipped: no LAPACK");
            return;
        }
        // [3 0; 4 5] = Q R with |R(1,1)| = 5.
        let mut a = vector(&[3.0f64, 0.0, 4.0, 5.0]).unwrap();
        a.size = vec![2, 2];
        a.stride = vec![2, 1];
        let (q, r) = qr(None, None, &a).unwrap();
        assert_eq!((q.size.clone(), q.stride.clone()), (vec![2, 2], vec![1, 2]));
        let r = elements::<f64>(&r).unwrap();
        assert!((r[0].abs() - 5.0).abs() < 1e-12 && r[2] == 0.0, "{r:?}");
        let (_, s, _) = svd(None, None, None, &a, b'S').unwrap();
        let s = elements::<f64>(&s).unwrap();
        // Singular values of [3 0; 4 5]: sqrt(45) and sqrt(5), product |det| = 15.
        assert!((s[0] * s[1] - 15.0).abs() < 1e-9, "{s:?}");
    }
}
