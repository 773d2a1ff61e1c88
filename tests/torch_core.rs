//! The tensor core, through the real `th`: constructors, views, indexing, copies between the
//! seven types, the class system, Torch's print format and error messages. Each Lua script
//! asserts exact values and prints "ok" at the end.

mod common;

use common::run_th;

/// Runs a test script from tests/lua and checks it reached its end.
fn script(name: &str) {
    let out = run_th(&[name]);
    out.assert_ok();
    assert_eq!(out.stdout, "ok\n", "stderr: {}", out.stderr);
}

#[test]
fn constructors_in_every_form() {
    script("torch_core_construct.lua");
}

#[test]
fn views_share_storage() {
    script("torch_core_views.lua");
}

#[test]
fn indexing_reads_and_assigns() {
    script("torch_core_index.lua");
}

#[test]
fn copy_between_all_types_and_conversions() {
    script("torch_core_copy.lua");
}

#[test]
fn classes_and_type_queries() {
    script("torch_core_class.lua");
}

#[test]
fn is_type_of_names_patterns_and_parents_and_heap_tracking() {
    script("torch_core_typeof.lua");
}

#[test]
fn print_format_is_torch7s() {
    script("torch_core_print.lua");
}

#[test]
fn storages() {
    script("torch_core_storage.lua");
}

#[test]
fn default_tensor_type() {
    script("torch_core_default.lua");
}

#[test]
fn bad_input_errors_name_the_method() {
    script("torch_core_errors.lua");
}

#[test]
fn print_writes_tostring_and_a_newline() {
    let out = run_th(&[
        "-e",
        "print(torch.Tensor({{1.5, 2}, {3, 4}})); print(torch.LongStorage({7})); print(torch.Tensor())",
    ]);
    out.assert_ok();
    assert_eq!(
        out.stdout,
        " 1.5000  2.0000\n 3.0000  4.0000\n[torch.DoubleTensor of size 2x2]\n\n 7\n\
         [torch.LongStorage of size 1]\n\n\
         [torch.DoubleTensor with no dimension]\n\n"
    );
}

#[test]
fn an_uncaught_core_error_reports_the_method_without_panicking() {
    let out = run_th(&["-e", "torch.Tensor(3):narrow(1, 3, 2)"]);
    assert_eq!(out.status, Some(1));
    assert!(
        out.stderr
            .contains("narrow: out of range (index 3 and size 2 for a dimension of size 3)"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
}

#[test]
fn half_tensors_store_view_copy_and_serialize() {
    script("torch_core_half.lua");
}
