//! nngraph and graph, bundled: each script of tests/lua/nngraph asserts the behaviour itself and
//! prints `ok` — the graph package, nngraph's API (module calls, `-`, annotations, split, nested
//! tables), inspection (setDebug, annotateNodes, graph.dot with Graphviz where installed), and
//! gModules saved by the original Torch7 (fixtures/) loading and computing what it computed.

mod common;

fn run(script: &str) {
    common::assert_lua_script("nngraph", script, &[], "ok");
}

#[test]
fn graph_package() {
    run("test_graph.lua");
}

#[test]
fn nngraph_api() {
    run("test_nngraph_api.lua");
}

#[test]
fn inspection_and_dot() {
    run("test_inspect.lua");
}

#[test]
fn gmodules_saved_by_torch7_load_and_run() {
    run("test_fixtures.lua");
}

#[test]
fn gmodules_saved_here_load_back() {
    run("test_roundtrip.lua");
}
