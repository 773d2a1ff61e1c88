//! allReduce (sum) of 16M float32 across 4 processes on this machine: our ipc.LocalhostTree
//! (benches/ipc_allreduce.lua, through the release `th`) against mpi4py's `Allreduce` on Open MPI
//! (benches/ipc_allreduce_mpi.py; Debian's openmpi-bin and python3-mpi4py), measured side by side:
//! the two alternate for ROUNDS rounds and each keeps its best median.
//!
//! Run with `cargo bench --bench ipc_allreduce`. The goal: no slower than MPI.

use std::process::Command;

const NODES: usize = 4;
const FLOATS: usize = 16 * 1024 * 1024;
const REPS: usize = 10;
const ROUNDS: usize = 3;

/// Runs a command and returns the number after `tag` in its output.
fn measure(cmd: &mut Command, tag: &str) -> Result<f64, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find_map(|l| l.strip_prefix(tag).and_then(|v| v.trim().parse().ok()))
        .ok_or_else(|| {
            format!(
                "no `{tag}` in the output of {:?}: {text}{}",
                cmd.get_program(),
                String::from_utf8_lossy(&out.stderr)
            )
        })
}

fn main() {
    let root = env!("CARGO_MANIFEST_DIR");
    let th = env!("CARGO_BIN_EXE_th");
    let (n, f, r) = (NODES.to_string(), FLOATS.to_string(), REPS.to_string());
    let ours = || {
        measure(
            Command::new(th).args([&format!("{root}/benches/ipc_allreduce.lua"), &n, &f, &r]),
            "ours.allreduce",
        )
    };
    // Debian's python has mpi4py; a pyenv python first in PATH may not.
    let python = ["/usr/bin/python3", "python3"].into_iter().find(|p| {
        Command::new(p)
            .args(["-c", "import mpi4py"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    let mpi = |python: &str| {
        let mut cmd = Command::new("mpirun");
        if nix_is_root() {
            cmd.arg("--allow-run-as-root");
        }
        cmd.args([
            "--oversubscribe",
            "-n",
            &n,
            python,
            &format!("{root}/benches/ipc_allreduce_mpi.py"),
            &f,
            &r,
        ]);
        measure(&mut cmd, "mpi.allreduce")
    };
    let mut best_ours = f64::INFINITY;
    let mut best_mpi = f64::INFINITY;
    let mut mpi_missing = None;
    for _ in 0..ROUNDS {
        match ours() {
            Ok(t) => best_ours = best_ours.min(t),
            Err(e) => panic!("{e}"),
        }
        match python {
            Some(p) => match mpi(p) {
                Ok(t) => best_mpi = best_mpi.min(t),
                Err(e) => mpi_missing = Some(e),
            },
            None => mpi_missing = Some("no python3 with mpi4py (apt-get install openmpi-bin python3-mpi4py)".into()),
        }
    }
    let gbps = |t: f64| (FLOATS * 4) as f64 / t / 1e9;
    println!("allReduce of {FLOATS} float32 across {NODES} processes, median seconds (best of {ROUNDS} rounds):");
    println!(
        "  luatorch ipc.LocalhostTree     {:>9.1} ms   ({:.2} GB/s of data per node)",
        best_ours * 1e3,
        gbps(best_ours)
    );
    match mpi_missing {
        Some(e) if best_mpi.is_infinite() => println!("  mpi4py Allreduce: skipped, {e}"),
        _ => {
            println!(
                "  mpi4py Allreduce (Open MPI)   {:>9.1} ms   ({:.2} GB/s)",
                best_mpi * 1e3,
                gbps(best_mpi)
            );
            println!("  ratio ours/MPI: {:.2} (goal: at most 1.00)", best_ours / best_mpi);
        }
    }
}

fn nix_is_root() -> bool {
    // SAFETY: getuid has no preconditions.
    unsafe { libc::getuid() == 0 }
}
