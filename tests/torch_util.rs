//! torch.Timer, torch.CmdLine, torch.Tester and the smaller torch utilities, through the real
//! `th`. No test depends on how long anything takes.

mod common;

use common::run_th;

fn script_ok(name: &str) {
    let out = run_th(&[name]);
    out.assert_ok();
    assert_eq!(out.stdout, "ok\n", "stderr: {}", out.stderr);
}

/// The help text of tests/lua/torch_util_cmdline.lua after its Usage line (which ends in a
/// newline); it starts with the blank line of `cmd:text()`.
const CMDLINE_HELP_BODY: &str = "
Train a model

Options:
  -lr      learning rate [0.1]
  -epochs  number of epochs [10]
  -name    experiment name [run]
  -cuda    use the GPU [false]
  -verbose print progress [true]

Arguments:
  <data>   training data
  <out>    output directory
";

#[test]
fn timer_stop_resume_reset_and_tic_toc() {
    script_ok("torch_util_timer.lua");
}

#[test]
fn cmdline_parses_options_and_arguments() {
    let out = run_th(&[
        "torch_util_cmdline.lua",
        "-lr",
        "0.01",
        "train.t7",
        "-cuda",
        "-verbose",
        "-name",
        "big run",
        "outdir",
        "-epochs",
        "-3",
    ]);
    out.assert_ok();
    assert_eq!(
        out.stdout,
        "cuda=true (boolean)\ndata=train.t7 (string)\nepochs=-3 (number)\nlr=0.01 (number)\n\
         name=big run (string)\nout=outdir (string)\nverbose=false (boolean)\n"
    );
}

#[test]
fn cmdline_defaults() {
    let out = run_th(&["torch_util_cmdline.lua", "a", "b"]);
    out.assert_ok();
    assert_eq!(
        out.stdout,
        "cuda=false (boolean)\ndata=a (string)\nepochs=10 (number)\nlr=0.1 (number)\n\
         name=run (string)\nout=b (string)\nverbose=true (boolean)\n"
    );
}

#[test]
fn cmdline_help_exits_zero_with_torchs_layout() {
    for flag in ["-h", "--help", "-help"] {
        let out = run_th(&["torch_util_cmdline.lua", "a", flag]);
        out.assert_ok();
        let (usage, body) = out.stdout.split_once('\n').unwrap();
        // The usage line names arg[0] (th's own path, as under trepl).
        assert!(usage.starts_with("Usage: "), "{usage}");
        assert!(usage.ends_with(" [options] <data> <out>"), "{usage}");
        assert_eq!(body, CMDLINE_HELP_BODY);
    }
}

#[test]
fn cmdline_help_flag_as_an_option_value_is_a_value() {
    let out = run_th(&["torch_util_cmdline.lua", "-name", "-h", "a", "b"]);
    out.assert_ok();
    assert!(out.stdout.contains("name=-h (string)\n"), "{}", out.stdout);
}

/// A parse error, as Torch's: two blank lines and the help (without the program's name) on
/// stdout, the message alone on stderr, status 1.
fn cmdline_fails(args: &[&str], message: &str) {
    let mut all = vec!["torch_util_cmdline.lua"];
    all.extend_from_slice(args);
    let out = run_th(&all);
    assert_eq!(out.status, Some(1), "{args:?}: {}", out.stderr);
    assert_eq!(
        out.stdout,
        format!("\n\nUsage: [options] <data> <out>\n{CMDLINE_HELP_BODY}"),
        "{args:?}"
    );
    assert_eq!(out.stderr, message, "{args:?}");
}

#[test]
fn cmdline_errors_print_the_help_and_name_the_problem() {
    // An undeclared '-x' is a positional argument, one too many here.
    cmdline_fails(&["a", "b", "-x"], "invalid argument: -x");
    cmdline_fails(&["-bogus"], "not enough arguments");
    cmdline_fails(&["a"], "not enough arguments");
    cmdline_fails(&["a", "b", "-lr"], "missing argument for option -lr");
    cmdline_fails(
        &["a", "b", "-lr", "fast"],
        "invalid type for option -lr (should be number)",
    );
    cmdline_fails(&["a", "b", "c"], "invalid argument: c");
}

#[test]
fn cmdline_api_defaults_string_and_declaration_errors() {
    script_ok("torch_util_cmdline_api.lua");
}

#[test]
fn cmdline_log_tees_print_to_a_file() {
    let out = run_th(&["torch_util_cmdline_log.lua"]);
    out.assert_ok();
    let first = out.stdout.lines().next().unwrap_or("");
    assert!(first.starts_with("[program started on "), "{}", out.stdout);
    assert!(
        out.stdout
            .ends_with("]\n[command line arguments]\nlr\t0.5\n[----------------------]\nhello\t42\ttrue\ndone\n"),
        "{}",
        out.stdout
    );
    // silent(): the second log's lines went to its file only.
    assert!(!out.stdout.contains("quiet line"), "{}", out.stdout);
}

#[test]
fn include_package_paths_and_luat_helpers() {
    script_ok("torch_util_misc.lua");
}

#[test]
fn tester_reports_each_test_and_the_failures() {
    let out = run_th(&["torch_util_tester.lua"]);
    out.assert_ok();
    let expected_start = "Running 6 tests
1/6 arithmetic .......................................................... [WAIT]\r1/6 arithmetic .......................................................... [PASS]
2/6 errors .............................................................. [WAIT]\r2/6 errors .............................................................. [PASS]
3/6 failing ............................................................. [WAIT]\r3/6 failing ............................................................. [FAIL]
4/6 raising ............................................................. [WAIT]\r4/6 raising ............................................................. [ERROR]
5/6 skipped ............................................................. [WAIT]\r5/6 skipped ............................................................. [SKIP]
6/6 tensors ............................................................. [WAIT]\r6/6 tensors ............................................................. [PASS]
Completed 18 asserts in 6 tests with 1 failure and 1 error and 1 disabled
--------------------------------------------------------------------------------
failing
deliberate failure
BOOL violation condition=false
stack traceback:
\ttorch_util_tester.lua:31: in function <torch_util_tester.lua:30>
--------------------------------------------------------------------------------
failing
a and b should be equal
TensorEQ(==) violation: max diff=1, tolerance=0
stack traceback:
\ttorch_util_tester.lua:32: in function <torch_util_tester.lua:30>
--------------------------------------------------------------------------------
raising
 Function call failed
torch_util_tester.lua:36: deliberate error
";
    assert!(out.stdout.starts_with(expected_start), "{}", out.stdout);
    assert!(
        out.stdout.ends_with(
            "run error: An error was found while running tests!
Running 1 test
1/1 only ................................................................ [WAIT]\r1/1 only ................................................................ [PASS]
Completed 1 assert in 1 test with 0 failures and 0 errors
"
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn tester_hooks_warnings_arguments_and_run_modes() {
    script_ok("torch_util_tester_api.lua");
}
