//! tds, built in: each script of tests/lua/tds asserts the behaviour itself and prints `ok` — the
//! containers' API, printing and errors; torch serialization both ways and sharing through threads.

mod common;

fn run(script: &str) {
    common::assert_lua_script("tds", script, &[], "ok");
}

#[test]
fn hash_vec_and_counter() {
    run("test_containers.lua");
}

#[test]
fn serialization_and_threads() {
    run("test_serialize.lua");
}
