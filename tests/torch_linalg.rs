//! Linear algebra through the real `th`: products (OpenBLAS for Float/Double, loops for the
//! integer types), dot/trace/cross/diag/tril/triu, the convolutions (conv2, xcorr2, conv3,
//! xcorr3), their errors, and the BLAS thread count. The Lua scripts compare against
//! hand-computed values and exact error messages. The LAPACK functions (gesv, qr, svd, ...) are
//! checked by the equations their results solve.

mod common;

use common::{lua_dir, run_th, run_th_in};

fn script(name: &str) {
    let out = run_th(&[name]);
    out.assert_ok();
    assert_eq!(out.stdout, "ok\n", "{}", out.stderr);
}

#[test]
fn products_in_every_form_and_layout() {
    script("torch_linalg_products.lua");
}

#[test]
fn dot_trace_cross_diag_tril_triu() {
    script("torch_linalg_misc.lua");
}

#[test]
fn errors_name_the_method_and_the_sizes() {
    script("torch_linalg_errors.lua");
}

#[test]
fn blocked_transposed_copy_matches_logical_order() {
    script("torch_linalg_copy.lua");
}

#[test]
fn conv2_xcorr2_conv3_xcorr3_in_every_form_and_type() {
    script("torch_conv.lua");
}

#[test]
fn lapack_functions_solve_factorize_and_report_errors() {
    script("torch_lapack.lua");
}

#[test]
fn thread_count_and_products_on_several_threads() {
    script("torch_linalg_threads.lua");
}

#[test]
fn thread_count_starts_from_openblas_environment() {
    let out = run_th_in(
        &lua_dir(),
        &["-e", "print(torch.getnumthreads())"],
        "",
        &[("OPENBLAS_NUM_THREADS", "1")],
    );
    out.assert_ok();
    assert_eq!(out.stdout, "1\n");
}

#[test]
fn an_uncaught_size_error_reaches_the_script_with_the_method_name() {
    let out = run_th(&["-e", "torch.mm(torch.Tensor(2, 3), torch.Tensor(2, 3))"]);
    assert_eq!(out.status, Some(1));
    assert!(
        out.stderr.contains("mm: size mismatch, m1: [2 x 3], m2: [2 x 3]"),
        "{}",
        out.stderr
    );
}
