//! The small packages real projects require, bundled: class, argcheck and totem (moses, nngraph
//! and graph have their own files). Each script of tests/lua/packages asserts the behaviour
//! itself and prints `ok`.

mod common;

use common::{lua_dir, run_th_in};

fn run(script: &str) {
    let out = run_th_in(&lua_dir().join("packages"), &[script], "", &[]);
    assert!(
        out.status == Some(0) && out.stdout.lines().last() == Some("ok"),
        "{script} failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
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
