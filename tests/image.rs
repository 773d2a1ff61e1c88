//! torch/image, built in: each script of tests/lua/image asserts the behaviour itself and prints
//! `ok` — I/O against the fixtures of tests/fixtures/image (PNG and PPM exactly, JPEG within
//! 1/255 of libjpeg), every error case, geometry, colour, filtering and drawing against values
//! worked out by hand or in plain Lua.

mod common;

fn run(script: &str) {
    let tmp = common::temp_dir(&format!("image-{}", script.trim_end_matches(".lua")));
    let tmp = tmp.to_string_lossy().into_owned();
    let folder = common::lua_dir().join("image");
    let path = folder.join(script).to_string_lossy().into_owned();
    let out = common::run_th_in(&folder, &[path.as_str()], "", &[("IMAGE_TEST_TMP", tmp.as_str())]);
    assert!(
        out.status == Some(0) && out.stdout.lines().last() == Some("ok"),
        "image/{script} failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
}

#[test]
fn load_save_and_buffers() {
    run("test_io.lua");
}

#[test]
fn bad_files_and_arguments_raise_named_errors() {
    run("test_errors.lua");
}

#[test]
fn geometry() {
    run("test_geometry.lua");
}

#[test]
fn colour_and_kernels() {
    run("test_colour.lua");
}

#[test]
fn filtering_drawing_and_display() {
    run("test_filter_draw.lua");
}

/// The same calls as the original torch/image, on the same inputs, give its results: the cases of
/// tests/fixtures/image/original/cases.lua against original.t7, which record.lua wrote under the
/// original Torch7 (loads exactly, JPEG within 1/255, float results within float rounding).
#[test]
fn results_match_the_original() {
    run("test_original.lua");
}

/// Without a screen, display says so on stderr, once, and the script goes on.
#[test]
fn display_without_a_screen_is_a_notice() {
    let out = common::run_th(&[
        "-e",
        "require 'image'; image.display(torch.rand(3, 8, 8)); image.display(torch.rand(8, 8)); print('after')",
    ]);
    out.assert_ok();
    assert_eq!(out.stdout.trim(), "after");
    assert_eq!(
        out.stderr.matches("image.display: no display").count(),
        1,
        "{}",
        out.stderr
    );
}

/// torch/image's own test file, unchanged, from a checkout of torch/image named by
/// LUATORCH_TORCH_IMAGE (its test/test.lua and assets/ are copied out, as the installed package
/// lays them out: sys.fpath() of test.lua must hold assets/). The repository holds none of its
/// files, so this runs only when asked: `LUATORCH_TORCH_IMAGE=<checkout> cargo test --test image
/// -- --ignored`.
#[test]
#[ignore = "needs a torch/image checkout named by LUATORCH_TORCH_IMAGE"]
fn torch_image_own_tests_from_a_checkout() {
    let src = std::env::var_os("LUATORCH_TORCH_IMAGE")
        .expect("LUATORCH_TORCH_IMAGE must name a torch/image checkout (with test/ and assets/)");
    let src = std::path::PathBuf::from(src);
    let dir = common::temp_dir("image-original");
    let pkg = dir.join("image");
    std::fs::create_dir_all(pkg.join("assets")).unwrap();
    std::fs::copy(src.join("test").join("test.lua"), pkg.join("test.lua")).unwrap();
    for entry in std::fs::read_dir(src.join("assets")).unwrap().flatten() {
        std::fs::copy(entry.path(), pkg.join("assets").join(entry.file_name())).unwrap();
    }
    let run = dir.join("run.lua");
    std::fs::write(
        &run,
        format!(
            "require 'image'\ndofile({:?})\nimage.test(nil, 1234)\n",
            pkg.join("test.lua").to_string_lossy()
        ),
    )
    .unwrap();
    let out = common::run_th_in(&dir, &[run.to_string_lossy().as_ref()], "", &[]);
    assert!(
        out.status == Some(0) && out.stdout.contains("in 41 tests with 0 failures and 0 errors"),
        "torch/image's tests\n--- stdout\n{}\n--- stderr\n{}",
        out.stdout,
        out.stderr
    );
}
