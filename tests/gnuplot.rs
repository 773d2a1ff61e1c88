//! The gnuplot package through the real `th`: plots rendered by the gnuplot program into real
//! PNG, EPS, SVG and PDF files; argument errors; a clear error naming the function when gnuplot is
//! not installed; and a gnuplot that dies makes the next write fail instead of hanging. The Lua
//! side is tests/lua/gnuplot/*.lua; each script prints `ok` at its end.

mod common;

use common::{lua_dir, run_th, run_th_in, temp_dir};

/// Whether the gnuplot program is on PATH. Missing, a test that needs it prints why and skips,
/// except under CI (env `CI` set), which installs it: there it fails.
fn have_gnuplot() -> bool {
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|dir| dir.join("gnuplot").is_file()))
        .unwrap_or(false);
    if !found {
        if std::env::var_os("CI").is_some() {
            panic!("gnuplot is missing (.ci/run installs gnuplot-nox)");
        }
        println!("skipped: no gnuplot on PATH (apt-get install gnuplot-nox)");
    }
    found
}

#[test]
fn renders_real_png_eps_svg_and_pdf_files() {
    if !have_gnuplot() {
        return;
    }
    let dir = temp_dir("gnuplot-render");
    // No display: screen figures are drawn nowhere, whatever the machine running the tests has.
    let out = run_th_in(
        &lua_dir(),
        &["gnuplot/render.lua", dir.to_str().unwrap()],
        "",
        &[("DISPLAY", ""), ("WAYLAND_DISPLAY", "")],
    );
    out.assert_ok();
    assert!(out.stdout.ends_with("ok\n"), "{}", out.stdout);
    let png_path = out
        .stdout
        .lines()
        .find(|l| l.ends_with(".png"))
        .expect("the script prints the PNG's path");
    let png = std::fs::read(png_path).expect("the PNG gnuplot rendered");
    assert!(png.len() > 8, "{png_path} is empty");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{png_path} is not a PNG");
    // The IHDR chunk follows the signature: a picture of nonzero width and height.
    assert_eq!(&png[12..16], b"IHDR");
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert!(width > 0 && height > 0, "{width}x{height}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_get_errors_naming_the_function() {
    let out = run_th(&["gnuplot/args.lua"]);
    out.assert_ok();
    assert_eq!(out.stdout, "ok\n", "stderr: {}", out.stderr);
}

#[test]
fn without_gnuplot_each_function_says_it_is_not_installed() {
    // PATH leads to an empty directory: no gnuplot (and no other program).
    let empty = temp_dir("gnuplot-no-path");
    let out = run_th_in(
        &lua_dir(),
        &["gnuplot/missing.lua"],
        "",
        &[("PATH", empty.to_str().unwrap())],
    );
    out.assert_ok();
    assert_eq!(
        out.stdout,
        "<Logger> warning: cannot plot: the gnuplot program is not installed (not found on PATH; \
         on Debian: apt-get install gnuplot-nox), or name it with gnuplot.setgnuplotexe(path)\nok\n",
        "stderr: {}",
        out.stderr
    );
}

#[test]
fn writes_to_a_dead_gnuplot_fail_with_an_error() {
    // A stand-in gnuplot (a shell script the Lua side writes) that exits after one line.
    let out = run_th(&["gnuplot/dead.lua"]);
    out.assert_ok();
    assert_eq!(out.stdout, "ok\n", "stderr: {}", out.stderr);
}
