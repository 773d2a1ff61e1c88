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

/// Checks one bar of `n` steps as xlua draws it on an 80-column terminal, draw by draw: the
/// 46-cell bar, 30 blanks and 30 backspaces, the time text, backspaces to the middle of the bar,
/// ' i/n ', a newline once full, and '\r'. Returns what follows the bar.
fn check_bar(mut s: &str, n: usize) -> &str {
    const CELLS: usize = 80 - 34;
    for i in 1..=n {
        if i > 1 {
            s = s
                .strip_prefix('\r')
                .unwrap_or_else(|| panic!("draw {i} starts with \\r: {s:?}"));
        }
        let cell = i * CELLS / n;
        let bar: String = (1..=CELLS)
            .map(|c| {
                if c < cell {
                    '='
                } else if c == cell {
                    '>'
                } else {
                    '.'
                }
            })
            .collect();
        let head = format!(" [{bar}] {}{}", " ".repeat(30), "\u{8}".repeat(30));
        s = s
            .strip_prefix(head.as_str())
            .unwrap_or_else(|| panic!("draw {i}: expected {head:?} in {s:?}"));
        let tm_len = s.find('\u{8}').expect("backspaces after the time");
        let tm = &s[..tm_len];
        let label = if cell < CELLS { " ETA: " } else { " Tot: " };
        assert!(
            tm.starts_with(label) && tm.contains(" | Step: ") && tm.ends_with("ms"),
            "draw {i}: {tm:?}"
        );
        s = &s[tm_len..];
        let back = "\u{8}".repeat(5 + tm_len + CELLS / 2);
        s = s
            .strip_prefix(back.as_str())
            .unwrap_or_else(|| panic!("draw {i}: {} backspaces in {s:?}", back.len()));
        let counter = format!(" {i}/{n} {}\r", if i == n { "\n" } else { "" });
        s = s
            .strip_prefix(counter.as_str())
            .unwrap_or_else(|| panic!("draw {i}: {counter:?} in {s:?}"));
    }
    s
}

#[test]
fn progress_bar_is_xluas_byte_for_byte() {
    let out = common::run_th_in(
        &common::lua_dir(),
        &[&script("xlua_progress.lua"), "20"],
        "",
        &[("COLUMNS", "80")],
    );
    out.assert_ok();
    let rest = check_bar(&out.stdout, 20);
    // A full bar's next call with a smaller count starts a new bar, with no \r before it.
    let rest = rest
        .strip_prefix("between bars\n")
        .expect("the first bar ends before 'between bars'");
    let rest = check_bar(rest, 3);
    assert_eq!(rest, "done\n");
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

#[test]
fn xlua_extras() {
    let out = common::run_th_in(
        &common::lua_dir(),
        &[&script("xlua_extras.lua")],
        "",
        &[
            ("XLUA_LR", "0.5"),
            ("XLUA_NESTEROV", "false"),
            ("XLUA_NAME", "resnet"),
            ("XLUA_FLAG_T", "True"),
            ("XLUA_BAD_NUM", "abc"),
            ("XLUA_BAD_BOOL", "yes"),
        ],
    );
    out.assert_ok();
    // xlua.log copies stdout into its file: what the script logged reached stdout as well.
    assert!(
        out.stdout.contains("hello 42\nprinted    1\nmore\nfresh\n"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.ends_with("ok\n"), "{}", out.stdout);
}

/// `libsettings` reads the one list of settings: a set value, an unset one, `off`, and a name not
/// in the list refused with the list in the message.
#[test]
fn settings_are_read_from_the_list() {
    let code = r#"
        local s = require 'libsettings'
        assert(s.get('LUATORCH_TREE_ALGO') == 'ring', tostring(s.get('LUATORCH_TREE_ALGO')))
        assert(s.get('LUATORCH_CUDA_VERBOSE') == nil)
        assert(s.off('LUATORCH_TREE_SHM') == true and s.off('LUATORCH_TREE_NET') == false)
        local ok, err = pcall(s.get, 'LUATORCH_TREE_ALOG')
        assert(not ok and err:find("settings.get: 'LUATORCH_TREE_ALOG' is not a luatorch setting", 1, true), err)
        assert(err:find('LUATORCH_NCCL_TIMEOUT', 1, true), err)
        print('ok')
    "#;
    let env = [
        ("LUATORCH_TREE_ALGO", "ring"),
        ("LUATORCH_TREE_SHM", "0"),
        ("LUATORCH_TREE_NET", ""),
        ("LUATORCH_CUDA_VERBOSE", ""),
    ];
    let out = common::run_th_in(&std::env::temp_dir(), &["-e", code], "", &env);
    out.assert_ok();
    assert_eq!(out.stdout, "ok\n", "stderr: {}", out.stderr);
}
