//! Tensor memory is invisible to Lua's collector; the runtime must collect dead tensors itself.

mod common;

#[test]
fn big_temporaries_do_not_accumulate() {
    common::run_th(&["torch_memory_temporaries.lua"]).assert_ok();
}
