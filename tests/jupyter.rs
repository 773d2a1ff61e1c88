//! The Jupyter kernel (`th --jupyter-kernel`) driven by the real clients: each test runs one
//! python script of tests/jupyter/ that starts the kernel through jupyter_client's KernelManager
//! from a kernelspec `th --jupyter-install --prefix` wrote, with every wait bounded, and prints
//! `ok` at its end. python3 with jupyter_client (and nbclient, nbformat) is needed: missing, a test
//! prints why and skips, except under CI (env `CI` set), which installs them: there it fails.

mod common;

use std::process::Command;
use std::time::Duration;

use common::{run_cmd, show, th_path};

const SCRIPT_TIMEOUT: Duration = Duration::from_secs(180);

fn scripts_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jupyter")
}

/// Whether python3 can import the clients; see the module's note for when it is missing.
fn have_clients(modules: &str) -> bool {
    let out = run_cmd(
        Command::new("python3").args(["-c", &format!("import {modules}")]),
        Duration::from_secs(60),
    );
    if out.status == Some(0) {
        return true;
    }
    let why = format!(
        "python3 cannot import {modules} (python3 -m pip install jupyter_client nbclient nbformat): {}",
        out.stderr.trim()
    );
    if std::env::var_os("CI").is_some() {
        panic!("{why}");
    }
    println!("skipped: {why}");
    false
}

fn run_script(name: &str, modules: &str) {
    if !have_clients(modules) {
        return;
    }
    let dir = common::temp_dir(&format!("jupyter-{name}"));
    let out = run_cmd(
        Command::new("python3")
            .arg(scripts_dir().join(name))
            .current_dir(&dir)
            .env("TH", th_path())
            .env("THCLUSTER", env!("CARGO_BIN_EXE_thcluster"))
            .env("PYTHONPATH", scripts_dir())
            .env("JUPYTER_RUNTIME_DIR", dir.join("runtime"))
            .env("JUPYTER_DATA_DIR", dir.join("data"))
            .env("JUPYTER_CONFIG_DIR", dir.join("config"))
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("DISPLAY", ""),
        SCRIPT_TIMEOUT,
    );
    assert!(
        out.status == Some(0) && out.stdout.lines().last() == Some("ok"),
        "tests/jupyter/{name} failed\n{}",
        show(&out)
    );
}

#[test]
fn kernel_info_streams_results_errors_completion_and_is_complete() {
    run_script("basics.py", "jupyter_client");
}

#[test]
fn interrupt_stops_a_loop_and_keeps_the_state() {
    run_script("interrupt.py", "jupyter_client");
}

#[test]
fn io_read_asks_the_frontend() {
    run_script("stdin.py", "jupyter_client");
}

#[test]
fn forged_messages_are_dropped_and_shutdown_leaves_no_process() {
    run_script("lifecycle.py", "jupyter_client");
}

#[test]
fn install_writes_a_kernelspec_jupyter_finds() {
    run_script("install.py", "jupyter_client");
}

#[test]
fn images_html_and_plots_show_inline() {
    run_script("rich.py", "jupyter_client");
}

#[test]
fn nbclient_executes_a_notebook() {
    run_script("notebook.py", "jupyter_client, nbclient, nbformat");
}

#[test]
fn a_cell_uses_the_cluster_and_an_interrupt_stops_only_the_wait() {
    run_script("cluster.py", "jupyter_client");
}

#[test]
fn a_killed_frontend_leaves_no_kernel() {
    run_script("orphan.py", "jupyter_client");
}
