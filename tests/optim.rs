//! optim through the real `th`: each algorithm minimises Rosenbrock's function or a quadratic to a
//! stated tolerance (tests/lua/optim/minimise.lua), the state fields after known steps match values
//! worked out by hand, optim.Logger writes Torch's file format and plots through gnuplot, and
//! optim.ConfusionMatrix counts and prints as Torch's did. Each script prints `ok` at its end.

mod common;

use common::{lua_dir, run_th, run_th_in, temp_dir};

fn script_ok(args: &[&str]) -> String {
    let out = run_th(args);
    out.assert_ok();
    assert!(
        out.stdout.ends_with("ok\n"),
        "{args:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.stdout,
        out.stderr
    );
    out.stdout
}

fn minimises(algorithm: &str) {
    let out = script_ok(&["optim/minimise.lua", algorithm]);
    assert_eq!(out, "ok\n");
}

#[test]
fn sgd_minimises_with_momentum_nesterov_and_on_rosenbrock() {
    minimises("sgd");
}

#[test]
fn nag_minimises() {
    minimises("nag");
}

#[test]
fn adam_minimises() {
    minimises("adam");
}

#[test]
fn adamax_minimises() {
    minimises("adamax");
}

#[test]
fn adagrad_minimises() {
    minimises("adagrad");
}

#[test]
fn adadelta_minimises() {
    minimises("adadelta");
}

#[test]
fn rmsprop_minimises() {
    minimises("rmsprop");
}

#[test]
fn rprop_minimises() {
    minimises("rprop");
}

#[test]
fn asgd_minimises_and_averages() {
    minimises("asgd");
}

#[test]
fn lbfgs_minimises_batch_stochastic_and_quadratic() {
    minimises("lbfgs");
}

#[test]
fn lbfgs_with_lswolfe_minimises() {
    minimises("lbfgs_lswolfe");
}

#[test]
fn cg_minimises() {
    minimises("cg");
}

#[test]
fn cmaes_minimises() {
    minimises("cmaes");
}

#[test]
fn de_minimises_and_repeats() {
    minimises("de");
}

#[test]
fn fista_and_ista_solve_a_lasso() {
    minimises("fista");
}

#[test]
fn state_fields_after_known_steps() {
    assert_eq!(script_ok(&["optim/state.lua"]), "ok\n");
}

#[test]
fn polyinterp_lswolfe_and_checkgrad() {
    assert_eq!(script_ok(&["optim/linesearch.lua"]), "ok\n");
}

#[test]
fn bad_input_errors_name_the_function() {
    assert_eq!(script_ok(&["optim/errors.lua"]), "ok\n");
}

#[test]
fn logger_writes_torchs_file_format() {
    assert_eq!(script_ok(&["optim/logger.lua"]), "ok\n");
}

#[test]
fn logger_without_a_file_logs_to_stdout() {
    // The Logger's own line format ends each field with a tab: the raw bytes, then.
    script_ok(&["optim/logger_stdout.lua"]);
    let out = run_th(&["optim/logger_stdout.lua"]);
    assert_eq!(
        out.raw_stdout,
        "<Logger> warning: no path provided, logging to std out\t\na\tb\t\n 1.0000e+00\tx\t\nok\t\n"
    );
}

#[test]
fn confusion_matrix_counts_and_prints() {
    assert_eq!(script_ok(&["optim/confusion.lua"]), "ok\n");
}

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
fn logger_plots_eps_and_png_through_gnuplot() {
    if !have_gnuplot() {
        return;
    }
    let dir = temp_dir("optim-logger-plot");
    // No display: the screen figure is drawn nowhere, whatever the machine running the tests has.
    let out = run_th_in(
        &lua_dir(),
        &["optim/logger_plot.lua", dir.to_str().unwrap()],
        "",
        &[("DISPLAY", ""), ("WAYLAND_DISPLAY", "")],
    );
    out.assert_ok();
    let png_path = out.stdout.lines().next().expect("the script prints the PNG's path");
    assert!(out.stdout.ends_with("ok\n"), "{}", out.stdout);
    let png = std::fs::read(png_path).expect("the PNG the logger plotted");
    assert!(png.len() > 8, "{png_path} is empty");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{png_path} is not a PNG");
    let eps = std::fs::read(dir.join("train.log.eps")).expect("train.log.eps");
    assert!(eps.starts_with(b"%!PS-Adobe"), "train.log.eps is not PostScript");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn example_trains_a_classifier_and_logs_its_loss() {
    let dir = temp_dir("optim-example");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = run_th_in(
        root,
        &["examples/optim_classifier.lua", dir.to_str().unwrap()],
        "",
        &[("DISPLAY", ""), ("WAYLAND_DISPLAY", "")],
    );
    out.assert_ok();
    // The last line of the confusion matrix: " + global correct: 95.3...%".
    let accuracy: f64 = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix(" + global correct: "))
        .and_then(|v| v.strip_suffix('%'))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no accuracy in\n{}", out.stdout));
    assert!(accuracy > 90.0, "accuracy {accuracy}%\n{}", out.stdout);
    let log = std::fs::read_to_string(dir.join("train.log")).expect("train.log");
    assert!(log.starts_with("loss\taccuracy (%)\t\n"), "{log}");
    assert_eq!(log.lines().count(), 21, "a header and 20 epochs:\n{log}");
    if have_gnuplot() {
        let png = std::fs::read(dir.join("loss.png")).expect("loss.png");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "loss.png is not a PNG");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
