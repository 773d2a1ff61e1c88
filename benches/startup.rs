//! Start-up time of `th -e ''` against Debian's `luajit -e ''`, measured side by side: the two
//! commands alternate run by run so that both see the same machine state.
//!
//! Run with `cargo bench --bench startup`. The goal is a ratio of at most 2.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 400;
const WARMUP: usize = 20;

fn time_once(program: &str, args: &[&str]) -> Duration {
    let start = Instant::now();
    let status = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let elapsed = start.elapsed();
    assert!(status.success(), "{program} {args:?} failed");
    elapsed
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let th = env!("CARGO_BIN_EXE_th");
    if Command::new("luajit").arg("-v").stdout(Stdio::null()).status().is_err() {
        println!("startup: skipped, `luajit` is not installed (apt-get install luajit)");
        return;
    }
    let peers: [(&str, &str, &[&str]); 2] = [("luajit -e ''", "luajit", &["-e", ""]), ("th -e ''", th, &["-e", ""])];
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); peers.len()];
    for i in 0..WARMUP + RUNS {
        for (j, (_, program, args)) in peers.iter().enumerate() {
            let t = time_once(program, args);
            if i >= WARMUP {
                samples[j].push(t);
            }
        }
    }
    let medians: Vec<Duration> = samples.into_iter().map(median).collect();
    println!("{:<16} {:>12}", "command", "median");
    for ((name, _, _), m) in peers.iter().zip(&medians) {
        println!("{name:<16} {:>9.3} ms", m.as_secs_f64() * 1e3);
    }
    println!(
        "ratio th/luajit: {:.2} (goal: at most 2.00)",
        medians[1].as_secs_f64() / medians[0].as_secs_f64()
    );
}
