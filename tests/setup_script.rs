//! The README's first command, `scripts/setup.sh`: the Debian packages it installs must be the ones
//! that provide what `th` loads at run time, and `.ci/run` must install the same list (it asks the
//! script for it, so the two cannot drift).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn runtime_packages() -> Vec<String> {
    let out = Command::new("bash")
        .arg(root().join("scripts/setup.sh"))
        .arg("--print-runtime-packages")
        .output()
        .expect("bash runs scripts/setup.sh");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

#[test]
fn ci_installs_the_setup_scripts_runtime_packages() {
    let packages = runtime_packages();
    for wanted in [
        "libopenblas-dev",
        "lua-penlight",
        "gnuplot-nox",
        "lua-filesystem",
        "lua-cjson",
    ] {
        assert!(
            packages.iter().any(|p| p == wanted),
            "{wanted} missing from {packages:?}"
        );
    }
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    assert!(
        ci.contains("$(scripts/setup.sh --print-runtime-packages)"),
        ".ci/run does not install the setup script's runtime packages"
    );
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let first_block = readme.split("```sh\n").nth(1).unwrap_or("");
    assert!(
        first_block.starts_with("scripts/setup.sh\n"),
        "the README's first command is not the setup script: {first_block}"
    );
    for p in &packages {
        assert!(
            readme.contains(&format!("| `{p}` |")),
            "README does not say what {p} is for"
        );
    }
}

/// The Debian package that holds `path` (after symbolic links), or None without dpkg.
fn owning_package(path: &Path) -> Option<String> {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let out = Command::new("dpkg").arg("-S").arg(&real).output().ok()?;
    if !out.status.success() {
        return Some(String::new());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Some(text.split(':').next().unwrap_or("").trim().to_owned())
}

/// Where `th` finds each thing it loads from the system at run time, as th itself searches.
fn what_th_loads() -> Vec<(&'static str, Option<PathBuf>)> {
    let script = r#"
      local function found(p) print(p or '') end
      found(package.searchpath('pl.lapp', package.path))
      found(package.searchpath('lfs', package.cpath))
      found(package.searchpath('cjson', package.cpath))
      found(package.searchpath('md5', package.path))
      found(require('paths').findprogram('gnuplot'))
    "#;
    let out = common::run_th(&["-e", script]);
    out.assert_ok();
    let mut lines = out.stdout.lines().map(|l| l.trim().to_owned());
    let mut next = || lines.next().filter(|l| !l.is_empty()).map(PathBuf::from);
    let mut found = vec![
        ("pl.lapp", next()),
        ("lfs", next()),
        ("cjson", next()),
        ("md5", next()),
        ("gnuplot", next()),
    ];
    // The BLAS th dlopens, by the soname the loader asks for.
    let ldconfig = Command::new("ldconfig").arg("-p").output().ok();
    let blas = ldconfig.and_then(|o| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .find(|l| l.trim_start().starts_with("libopenblas.so.0 "))
            .and_then(|l| l.split("=> ").nth(1))
            .map(|p| PathBuf::from(p.trim()))
    });
    found.push(("libopenblas.so.0", blas));
    found
}

#[test]
fn the_runtime_packages_provide_what_th_loads() {
    if Command::new("dpkg").arg("--version").output().is_err() {
        eprintln!("skipped: no dpkg, not a Debian machine");
        return;
    }
    let packages = runtime_packages();
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    for (what, path) in what_th_loads() {
        let Some(path) = path else {
            assert!(!ci, "th finds no {what}: .ci/run should have installed it");
            eprintln!("skipped {what}: not installed here (scripts/setup.sh installs it)");
            continue;
        };
        let owner = owning_package(&path).unwrap_or_default();
        // libopenblas.so.0 lives in the runtime package the -dev package depends on.
        let listed = packages
            .iter()
            .any(|p| *p == owner || (p.ends_with("-dev") && owner.starts_with(p.trim_end_matches("-dev"))));
        assert!(
            listed,
            "{what} comes from {} in package '{owner}', which scripts/setup.sh does not install ({packages:?})",
            path.display()
        );
    }
}
