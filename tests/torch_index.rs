//! Indexing by index tensors, cat, reshape, apply/map/map2 and the factory functions, run by the
//! real `th`: each script asserts exact values and error messages itself and prints `ok`.

mod common;

fn run(script: &str) {
    let out = common::run_th(&[script]);
    out.assert_ok();
    assert_eq!(out.stdout, "ok\n", "stderr: {}", out.stderr);
}

#[test]
fn index_index_copy_index_add_index_fill() {
    run("torch_index_select.lua");
}

#[test]
fn gather_scatter_nonzero() {
    run("torch_index_gather.lua");
}

#[test]
fn cat_and_reshape() {
    run("torch_index_cat.lua");
}

#[test]
fn factories_follow_the_default_type() {
    run("torch_index_factory.lua");
}

#[test]
fn apply_map_map2() {
    run("torch_index_apply.lua");
}

/// A large index selection and concatenation stay fast (contiguous paths, no per-element Lua).
#[test]
fn large_inputs_are_handled_in_bulk() {
    let out = common::run_th(&[
        "-e",
        "require 'torch'
         local n = 200000
         local x = torch.range(1, n)
         local idx = torch.LongTensor(n)
         for i = 1, n do idx[i] = n - i + 1 end
         local r = x:index(1, idx)
         assert(r[1] == n and r[n] == 1)
         local m = torch.range(1, 2 * n):resize(n, 2)
         local c = torch.cat(m, m, 2)
         assert(c:size(2) == 4 and c[n][4] == 2 * n)
         local g = m:gather(2, torch.LongTensor(n, 1):fill(2))
         assert(g[n][1] == 2 * n)
         print('ok')",
    ]);
    out.assert_ok();
    assert_eq!(out.stdout, "ok\n");
}
