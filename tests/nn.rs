//! nn through the real `th`: each script of tests/lua/nn runs its cases (forward and backward
//! against finite differences, the Module API, the original's saved models) and prints
//! `ok (n cases)`, or fails naming the cases that did not pass.

mod common;

use common::{lua_dir, run_th_in};

/// The scripts, one test each; `every_script_is_listed` keeps the list and the folder in step.
const SCRIPTS: &[&str] = &[
    "containers.lua",
    "core.lua",
    "criterions.lua",
    "flatten.lua",
    "fused.lua",
    "layers.lua",
    "spatial.lua",
    "tables.lua",
    "temporal.lua",
    "transfer.lua",
    "volumetric.lua",
];

fn run_script(name: &str) {
    let out = run_th_in(&lua_dir().join("nn"), &[name], "", &[]);
    assert!(
        out.status == Some(0) && out.stdout.lines().last().is_some_and(|l| l.starts_with("ok (")),
        "{name} failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
}

#[test]
fn containers() {
    run_script("containers.lua");
}

#[test]
fn core() {
    run_script("core.lua");
}

#[test]
fn criterions() {
    run_script("criterions.lua");
}

#[test]
fn flatten() {
    run_script("flatten.lua");
}

#[test]
fn fused() {
    run_script("fused.lua");
}

#[test]
fn layers() {
    run_script("layers.lua");
}

#[test]
fn spatial() {
    run_script("spatial.lua");
}

#[test]
fn tables() {
    run_script("tables.lua");
}

#[test]
fn temporal() {
    run_script("temporal.lua");
}

#[test]
fn transfer() {
    run_script("transfer.lua");
}

#[test]
fn volumetric() {
    run_script("volumetric.lua");
}

#[test]
fn every_script_is_listed() {
    let mut found: Vec<String> = std::fs::read_dir(lua_dir().join("nn"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".lua") && n != "helpers.lua")
        .collect();
    found.sort();
    let mut listed: Vec<String> = SCRIPTS.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed, "tests/lua/nn and SCRIPTS differ");
}

#[test]
fn every_module_file_is_loaded_by_init() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("lua/nn");
    let init = std::fs::read_to_string(dir.join("init.lua")).unwrap();
    let missing: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".lua").map(str::to_string))
        .filter(|n| n != "init" && !init.contains(&format!("'{n}'")))
        .collect();
    assert!(missing.is_empty(), "lua/nn/init.lua does not load: {missing:?}");
}
