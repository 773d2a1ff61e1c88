//! torch.File and the .t7 format through the real `th`: the real Torch7 files in tests/fixtures/t7,
//! byte-exact output, round trips of every kind of value in binary and ASCII, the File API, error
//! paths, and hostile input.

mod common;

use common::{lua_dir, run_th, run_th_in, temp_dir};

fn fixture(name: &str) -> common::Output {
    let out = run_th(&["torch_serialize_fixture.lua", name]);
    out.assert_ok();
    assert!(out.stdout.contains(&format!("ok {name}")), "{}", out.stdout);
    out
}

#[test]
fn fixture_doubletensor() {
    fixture("doubletensor");
}

#[test]
fn fixture_floattensor() {
    fixture("floattensor");
}

#[test]
fn fixture_hello_123() {
    fixture("hello=123");
}

#[test]
fn fixture_list_table() {
    fixture("list_table");
}

#[test]
fn fixture_map_table1() {
    fixture("map_table1");
}

#[test]
fn fixture_map_table2() {
    fixture("map_table2");
}

#[test]
fn fixture_recursive_kv_table() {
    fixture("recursive_kv_table");
}

#[test]
fn fixture_recursive_class() {
    fixture("recursive_class");
}

#[test]
fn fixture_custom_class() {
    fixture("custom_class");
}

#[test]
fn fixture_function_warns_and_gives_nil() {
    let out = fixture("function");
    assert!(
        out.stderr
            .contains("Warning: Failed to load function from bytecode: cannot load incompatible bytecode"),
        "{}",
        out.stderr
    );
}

#[test]
fn fixture_function_upvals_warns_and_gives_nil() {
    let out = fixture("function_upvals");
    assert!(
        out.stderr.contains("Warning: Failed to load function from bytecode"),
        "{}",
        out.stderr
    );
}

#[test]
fn fixture_tds_hash() {
    fixture("tds_hash");
}

#[test]
fn fixture_tds_vec() {
    fixture("tds_vec");
}

#[test]
fn fixture_nngraph_node() {
    fixture("nngraph_node");
}

#[test]
fn fixture_gmodule_with_linear_identity() {
    fixture("gmodule_with_linear_identity");
}

#[test]
fn unknown_class_is_a_clear_error_from_torch_load() {
    let out = run_th(&["-e", "torch.load('../fixtures/t7/custom_class.t7')"]);
    assert_eq!(out.status, Some(1));
    assert!(out.stderr.contains("unknown Torch class <Blah>"), "{}", out.stderr);
}

fn script(name: &str) -> common::Output {
    let out = run_th(&[name]);
    out.assert_ok();
    assert!(out.stdout.contains("ok\n"), "{}", out.stdout);
    out
}

#[test]
fn golden_bytes_match_the_worked_examples() {
    script("torch_serialize_golden.lua");
}

#[test]
fn round_trips_in_binary_and_ascii() {
    script("torch_serialize_roundtrip.lua");
}

#[test]
fn references_cycles_and_sharing() {
    script("torch_serialize_refs.lua");
}

#[test]
fn classes_and_functions() {
    let out = script("torch_serialize_classes.lua");
    // A field that cannot be written is skipped with Torch's warning.
    assert!(
        out.stdout
            .contains("$ Warning: cannot write object field <co> of <WithThread> <?>"),
        "{}",
        out.stdout
    );
}

#[test]
fn file_api() {
    script("torch_serialize_file_api.lua");
}

#[test]
fn disk_and_pipe_files() {
    let dir = temp_dir("torch_serialize_disk");
    let script = lua_dir().join("torch_serialize_disk.lua");
    let out = run_th_in(&dir, &[script.to_str().unwrap()], "", &[]);
    out.assert_ok();
    assert!(out.stdout.contains("ok\n"), "{}", out.stdout);
}

#[test]
fn error_paths() {
    script("torch_serialize_errors.lua");
}

#[test]
fn hostile_input_gives_errors_not_crashes() {
    script("torch_serialize_hostile.lua");
}

#[test]
fn buffered_files_reach_the_disk_at_os_exit() {
    let dir = temp_dir("torch_serialize_exit");
    let out = run_th_in(
        &dir,
        &[
            "-e",
            "local f = torch.DiskFile('kept.txt', 'w'); f:writeString('kept'); \
             local p = torch.PipeFile('cat > piped.txt', 'w'); p:writeString('piped'); os.exit(0)",
        ],
        "",
        &[],
    );
    out.assert_ok();
    assert_eq!(std::fs::read_to_string(dir.join("kept.txt")).unwrap(), "kept");
    // The command may still be finishing its write when th has exited.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::fs::read_to_string(dir.join("piped.txt")).unwrap_or_default() != "piped" {
        assert!(std::time::Instant::now() < deadline, "piped.txt never got its data");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
