//! allReduce (sum, in place) of 256 MiB of float32 on a 1-rank NCCL communicator: our
//! `comm:allReduce` (benches/nccl_allreduce.lua, through `th`) against `torch.distributed` with
//! the NCCL backend (benches/nccl_allreduce_torch.py), measured side by side: the two alternate for
//! ROUNDS rounds and each keeps its best median. Both end in the same NCCL call (a device-to-device
//! copy for one rank), so this measures what each side adds around it.
//!
//! Run with `cargo bench --bench nccl` on a GPU machine (PYTHON names a python3 with torch, default
//! `python3`). The goal: within 10% of torch.distributed. Without a GPU it says so and skips.
//! Without a Rust toolchain, run the two scripts by hand:
//!     th benches/nccl_allreduce.lua 256 20
//!     python3 benches/nccl_allreduce_torch.py 256 20

use std::process::Command;

const MIB: usize = 256;
const REPS: usize = 20;
const ROUNDS: usize = 3;

/// What one run printed: the seconds after `tag`, or the reason it skipped.
enum Run {
    Seconds(f64),
    Skipped(String),
}

fn measure(cmd: &mut Command, tag: &str) -> Run {
    let out = match cmd.output() {
        Ok(out) => out,
        Err(e) => return Run::Skipped(format!("cannot run {:?}: {e}", cmd.get_program())),
    };
    let text = String::from_utf8_lossy(&out.stdout);
    for line in text.lines() {
        if let Some(why) = line.strip_prefix("SKIP: ") {
            return Run::Skipped(why.to_string());
        }
        if let Some(v) = line.strip_prefix(tag).and_then(|v| v.trim().parse().ok()) {
            return Run::Seconds(v);
        }
    }
    panic!(
        "no `{tag}` in the output of {:?}:\n{text}{}",
        cmd.get_program(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The best of the rounds' medians, or why it skipped.
fn best(runs: &[Run]) -> Result<f64, String> {
    let mut best = f64::INFINITY;
    for run in runs {
        match run {
            Run::Seconds(s) => best = best.min(*s),
            Run::Skipped(why) => return Err(why.clone()),
        }
    }
    Ok(best)
}

fn main() {
    let root = env!("CARGO_MANIFEST_DIR");
    let th = env!("CARGO_BIN_EXE_th");
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string());
    let (mib, reps) = (MIB.to_string(), REPS.to_string());
    let (mut ours, mut torch) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        ours.push(measure(
            Command::new(th).args([&format!("{root}/benches/nccl_allreduce.lua"), &mib, &reps]),
            "ours.allreduce",
        ));
        if let Run::Skipped(why) = &ours[0] {
            println!("nccl bench skipped: {why}");
            return;
        }
        torch.push(measure(
            Command::new(&python).args([&format!("{root}/benches/nccl_allreduce_torch.py"), &mib, &reps]),
            "torch.allreduce",
        ));
    }
    let gbps = |t: f64| (MIB << 20) as f64 / t / 1e9;
    println!(
        "allReduce of {MIB} MiB float32 on a 1-rank NCCL communicator, median of {REPS} (best of {ROUNDS} rounds):"
    );
    let ours = best(&ours).expect("our runs were measured");
    println!(
        "  luatorch comm:allReduce        {:>8.3} ms   ({:.0} GB/s algbw)",
        ours * 1e3,
        gbps(ours)
    );
    match best(&torch) {
        Ok(t) => {
            println!(
                "  torch.distributed all_reduce   {:>8.3} ms   ({:.0} GB/s algbw)",
                t * 1e3,
                gbps(t)
            );
            println!("  ratio ours/torch: {:.3} (goal: at most 1.10)", ours / t);
        }
        Err(why) => println!("  torch.distributed: skipped, {why}"),
    }
}
