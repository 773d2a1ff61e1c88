//! examples/data_parallel_train.lua, the data-parallel trainer, run for real on CPU (`--cpu`): one
//! and two workers of the seed's small model, two workers of the convnet, the replicas check
//! failing on purpose (`--faultrank`), and bad options. Each run checks the lines the script prints
//! (replicas identical, the model saved and reloaded with the same output, the summary with
//! updates/s) and the optim.Logger file it writes.
//!
//! The workers find each other over loopback (ipc.LocalhostTree); `--timeout 20` bounds every wait
//! for another worker, and common::TIMEOUT kills a `th` that would still hang. Nothing here depends
//! on timing: the updates/s figure is only checked to be a positive number.

mod common;

use std::path::{Path, PathBuf};

use common::{Output, run_th_in, temp_dir};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join("data_parallel_train.lua")
}

/// Runs the trainer on CPU in a fresh directory, its files going there too.
fn train(name: &str, args: &[&str]) -> (Output, PathBuf) {
    let dir = temp_dir(name);
    let script = script();
    let dir_arg = dir.to_str().unwrap().to_string();
    let mut all = vec![script.to_str().unwrap(), "--cpu", "--timeout", "20", "--dir", &dir_arg];
    all.extend_from_slice(args);
    (run_th_in(&dir, &all, "", &[]), dir)
}

fn line_with<'a>(out: &'a Output, prefix: &str) -> &'a str {
    out.stdout.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| {
        panic!(
            "no line starting with {prefix:?}\n--- stdout\n{}\n--- stderr\n{}",
            out.stdout, out.stderr
        )
    })
}

/// The value of `key=` in the summary line.
fn field<'a>(summary: &'a str, key: &str) -> &'a str {
    summary
        .split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("no {key}= in {summary:?}"))
}

/// Checks a successful run of `workers` workers, `steps` updates, logging every `logevery`.
fn check_run(out: &Output, dir: &Path, model: &str, workers: usize, steps: usize, logevery: usize) {
    out.assert_ok();
    let replicas = line_with(out, "replicas identical: ");
    assert!(
        replicas.starts_with(&format!("replicas identical: {workers} workers, ")),
        "{replicas}"
    );
    let params = if model == "small" { 241 } else { 61706 };
    assert!(replicas.contains(&format!(", {params} parameters,")), "{replicas}");

    let stem = format!("data_parallel_{model}");
    let saved = line_with(out, "saved and reloaded ");
    assert!(
        saved.contains(&format!("{stem}.t7: same output on a test batch of 64")),
        "{saved}"
    );
    assert!(dir.join(format!("{stem}.t7")).is_file());

    // Torch's Logger format: the names, each followed by a tab, then one row per logged point.
    let log = std::fs::read_to_string(dir.join(format!("{stem}.log"))).unwrap();
    let mut rows = log.lines();
    assert_eq!(rows.next(), Some("training loss (mean over workers)\t"), "{log}");
    let values: Vec<f64> = rows
        .map(|r| {
            let v = r
                .strip_suffix('\t')
                .unwrap_or_else(|| panic!("row {r:?} lacks its tab"));
            v.trim().parse().unwrap_or_else(|e| panic!("row {r:?}: {e}"))
        })
        .collect();
    assert_eq!(values.len(), steps.div_ceil(logevery), "{log}");
    assert!(values.iter().all(|v| v.is_finite() && *v >= 0.0), "{log}");
    line_with(out, "loss logged to ");

    let overhead = line_with(out, "per update: ");
    assert!(
        overhead.contains("allreduce/sync") && overhead.contains("sync overhead"),
        "{overhead}"
    );

    // The summary is the last line.
    let summary = out.stdout.lines().last().unwrap();
    assert!(summary.starts_with("summary: "), "{}", out.stdout);
    assert_eq!(field(summary, "model"), model);
    assert_eq!(field(summary, "device"), "cpu");
    assert_eq!(field(summary, "workers"), workers.to_string());
    assert_eq!(field(summary, "updates"), steps.to_string());
    let ups: f64 = field(summary, "updates/s").parse().unwrap();
    assert!(ups > 0.0 && ups.is_finite(), "{summary}");
}

#[test]
fn small_model_one_worker() {
    let (out, dir) = train("dp-small-1", &["--workers", "1", "--steps", "20", "--logevery", "5"]);
    check_run(&out, &dir, "small", 1, 20, 5);
}

#[test]
fn small_model_two_workers_nesterov() {
    let args = [
        "--workers",
        "2",
        "--steps",
        "30",
        "--logevery",
        "4",
        "--optim",
        "nesterov",
    ];
    let (out, dir) = train("dp-small-2", &args);
    check_run(&out, &dir, "small", 2, 30, 4);
}

#[test]
fn convnet_two_workers_global_batch() {
    let args = [
        "--model",
        "conv",
        "--workers",
        "2",
        "--steps",
        "6",
        "--globalbatch",
        "8",
        "--logevery",
        "2",
    ];
    let (out, dir) = train("dp-conv-2", &args);
    check_run(&out, &dir, "conv", 2, 6, 2);
    let summary = out.stdout.lines().last().unwrap();
    assert_eq!(field(summary, "batch/worker"), "4");
}

#[test]
fn replicas_that_differ_fail_the_run() {
    let (out, _dir) = train(
        "dp-fault",
        &["--workers", "2", "--steps", "5", "--faultrank", "1", "--quiet"],
    );
    assert_eq!(out.status, Some(1), "stdout:\n{}\nstderr:\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr
            .contains("replicas DIFFER from worker 1: worker 2 (max |diff|"),
        "{}",
        out.stderr
    );
    assert!(!out.stdout.contains("replicas identical"), "{}", out.stdout);
}

#[test]
fn bad_options_are_named() {
    let (out, _dir) = train("dp-bad-model", &["--model", "resnet"]);
    assert_eq!(out.status, Some(1));
    assert!(
        out.stderr.contains("--model must be small or conv, got resnet"),
        "{}",
        out.stderr
    );

    let (out, _dir) = train("dp-bad-batch", &["--workers", "3", "--globalbatch", "8"]);
    assert_eq!(out.status, Some(1));
    assert!(
        out.stderr.contains("--globalbatch 8 is not a multiple of 3 workers"),
        "{}",
        out.stderr
    );
}
