//! What Torch7-era code assumes of the runtime beyond the torch API, through the real `th`: the
//! Lua 5.2 compatibility of Torch's LuaJIT, the globals `require 'torch'` leaves in every kind of
//! worker, luaT's registry conventions and Torch7's call depths, and moses with the 1.x API.
//! Each script asserts the behaviour itself and prints `ok` (moses: its counts).

mod common;

fn run(dir: &str, script: &str, last_line: &str) {
    common::assert_lua_script(dir, script, &[], last_line);
}

#[test]
fn lua52_compatibility() {
    run("compat", "lua52.lua", "ok");
}

#[test]
fn every_worker_state_gets_torchs_globals() {
    run("compat", "worker_globals.lua", "ok");
}

#[test]
fn luat_registry_conventions_and_call_depths() {
    run("compat", "torch_conventions.lua", "ok");
}

#[test]
fn moses_has_the_1x_api() {
    run("moses", "api.lua", "65 passed, 0 failed");
}
