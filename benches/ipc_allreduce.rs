//! allReduce (sum) of float32 across 2 and 4 processes on this machine, at 4 B, 4 KiB, 4 MiB and
//! 64 MiB: our ipc.LocalhostTree (benches/ipc_allreduce.lua, through the release `th`) against
//! mpi4py's `Allreduce` on Open MPI (benches/ipc_allreduce_mpi.py; Debian's openmpi-bin and
//! python3-mpi4py), measured side by side: for each row the programs alternate for ROUNDS rounds
//! and each keeps its best median (each median is the slowest rank's).
//!
//! Run with `cargo bench --bench ipc_allreduce`. The goal: no slower than MPI on any row.
//! `LUATORCH_BASELINE_TH=/path/to/an/older/th` adds that binary's column (e.g. the socket-only
//! tree before the shared-memory path); `IPC_ALLREDUCE_ROWS=4,4096` picks sizes in bytes.

use std::process::Command;

const PROCS: [usize; 2] = [2, 4];
const SIZES: [usize; 4] = [4, 4 << 10, 4 << 20, 64 << 20];
const ROUNDS: usize = 3;

/// Repetitions per measurement: enough for a stable median, few for the large sizes.
fn reps(bytes: usize) -> usize {
    match bytes {
        0..=65536 => 1000,
        65537..=8388608 => 50,
        _ => 10,
    }
}

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

fn show(t: f64) -> String {
    if t.is_infinite() {
        "-".into()
    } else if t < 1e-3 {
        format!("{:.1} us", t * 1e6)
    } else {
        format!("{:.2} ms", t * 1e3)
    }
}

fn main() {
    let root = env!("CARGO_MANIFEST_DIR");
    let th = env!("CARGO_BIN_EXE_th");
    let baseline = std::env::var("LUATORCH_BASELINE_TH").ok();
    let sizes: Vec<usize> = match std::env::var("IPC_ALLREDUCE_ROWS") {
        Ok(s) => s.split(',').filter_map(|x| x.trim().parse().ok()).collect(),
        Err(_) => SIZES.to_vec(),
    };
    // Debian's python has mpi4py; a pyenv python first in PATH may not.
    let python = ["/usr/bin/python3", "python3"].into_iter().find(|p| {
        Command::new(p)
            .args(["-c", "import mpi4py"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    let ours = |bin: &str, n: &str, f: &str, r: &str| {
        measure(
            Command::new(bin).args([&format!("{root}/benches/ipc_allreduce.lua"), n, f, r]),
            "ours.allreduce",
        )
    };
    let mpi = |python: &str, n: &str, f: &str, r: &str| {
        let mut cmd = Command::new("mpirun");
        if nix_is_root() {
            cmd.arg("--allow-run-as-root");
        }
        cmd.args([
            "--oversubscribe",
            "-n",
            n,
            python,
            &format!("{root}/benches/ipc_allreduce_mpi.py"),
            f,
            r,
        ]);
        measure(&mut cmd, "mpi.allreduce")
    };
    println!("allReduce (sum) of float32 on this machine: the slowest rank's median, best of {ROUNDS} rounds");
    println!(
        "{:>8} {:>5} {:>12} {:>12} {:>12} {:>8}",
        "size", "procs", "before", "ours", "mpi4py", "ours/mpi"
    );
    let mut mpi_missing = None;
    for &bytes in &sizes {
        for procs in PROCS {
            let (n, f, r) = (
                procs.to_string(),
                (bytes / 4).max(1).to_string(),
                reps(bytes).to_string(),
            );
            let (mut best_ours, mut best_mpi, mut best_before) = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
            for _ in 0..ROUNDS {
                match ours(th, &n, &f, &r) {
                    Ok(t) => best_ours = best_ours.min(t),
                    Err(e) => panic!("{e}"),
                }
                if let Some(b) = &baseline {
                    match ours(b, &n, &f, &r) {
                        Ok(t) => best_before = best_before.min(t),
                        Err(e) => eprintln!("baseline: {e}"),
                    }
                }
                match python {
                    Some(p) => match mpi(p, &n, &f, &r) {
                        Ok(t) => best_mpi = best_mpi.min(t),
                        Err(e) => mpi_missing = Some(e),
                    },
                    None => {
                        mpi_missing = Some("no python3 with mpi4py (apt-get install openmpi-bin python3-mpi4py)".into())
                    }
                }
            }
            let ratio = if best_mpi.is_finite() {
                format!("{:.2}", best_ours / best_mpi)
            } else {
                "-".into()
            };
            let size = match bytes {
                b if b >= 1 << 20 => format!("{} MiB", b >> 20),
                b if b >= 1 << 10 => format!("{} KiB", b >> 10),
                b => format!("{b} B"),
            };
            println!(
                "{:>8} {:>5} {:>12} {:>12} {:>12} {:>8}",
                size,
                procs,
                show(best_before),
                show(best_ours),
                show(best_mpi),
                ratio
            );
        }
    }
    if let Some(e) = mpi_missing {
        println!("mpi4py: {e}");
    }
    println!("goal: ours/mpi at most 1.00 on every row");
}

fn nix_is_root() -> bool {
    // SAFETY: getuid has no preconditions.
    unsafe { libc::getuid() == 0 }
}
