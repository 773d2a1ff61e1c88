//! mdp: MDP's nodes and flows over torch tensors, with our schedulers underneath. Each script of
//! tests/lua/mdp asserts the behaviour itself and prints `ok`: the nodes against fixtures
//! recorded from MDP 3.6 (fixtures/record_mdp.py), the Node and Flow API, the parallel extension
//! on the threads and processes schedulers, and memory over repeated forked trainings.

mod common;

fn run(script: &str, args: &[&str]) {
    common::assert_lua_script("mdp", script, args, "ok");
}

#[test]
fn nodes_match_mdp() {
    run("test_fixtures.lua", &[]);
}

#[test]
fn node_api() {
    run("test_node.lua", &[]);
}

#[test]
fn flow_api() {
    run("test_flow.lua", &[]);
}

#[test]
fn parallel_flows_on_threads_and_processes() {
    run("test_parallel.lua", &[]);
}

#[test]
fn memory_stays_flat_over_forked_trainings() {
    // 1000 in the measurement (see the closing note); 200 keep CI short and still show a
    // leak of a few KiB per training.
    run("test_memory.lua", &["200"]);
}
