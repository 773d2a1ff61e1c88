//! The command line of `th`, as trepl's: scripts and their arguments, -e, -l, -i, stdin, exit
//! codes, errors with tracebacks, module search order, and compiled Lua C modules.

mod common;

use common::{lua_dir, run_th, run_th_in, temp_dir};

#[test]
fn script_sees_its_arguments_in_arg() {
    let out = run_th(&["cli_args.lua", "a", "b c", "-x"]);
    out.assert_ok();
    assert!(out.stdout.contains("n=3\n"), "{}", out.stdout);
    assert!(
        out.stdout.contains("arg[1]=a\narg[2]=b c\narg[3]=-x\n"),
        "{}",
        out.stdout
    );
    // trepl copies th's own arg[0] (the interpreter's path), not the script's.
    assert!(
        out.stdout.contains("arg0=") && out.stdout.contains("th\n"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("varargs=3"), "{}", out.stdout);
}

#[test]
fn execute_option_runs_statements_in_order() {
    let out = run_th(&["-e", "x = 1", "-e", "print(x + 1)"]);
    out.assert_ok();
    assert_eq!(out.stdout, "2\n");
}

#[test]
fn execute_then_script() {
    let out = run_th(&["-e", "GREETING='hi'", "cli_args.lua", "z"]);
    out.assert_ok();
    assert!(out.stdout.contains("arg[1]=z"));
}

#[test]
fn require_option_loads_a_module() {
    let out = run_th_in(
        &lua_dir().join("searchorder/local"),
        &[
            "-l",
            "which",
            "-lpkg",
            "-e",
            "print(package.loaded.which, package.loaded.pkg)",
        ],
        "",
        &[],
    );
    out.assert_ok();
    assert_eq!(out.stdout, "from ./?.lua\tpkg init\n");
}

#[test]
fn require_option_with_a_missing_module_fails_clearly() {
    let out = run_th(&["-l", "nonexistent_mod"]);
    assert_eq!(out.status, Some(1));
    assert!(
        out.stderr.contains("module 'nonexistent_mod' not found"),
        "{}",
        out.stderr
    );
}

#[test]
fn dash_reads_the_script_from_stdin() {
    let out = run_th_in(&lua_dir(), &["-", "p", "q"], "print(#arg, arg[1], arg[2])", &[]);
    out.assert_ok();
    assert_eq!(out.stdout, "2\tp\tq\n");
}

#[test]
fn piped_stdin_without_a_script_runs_the_repl() {
    // As trepl's th: each line is evaluated and expressions print their values.
    let out = run_th_in(&lua_dir(), &[], "x = 3\nx * 2\n", &[]);
    out.assert_ok();
    assert_eq!(out.raw_stdout, "6\t\n");
    // Multi-line input continues; an error is reported and the next input still runs; the status
    // says an input failed; `exit` ends the input.
    let input =
        "function f(a)\n  return a + 1\nend\nf(41)\nerror('bo' .. 'om')\n'after', {1}\nexit\nprint('not run')\n";
    let out = run_th_in(&lua_dir(), &[], input, &[]);
    assert_eq!(out.status, Some(1), "{}", out.stderr);
    assert_eq!(out.raw_stdout, "42\t\nafter\t{\n  1 : 1\n}\n");
    assert!(out.stderr.starts_with("stdin:1: boom\n"), "{}", out.stderr);
    // An unfinished input at the end is a syntax error.
    let out = run_th_in(&lua_dir(), &[], "y = 1\nfor i = 1, 2 do\n", &[]);
    assert_eq!(out.status, Some(1));
    assert!(out.stderr.contains("'end' expected"), "{}", out.stderr);
    // `th -` still runs standard input as one script.
    let out = run_th_in(&lua_dir(), &["-"], "local x = 3\nprint(x * 2)\n", &[]);
    out.assert_ok();
    assert_eq!(out.stdout, "6\n");
}

#[test]
fn print_lays_out_values_as_trepl() {
    // The bytes of trepl's print under the original Torch7 for the same script: plain values end
    // with a tab and the line after the last one; print() writes nothing; a tensor or storage takes
    // its own lines; tables are laid out key by key, '{...}' for an empty nested one.
    let out = run_th(&["trepl_print.lua"]);
    out.assert_ok();
    let expected = "a\t\nlabel\t 1\n 2\n[torch.DoubleTensor of size 2]\n\n1\t2\tx\t\nnil\t\n{\n  a : 1\n}\n\
x\tnil\t3\t\n 1  1\n 1  1\n[torch.DoubleTensor of size 2x2]\n\nafter\t\ntrue\tfalse\t\nn\t{}\n{\n  k : {...}\n}\n\
{\n  outer : \n    {\n      inner : \n        {\n          x : \"y\"\n        }\n    }\n}\n 3\n 4\n[torch.LongStorage of size 2]\n\n";
    assert_eq!(out.raw_stdout, expected);
}

#[test]
fn interactive_after_script_reads_the_repl_from_stdin() {
    // With -i and a non-terminal stdin, the REPL still starts after the script; EOF ends it.
    let out = run_th_in(&lua_dir(), &["-i", "-e", "y = 41"], "", &[]);
    assert_eq!(out.status, Some(0), "{}", out.stderr);
}

#[test]
fn a_script_error_prints_message_and_traceback_and_exits_1() {
    let out = run_th(&["cli_error.lua"]);
    assert_eq!(out.status, Some(1));
    assert!(
        out.stderr.contains("cli_error.lua:2: deliberate failure"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("stack traceback:"), "{}", out.stderr);
    assert!(
        out.stderr.contains("in function 'inner'") || out.stderr.contains("inner"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
}

#[test]
fn error_with_a_table_value_is_reported() {
    let out = run_th(&["-e", "error({code = 1})"]);
    assert_eq!(out.status, Some(1));
    assert!(out.stderr.contains("error object is a table value"), "{}", out.stderr);
}

#[test]
fn os_exit_sets_the_status() {
    let out = run_th(&["cli_exit.lua", "7"]);
    assert_eq!(out.status, Some(7));
    assert_eq!(out.stdout, "before exit\n");
    let out = run_th(&["-e", "os.exit(0)"]);
    assert_eq!(out.status, Some(0));
    let out = run_th(&["-e", "os.exit(false)"]);
    assert_eq!(out.status, Some(1));
}

#[test]
fn a_missing_script_fails_clearly() {
    let out = run_th(&["does_not_exist.lua"]);
    assert_eq!(out.status, Some(1));
    assert_eq!(
        out.stderr.trim(),
        "th: cannot open does_not_exist.lua: No such file or directory"
    );
}

#[test]
fn a_syntax_error_fails_clearly() {
    let out = run_th(&["cli_syntax.lua"]);
    assert_eq!(out.status, Some(1));
    assert!(out.stderr.contains("cli_syntax.lua:1:"), "{}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
}

#[test]
fn an_unknown_flag_fails_with_usage() {
    let out = run_th(&["--frobnicate"]);
    assert_eq!(out.status, Some(1));
    assert!(out.stderr.contains("unrecognized flag --frobnicate"), "{}", out.stderr);
    assert!(out.stderr.contains("Usage: th"), "{}", out.stderr);
    let out = run_th(&["-e"]);
    assert_eq!(out.status, Some(1));
    assert!(out.stderr.contains("needs an argument"), "{}", out.stderr);
}

#[test]
fn help_and_version() {
    let out = run_th(&["-h"]);
    out.assert_ok();
    assert!(out.stdout.starts_with("Usage: th"));
    let out = run_th(&["--version"]);
    out.assert_ok();
    assert!(
        out.stdout.contains("luatorch") && out.stdout.contains("LuaJIT 2.1"),
        "{}",
        out.stdout
    );
}

#[test]
fn trepl_globals_and_the_full_standard_library() {
    run_th(&["cli_globals.lua"]).assert_ok();
}

/// penlight (Debian's lua-penlight, which .ci/run installs) gives `lapp` and its other modules
/// as globals on first use. Without it the test says it skipped (under CI=true it fails).
#[test]
fn lapp_and_penlight_globals_work() {
    if !std::path::Path::new("/usr/share/lua/5.1/pl/lapp.lua").exists() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "penlight is not installed (apt-get install lua-penlight)"
        );
        eprintln!("skipped: penlight is not installed (apt-get install lua-penlight)");
        return;
    }
    let out = run_th(&["cli_lapp.lua", "-n", "5", "data.t7"]);
    out.assert_ok();
    assert_eq!(out.stdout, "ok\n");
}

#[test]
fn errors_from_rust_functions_are_strings_in_lua() {
    let out = run_th(&[
        "-e",
        "local ok, e = pcall(require('libsys').isatty, 'x') \
         assert(type(e) == 'string' and e:find('isatty'), tostring(e)) \
         local co = coroutine.create(function() require('libsys').isatty({}) end) \
         local ok2, e2 = coroutine.resume(co) \
         assert(not ok2 and type(e2) == 'string', tostring(e2)) print('ok')",
    ]);
    out.assert_ok();
}

#[test]
fn module_search_order() {
    let local = lua_dir().join("searchorder/local");
    let home = lua_dir().join("searchorder/home");
    let home = home.to_str().unwrap();
    run_th_in(&local, &["../check.lua", "from ./?.lua"], "", &[("HOME", home)]).assert_ok();
    let envdir = lua_dir().join("searchorder/envdir/?.lua");
    let out = run_th_in(
        &local,
        &["../check.lua", "from LUA_PATH"],
        "",
        &[("HOME", home), ("LUA_PATH", envdir.to_str().unwrap())],
    );
    out.assert_ok();
    assert!(out.stdout.contains("search order ok"));
}

#[test]
fn embedded_modules_work_from_any_directory() {
    let dir = temp_dir("anydir");
    let out = run_th_in(&dir, &["-e", "print(type(require 'trepl.colors'))"], "", &[]);
    out.assert_ok();
    assert_eq!(out.stdout, "table\n");
}

#[test]
fn a_compiled_c_module_loads_into_th() {
    let home = temp_dir("cmodule-home");
    let libdir = home.join(".luarocks/lib/lua/5.1");
    std::fs::create_dir_all(&libdir).unwrap();
    let so = libdir.join("cmodule.so");
    let status = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&so)
        .arg(lua_dir().join("cmodule.c"))
        .status()
        .expect("a C compiler (cc) to build the test module");
    assert!(status.success());
    let out = run_th_in(
        &home,
        &["-e", "local m = require 'cmodule' print(m.name, m.twice(21))"],
        "",
        &[("HOME", home.to_str().unwrap())],
    );
    out.assert_ok();
    assert_eq!(out.stdout, "compiled C module\t42\n");
}
