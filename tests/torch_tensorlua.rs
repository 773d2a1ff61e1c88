//! The tensor methods written in Lua: repeatTensor, expandAs, viewAs, totable, type conversions.

mod common;

#[test]
fn lua_side_tensor_methods() {
    common::run_th(&["torch_tensorlua_methods.lua"]).assert_ok();
}
