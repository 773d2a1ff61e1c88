//! The in-process half of `ipc` through the release `th`, against the goals set from torch-ipc's
//! own figures:
//!
//! * channel: items per second from one thread to another, one `c:write(i)` per item in an
//!   `ipc.map` thread and one `c:read()` per item in the main thread (small numbers; also short
//!   strings and small tables, for information). Goal: at least 5.6 million items/s (torch-ipc
//!   did 3.77 M/s);
//! * workqueue: round trips per second, the main thread writing a number and reading the answer
//!   that an `ipc.map` worker writes back (also with a small table, for information). Goal: at
//!   least 150 k round trips/s (torch-ipc did 77.8 k/s).
//!
//! Each figure is the median of RUNS timed runs (after one warm-up run) inside one `th`; the whole
//! measurement is repeated ROUNDS times and each figure keeps its best median, so that a burst of
//! load on the machine does not decide it. Run with `cargo bench --bench ipc_threads` (or set
//! LUATORCH_TH to measure another `th`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

const ROUNDS: usize = 3;
const RUNS: usize = 5;
/// Items per channel run, round trips per workqueue run.
const ITEMS: usize = 1_000_000;
const ROUND_TRIPS: usize = 200_000;

const LUA: &str = r#"
local ipc = require 'libipc'
local runs, items, trips = tonumber(arg[1]), tonumber(arg[2]), tonumber(arg[3])

local function median(v)
   table.sort(v)
   return v[math.floor((#v + 1) / 2)]
end

-- Items per second through a channel: a producer thread writes `n` items made by `make`.
local function channel(kind, n)
   local c = ipc.channel()
   local m = ipc.map(1, function(c, n, kind)
      if kind == 'number' then
         for i = 1, n do c:write(i) end
      elseif kind == 'string' then
         for i = 1, n do c:write('item') end
      else
         for i = 1, n do c:write({ i, 'x' }) end
      end
      c:close()
   end, c, n, kind)
   local t0 = sys.clock()
   local got = 0
   while true do
      local status = c:read()
      if status == 2 then break end
      got = got + 1
   end
   local dt = sys.clock() - t0
   m:join()
   assert(got == n, 'channel: ' .. got .. ' items of ' .. n)
   return n / dt
end

-- Round trips per second through a workqueue: the main thread writes, a worker answers.
local function workqueue(kind, n)
   local q = ipc.workqueue()
   local m = ipc.map(1, function(q)
      while true do
         local v = q:read()
         if v == nil then break end
         q:write(v)
      end
   end, q)
   local item = kind == 'number' and 1 or { 1, 'x' }
   local t0 = sys.clock()
   for i = 1, n do
      q:write(item)
      q:read()
   end
   local dt = sys.clock() - t0
   q:write(nil)
   m:join()
   return n / dt
end

local cases = {
   { 'channel_number', function() return channel('number', items) end },
   { 'channel_string', function() return channel('string', items) end },
   { 'channel_table', function() return channel('table', math.floor(items / 10)) end },
   { 'workqueue_number', function() return workqueue('number', trips) end },
   { 'workqueue_table', function() return workqueue('table', math.floor(trips / 4)) end },
}
for _, case in ipairs(cases) do
   case[2]() -- warm-up
   local rates = {}
   for r = 1, runs do rates[r] = case[2]() end
   print(case[1] .. '\t' .. median(rates))
end
"#;

/// (name, unit, goal, torch-ipc's figure) of the figures with a goal.
const GOALS: &[(&str, &str, f64, f64)] = &[
    ("channel_number", "items/s", 5.6e6, 3.77e6),
    ("workqueue_number", "round trips/s", 150e3, 77.8e3),
];

const INFO: &[(&str, &str)] = &[
    ("channel_string", "items/s"),
    ("channel_table", "items/s"),
    ("workqueue_table", "round trips/s"),
];

fn run_once(th: &PathBuf, script: &PathBuf) -> BTreeMap<String, f64> {
    let out = Command::new(th)
        .arg(script)
        .args([RUNS.to_string(), ITEMS.to_string(), ROUND_TRIPS.to_string()])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", th.display()));
    assert!(
        out.status.success(),
        "th failed\n--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once('\t')?;
            Some((k.to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

fn human(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.2} M", v / 1e6)
    } else {
        format!("{:.1} k", v / 1e3)
    }
}

fn main() {
    // LUATORCH_TH: another th to measure (the bench binary run on another machine).
    let th = std::env::var_os("LUATORCH_TH").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_th")), PathBuf::from);
    let dir = std::env::temp_dir().join(format!("luatorch-bench-ipc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let script = dir.join("ipc_threads.lua");
    std::fs::write(&script, LUA).expect("write the bench script");

    let mut best: BTreeMap<String, f64> = BTreeMap::new();
    for _ in 0..ROUNDS {
        for (k, v) in run_once(&th, &script) {
            let e = best.entry(k).or_insert(0.0);
            *e = e.max(v);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);

    println!(
        "{:<18} {:>16} {:>16} {:>14} {:>16}",
        "figure", "ours", "goal", "ours/goal", "torch-ipc"
    );
    for (name, unit, goal, original) in GOALS {
        let ours = best.get(*name).copied().unwrap_or(0.0);
        println!(
            "{:<18} {:>16} {:>16} {:>14.2} {:>16}",
            name,
            format!("{} {unit}", human(ours)),
            format!("{} {unit}", human(*goal)),
            ours / goal,
            format!("{} {unit}", human(*original)),
        );
    }
    for (name, unit) in INFO {
        let ours = best.get(*name).copied().unwrap_or(0.0);
        println!("{:<18} {:>16}", name, format!("{} {unit}", human(ours)));
    }
    let missed: Vec<&str> = GOALS
        .iter()
        .filter(|(name, _, goal, _)| best.get(*name).copied().unwrap_or(0.0) < *goal)
        .map(|(name, ..)| *name)
        .collect();
    if missed.is_empty() {
        println!("every goal met");
    } else {
        println!("goals missed: {}", missed.join(", "));
    }
}
