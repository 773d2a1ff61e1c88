//! Tensor operations through the real `th` against NumPy from pip, side by side in one run: a
//! 1024x1024 matrix product, elementwise add and cmul of 10M elements, the sum of 10M elements and
//! the copy of a transposed 1024x1024 matrix into a contiguous one, in float32 and float64, at 1
//! thread then 2 threads.
//!
//! Our side is a Lua script run by `th` (timed inside with `sys.clock`), so it measures what users
//! get; NumPy's side is `benches/numpy_ops.py` with the same sizes, thread count and timing rule
//! (the median of REPS runs after one warm-up). The two sides alternate ROUNDS times and each keeps
//! its best median, so that a burst of load on the machine does not decide a ratio. An operation
//! `th` does not have yet is "n/a".
//!
//! Run with `cargo bench --bench tensor_ops` (needs `pip install numpy` for the NumPy column).
//! Goals: matrix product at most 1.0x NumPy's time, transposed copy at most 0.25x.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const REPS: usize = 15;
const ROUNDS: usize = 3;

/// Our side. Each operation's setup returns the closure to time; a setup or a run that fails
/// (a method not implemented yet) prints "n/a" with the error.
const LUA: &str = r#"
local threads, reps = tonumber(arg[1]), tonumber(arg[2])
torch.setnumthreads(threads)
local N, M = 10000000, 1024

local function median_time(f)
   f()
   local times = {}
   for i = 1, reps do
      local t0 = sys.clock()
      f()
      times[i] = sys.clock() - t0
   end
   table.sort(times)
   return times[math.floor((reps + 1) / 2)]
end

local ops = {
   { 'add', function(T)
      local x, y, r = T(N):fill(1.5), T(N):fill(2.5), T(N)
      return function() r:add(x, y) end
   end },
   { 'cmul', function(T)
      local x, y, r = T(N):fill(1.5), T(N):fill(2.5), T(N)
      return function() r:cmul(x, y) end
   end },
   { 'sum', function(T)
      local x = T(N):fill(0.5)
      return function() return x:sum() end
   end },
   { 'copyT', function(T)
      local src, dst = T(M, M):fill(0.5), T(M, M)
      local srcT = src:t()
      return function() dst:copy(srcT) end
   end },
   -- Last: BLAS threads spinning after a product must not slow the other operations.
   { 'mm', function(T)
      local a, b, r = T(M, M):fill(0.5), T(M, M):fill(0.25), T(M, M)
      return function() r:mm(a, b) end
   end },
}

for _, op in ipairs(ops) do
   for _, dt in ipairs { { 'float32', torch.FloatTensor }, { 'float64', torch.DoubleTensor } } do
      -- result: the timed closure, then the time; or the error of whichever step failed.
      local ok, result = pcall(op[2], dt[2])
      if ok then ok, result = pcall(median_time, result) end
      if ok then
         print(string.format('%s\t%s\t%.9f', op[1], dt[1], result))
      else
         print(string.format('%s\t%s\tn/a\t%s', op[1], dt[1], (tostring(result):gsub('%s+', ' '))))
      end
      io.stdout:flush()
   end
end
"#;

/// One side's results: (operation, dtype) -> seconds, or the reason it has none.
type Results = HashMap<(String, String), Result<f64, String>>;

fn parse(out: &str) -> Results {
    let mut r = Results::new();
    for line in out.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 3 {
            continue;
        }
        let key = (f[0].to_string(), f[1].to_string());
        let v = match f[2].parse::<f64>() {
            Ok(s) => Ok(s),
            Err(_) => Err(f.get(3).unwrap_or(&"n/a").to_string()),
        };
        r.insert(key, v);
    }
    r
}

/// Merges one round into the best so far: the lower time, or the first reason.
fn keep_best(best: &mut Results, round: Results) {
    for (k, v) in round {
        let better = match (best.get(&k), &v) {
            (None, _) | (Some(Err(_)), Ok(_)) => true,
            (Some(Ok(old)), Ok(new)) => new < old,
            _ => false,
        };
        if better {
            best.insert(k, v);
        }
    }
}

fn run(program: &Path, args: &[&str]) -> Result<Results, String> {
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            program.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(parse(&String::from_utf8_lossy(&out.stdout)))
}

/// Why NumPy cannot be used, if it cannot.
fn numpy_missing() -> Option<String> {
    match Command::new("python3").args(["-c", "import numpy"]).output() {
        Err(e) => Some(format!("python3 not found ({e})")),
        Ok(o) if !o.status.success() => Some("numpy is not installed (pip install numpy)".into()),
        Ok(_) => None,
    }
}

fn ms(v: &Result<f64, String>) -> String {
    match v {
        Ok(s) => format!("{:.3} ms", s * 1e3),
        Err(_) => "n/a".into(),
    }
}

fn main() {
    let th = PathBuf::from(env!("CARGO_BIN_EXE_th"));
    let script = std::env::temp_dir().join(format!("luatorch-tensor-ops-{}.lua", std::process::id()));
    std::fs::write(&script, LUA).expect("write the Lua benchmark script");
    let numpy_script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/numpy_ops.py");
    let missing = numpy_missing();
    if let Some(why) = &missing {
        println!("tensor_ops: NumPy column skipped: {why}");
    }

    let ops = [
        ("mm", "matrix product 1024x1024", Some(1.0)),
        ("add", "add, 10M elements", None),
        ("cmul", "cmul, 10M elements", None),
        ("sum", "sum, 10M elements", None),
        ("copyT", "copy transposed 1024x1024", Some(0.25)),
    ];
    println!(
        "{:<7} {:<27} {:<8} {:>12} {:>12} {:>7}  goal",
        "threads", "operation", "dtype", "luatorch", "numpy", "ratio"
    );
    let mut reasons: Vec<String> = Vec::new();
    for threads in [1usize, 2] {
        let t = threads.to_string();
        let reps = REPS.to_string();
        let (mut ours, mut theirs) = (Results::new(), Results::new());
        for _ in 0..ROUNDS {
            match run(&th, &[script.to_str().expect("utf-8 temp path"), &t, &reps]) {
                Ok(r) => keep_best(&mut ours, r),
                Err(e) => reasons.push(e),
            }
            if missing.is_none() {
                let args = [numpy_script.to_str().expect("utf-8 path"), &t, &reps];
                match run(Path::new("python3"), &args) {
                    Ok(r) => keep_best(&mut theirs, r),
                    Err(e) => reasons.push(e),
                }
            }
        }
        for (op, label, goal) in ops {
            for dt in ["float32", "float64"] {
                let key = (op.to_string(), dt.to_string());
                let a = ours.get(&key).cloned().unwrap_or(Err("not run".into()));
                let b = theirs.get(&key).cloned().unwrap_or(Err("not run".into()));
                if let Err(why) = &a {
                    let r = format!("{op} {dt}: {why}");
                    if !reasons.contains(&r) {
                        reasons.push(r);
                    }
                }
                let (ratio, verdict) = match (&a, &b) {
                    (Ok(x), Ok(y)) => {
                        let r = x / y;
                        let v = match goal {
                            Some(g) if r <= g => format!("<= {g:.2} met"),
                            Some(g) => format!("<= {g:.2} MISSED"),
                            None => String::new(),
                        };
                        (format!("{r:.2}"), v)
                    }
                    _ => (
                        "n/a".to_string(),
                        goal.map(|g| format!("<= {g:.2}")).unwrap_or_default(),
                    ),
                };
                println!(
                    "{threads:<7} {label:<27} {dt:<8} {:>12} {:>12} {ratio:>7}  {verdict}",
                    ms(&a),
                    ms(&b)
                );
            }
        }
    }
    for r in reasons {
        println!("n/a: {r}");
    }
    let _ = std::fs::remove_file(&script);
}
