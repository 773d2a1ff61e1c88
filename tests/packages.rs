//! The small packages real projects require, bundled: class, argcheck and totem (moses, nngraph
//! and graph have their own files). Each script of tests/lua/packages asserts the behaviour
//! itself and prints `ok`.

mod common;

fn run(script: &str) {
    common::assert_lua_script("packages", script, &[], "ok");
}

#[test]
fn class_package() {
    run("class_basic.lua");
}

#[test]
fn argcheck_package() {
    run("argcheck_basic.lua");
}

#[test]
fn totem_asserts() {
    run("totem_asserts.lua");
}

#[test]
fn totem_nn_checks() {
    run("totem_nn.lua");
}

#[test]
fn nnx_spatial_resampling() {
    run("nnx_resampling.lua");
}
