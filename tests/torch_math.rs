//! Elementwise maths, comparisons and the tensor operators, run by the real `th`: each script
//! asserts exact values and error messages itself and prints `ok`.

mod common;

fn run(script: &str) {
    let out = common::run_th(&[script]);
    out.assert_ok();
    assert_eq!(out.stdout, "ok\n", "stderr: {}", out.stderr);
}

#[test]
fn add_csub_mul_div_cmul_cdiv_addcmul_addcdiv() {
    run("torch_math_arith.lua");
}

#[test]
fn unary_functions_pow_clamp_cmax_fmod_atan2_lerp() {
    run("torch_math_functions.lua");
}

#[test]
fn comparisons_and_equal() {
    run("torch_math_compare.lua");
}

#[test]
fn operators() {
    run("torch_math_operators.lua");
}

#[test]
fn long_and_strided_inputs() {
    run("torch_math_large.lua");
}

#[test]
fn bitwise_and_shifts() {
    run("torch_math_bitwise.lua");
}

#[test]
fn histc_and_bhistc() {
    run("torch_math_histc.lua");
}

/// A method from the Rust tables is what every tensor class sees, and torch.* dispatches on the
/// first tensor argument's type.
#[test]
fn every_class_has_the_methods_and_functions() {
    let out = common::run_th(&[
        "-e",
        "for _, T in ipairs({'Byte','Char','Short','Int','Long','Float','Double'}) do \
           local t = torch[T..'Tensor']({1, 2}) \
           assert(torch.typename(torch.add(t, t)) == 'torch.'..T..'Tensor') \
           assert(t:add(1) == t and t[2] == 3) \
           assert(torch.typename(t + t) == 'torch.'..T..'Tensor') \
         end print('ok')",
    ]);
    out.assert_ok();
    assert_eq!(out.stdout, "ok\n", "stderr: {}", out.stderr);
}
