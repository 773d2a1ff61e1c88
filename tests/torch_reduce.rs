//! Reductions, cumulative ops and sorting, run by the real `th`: each script asserts exact values,
//! result forms and error messages itself and prints `ok`.

mod common;

fn run(script: &str) {
    let out = common::run_th(&[script]);
    out.assert_ok();
    assert_eq!(out.stdout, "ok\n", "stderr: {}", out.stderr);
}

#[test]
fn sum_prod_mean() {
    run("torch_reduce_sum.lua");
}

#[test]
fn max_min() {
    run("torch_reduce_maxmin.lua");
}

#[test]
fn var_std_norm_dist_renorm_all_any() {
    run("torch_reduce_stats.lua");
}

#[test]
fn cumsum_cumprod() {
    run("torch_reduce_cum.lua");
}

#[test]
fn sort_topk_kthvalue_median_mode() {
    run("torch_reduce_sort.lua");
}
