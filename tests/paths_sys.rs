//! `paths`, `sys` and `xlua` as the real `th` runs them: each test runs a script from tests/lua/
//! that asserts the behaviour itself (exit status 0 on success), and checks what only the outside
//! can see (files left behind, the bytes of the progress bar).

mod common;

use std::path::{Path, PathBuf};

fn script(name: &str) -> String {
    common::lua_dir().join(name).to_string_lossy().into_owned()
}

#[test]
fn concat_and_names() {
    let out = common::run_th(&[&script("paths_concat.lua")]);
    out.assert_ok();
    assert!(out.stdout.contains("ok"), "{}", out.stdout);
}

#[test]
fn directories_and_listings() {
    let dir = common::temp_dir("paths_fs");
    let dir_s = dir.to_string_lossy().into_owned();
    let out = common::run_th_in(&dir, &[&script("paths_fs.lua"), &dir_s], "", &[]);
    out.assert_ok();
    assert!(out.stdout.contains("ok"), "{}", out.stdout);
    assert!(!dir.join("a").exists(), "rmall left the tree behind");
    assert!(dir.join("keep").join("precious").exists());
}

/// Runs paths_tmpname.lua with TMPDIR pointing at a fresh directory; returns the names it printed.
fn tmpnames_after(how: &str) -> (Vec<PathBuf>, PathBuf, common::Output) {
    let tmp = common::temp_dir(&format!("tmpname-{how}"));
    let tmp_s = tmp.to_string_lossy().into_owned();
    let out = common::run_th_in(
        &common::lua_dir(),
        &[&script("paths_tmpname.lua"), how],
        "",
        &[("TMPDIR", &tmp_s)],
    );
    let names: Vec<PathBuf> = out
        .stdout
        .lines()
        .filter(|l| !l.is_empty())
        .map(PathBuf::from)
        .collect();
    (names, tmp, out)
}

fn assert_removed(names: &[PathBuf], tmp: &Path, out: &common::Output) {
    assert_eq!(names.len(), 2, "expected two names\n{}\n{}", out.stdout, out.stderr);
    for n in names {
        assert!(
            n.starts_with(tmp),
            "{} is not under TMPDIR {}",
            n.display(),
            tmp.display()
        );
        assert!(!n.exists(), "{} still exists after th exited", n.display());
    }
    let left: Vec<_> = std::fs::read_dir(tmp).unwrap().collect();
    assert!(left.is_empty(), "files left in TMPDIR: {left:?}");
}

#[test]
fn tmpname_removed_when_script_ends() {
    let (names, tmp, out) = tmpnames_after("return");
    out.assert_ok();
    assert_removed(&names, &tmp, &out);
}

#[test]
fn tmpname_removed_after_os_exit() {
    let (names, tmp, out) = tmpnames_after("exit");
    out.assert_ok();
    assert_removed(&names, &tmp, &out);
}

#[test]
fn tmpname_removed_after_error() {
    let (names, tmp, out) = tmpnames_after("error");
    assert_eq!(out.status, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains("failing on purpose"), "{}", out.stderr);
    assert_removed(&names, &tmp, &out);
}

#[test]
fn sys_functions() {
    let dir = common::temp_dir("sys_basic");
    let dir_s = dir.to_string_lossy().into_owned();
    let out = common::run_th(&[&script("sys_basic.lua"), &dir_s]);
    out.assert_ok();
    assert!(out.stdout.contains("ok"), "{}", out.stdout);
}

#[test]
fn progress_bar() {
    let out = common::run_th(&[&script("xlua_progress.lua"), "20"]);
    out.assert_ok();
    let s = &out.stdout;
    let (first, rest) = s
        .split_once("between bars\n")
        .expect("the first bar ends before 'between bars'");
    // The first bar: drawn at step 1, redrawn in place with \r, finished with a newline at 20/20.
    assert!(first.starts_with(" ["), "{first:?}");
    assert!(first.contains("] 1/20 | Tot: "), "{first:?}");
    assert!(first.contains(" | ETA: "), "{first:?}");
    assert!(first.contains('\r'), "the bar is redrawn with \\r: {first:?}");
    assert!(first.contains(">"), "{first:?}");
    assert!(first.contains("...."), "{first:?}");
    assert_eq!(first.matches('\n').count(), 1, "one newline, at the end: {first:?}");
    let last = first.trim_end_matches('\n').rsplit('\r').next().unwrap().trim_end();
    assert!(last.contains("] 20/20 | Tot: "), "{last:?}");
    assert!(last.contains(" | Step: "), "{last:?}");
    assert!(
        !last.contains('>') && !last.contains(".."),
        "a full bar at the end: {last:?}"
    );
    assert!(first.ends_with('\n'));
    // The second bar starts afresh (no \r before it) and also ends with a newline.
    let (second, tail) = rest.split_once("done\n").expect("script finished");
    assert!(second.starts_with(" ["), "{second:?}");
    assert!(second.contains("] 3/3 | Tot: ") && second.ends_with('\n'), "{second:?}");
    assert!(tail.is_empty(), "{tail:?}");
}

#[test]
fn string_split_and_helpers() {
    let out = common::run_th(&[&script("xlua_helpers.lua")]);
    out.assert_ok();
    assert!(out.stdout.contains("ok"), "{}", out.stdout);
}

#[test]
fn modules_are_globals_in_th() {
    let out = common::run_th(&[
        "-e",
        "assert(type(paths) == 'table' and type(sys) == 'table' and type(xlua) == 'table') \
         assert(type(string.split) == 'function') \
         assert(require('libsys').isatty(1) == false) print('ok')",
    ]);
    out.assert_ok();
    assert_eq!(out.stdout.trim(), "ok");
}
