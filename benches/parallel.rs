//! The `parallel` module through the real `th`, against its peers, side by side in one run:
//!
//! * round trip of lua---parallel's loop (parent `join`, `send({a=1,b='x',c={1,2,3}})`, `receive`;
//!   child `yield`, `parent:receive`, `parent:send`), on the local children's pipes (the default)
//!   and on ZeroMQ (`LUATORCH_PARALLEL_FAST=0`, as before the pipes), against the same four
//!   messages over raw ZeroMQ on the same transport (a ROUTER bound on an abstract unix socket in
//!   this process, a DEALER in a child process: this bench binary started again as `zmq-peer`),
//!   and against Python `multiprocessing` with a `Pipe`;
//! * a 64 MiB FloatTensor sent to a child (send, child receive, 1-byte ack), against one thread's
//!   memcpy of 64 MiB between pre-faulted buffers, and Python's `Pipe.send_bytes` and
//!   `multiprocessing.shared_memory` (a fresh segment per transfer, and one segment reused; ours
//!   recycles its segments, so the reused one is the closer peer);
//! * `parallel.nfork(8)` until all 8 children have answered a join, against Python's 8 processes
//!   (fork and spawn) answering over a Pipe.
//!
//! Round trips are timed in batches of BATCH rounds; a side's figure is the median batch's time per
//! round. The sides alternate ROUNDS times and each keeps its best median, so that a burst of load
//! on the machine does not decide a ratio. GB/s is 10^9 bytes per second.
//!
//! Run with `cargo bench --bench parallel` (Python's columns need `python3`);
//! `cargo bench --bench parallel -- roundtrip` measures the round trips only.
//! Goals: round trip at most 1.0x Python's Pipe; transfer at least 0.5x memcpy.

use std::collections::HashMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const ROUNDS: usize = 3;
/// Round trips per side and round, timed in batches of BATCH.
const ROUND_TRIPS: usize = 20000;
const BATCH: usize = 100;
/// Timed 64 MiB transfers per side and round (after one warm-up).
const TRANSFERS: usize = 15;
/// Timed nfork(8) per side and round.
const FORKS: usize = 5;
const BIG: usize = 64 << 20;
/// The raw ZeroMQ payload: about the size of the t7 bytes of {a=1,b='x',c={1,2,3}}.
const PAYLOAD: usize = 60;

const LUA: &str = r#"
local rounds, batch, transfers, forks = tonumber(arg[1]), tonumber(arg[2]), tonumber(arg[3]), tonumber(arg[4])
-- The measures to take (all when not given).
local only = {}
for k in (arg[5] or 'roundtrip,transfer,nfork8'):gmatch('[^,]+') do only[k] = true end
local ok, err = pcall(require, 'parallel')
if not ok then
   local why = tostring(err):gsub('%s+', ' ')
   for _, k in ipairs { 'roundtrip', 'transfer', 'nfork8' } do print(k .. '\tn/a\t' .. why) end
   return
end

local function median(v)
   table.sort(v)
   return v[math.floor((#v + 1) / 2)]
end
local timer = torch.Timer()

local function roundtrip()
   local child = parallel.fork()
   child:exec(function()
      while parallel.yield() ~= 'break' do
         parallel.parent:send(parallel.parent:receive())
      end
   end)
   local t, r = { a = 1, b = 'x', c = { 1, 2, 3 } }, nil
   local per, warm = {}, 10
   for b = 1, warm + rounds / batch do
      timer:reset()
      for _ = 1, batch do
         child:join()
         child:send(t)
         r = child:receive()
      end
      local dt = timer:time().real
      if b > warm then per[#per + 1] = dt / batch end
   end
   assert(r.b == 'x' and r.c[3] == 3, 'round trip: wrong reply')
   child:join('break')
   child:sync()
   return median(per)
end

local function transfer()
   local child = parallel.fork()
   child:exec(function()
      while true do
         local x = parallel.parent:receive()
         if x == 'stop' then break end
         parallel.parent:send('k')
         x = nil
         collectgarbage()
      end
   end)
   local t = torch.FloatTensor(16 * 1024 * 1024):fill(1)
   local per = {}
   for i = 1, transfers + 1 do
      timer:reset()
      child:send(t)
      assert(child:receive() == 'k', 'transfer: wrong ack')
      local dt = timer:time().real
      if i > 1 then per[#per + 1] = dt end
      collectgarbage()
   end
   child:send('stop')
   child:sync()
   return median(per)
end

local function nfork8()
   local per = {}
   for _ = 1, forks do
      timer:reset()
      local cs = parallel.nfork(8)
      cs:exec(function() parallel.yield() end)
      cs:join()
      per[#per + 1] = timer:time().real
      cs:sync()
   end
   return median(per)
end

for _, m in ipairs { { 'roundtrip', roundtrip }, { 'transfer', transfer }, { 'nfork8', nfork8 } } do
   if not only[m[1]] then goto next end
   local ok, v = pcall(m[2])
   if ok then
      print(string.format('%s\t%.9f', m[1], v))
   else
      print(string.format('%s\tn/a\t%s', m[1], (tostring(v):gsub('%s+', ' '))))
      parallel.close()
   end
   io.stdout:flush()
   ::next::
end
"#;

/// One side's results: measure -> seconds, or the reason it has none.
type Results = HashMap<String, Result<f64, String>>;

fn parse(out: &str) -> Results {
    let mut r = Results::new();
    for line in out.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 2 {
            continue;
        }
        let v = match f[1].parse::<f64>() {
            Ok(s) => Ok(s),
            Err(_) => Err(f.get(2).unwrap_or(&"n/a").to_string()),
        };
        r.insert(f[0].to_string(), v);
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
    run_env(program, args, &[])
}

fn run_env(program: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<Results, String> {
    let out = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.trim().lines().rev().take(3).collect();
        return Err(format!("{} failed: {}", program.display(), tail.join(" / ")));
    }
    Ok(parse(&stdout))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[(v.len() - 1) / 2]
}

/// The DEALER side of the raw ZeroMQ round trip, in its own process.
fn zmq_peer(endpoint: &str) {
    let ctx = zmq::Context::new();
    let s = ctx.socket(zmq::DEALER).expect("zmq socket");
    s.set_rcvtimeo(20_000).expect("zmq rcvtimeo");
    s.set_linger(0).expect("zmq linger");
    s.connect(endpoint).expect("zmq connect");
    s.send("hello", 0).expect("zmq send");
    let mut buf = [0u8; 256];
    loop {
        let n = s.recv_into(&mut buf, 0).expect("zmq recv (join)");
        if &buf[..n] == b"break" {
            return;
        }
        s.send("!", 0).expect("zmq send (ack)");
        let n = s.recv_into(&mut buf, 0).expect("zmq recv (data)");
        s.send(&buf[..n], 0).expect("zmq send (data)");
    }
}

/// The ROUTER side: the same four messages a parallel round makes (join, ack, data, data back).
fn zmq_roundtrip() -> Result<f64, String> {
    let endpoint = format!("ipc://@luatorch-bench-parallel-{}", std::process::id());
    let ctx = zmq::Context::new();
    let s = ctx.socket(zmq::ROUTER).map_err(|e| e.to_string())?;
    s.set_linger(0).map_err(|e| e.to_string())?;
    s.set_rcvtimeo(20_000).map_err(|e| e.to_string())?;
    s.bind(&endpoint).map_err(|e| format!("bind {endpoint}: {e}"))?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut peer = Command::new(exe)
        .args(["zmq-peer", &endpoint])
        .spawn()
        .map_err(|e| format!("cannot start the zmq peer: {e}"))?;
    let result = (|| {
        let hello = s.recv_multipart(0).map_err(|e| format!("zmq hello: {e}"))?;
        let id = hello[0].clone();
        let payload = [b'p'; PAYLOAD];
        let mut buf = [0u8; 256];
        let mut per = Vec::new();
        let warm = 10;
        for b in 0..warm + ROUND_TRIPS / BATCH {
            let t0 = Instant::now();
            for _ in 0..BATCH {
                s.send(&id, zmq::SNDMORE).map_err(|e| e.to_string())?;
                s.send("", 0).map_err(|e| e.to_string())?;
                s.recv_into(&mut buf, 0).map_err(|e| e.to_string())?; // routing id
                s.recv_into(&mut buf, 0).map_err(|e| e.to_string())?; // ack
                s.send(&id, zmq::SNDMORE).map_err(|e| e.to_string())?;
                s.send(&payload[..], 0).map_err(|e| e.to_string())?;
                s.recv_into(&mut buf, 0).map_err(|e| e.to_string())?;
                let n = s.recv_into(&mut buf, 0).map_err(|e| e.to_string())?;
                black_box(&buf[..n]);
            }
            if b >= warm {
                per.push(t0.elapsed().as_secs_f64() / BATCH as f64);
            }
        }
        s.send(&id, zmq::SNDMORE).map_err(|e| e.to_string())?;
        s.send("break", 0).map_err(|e| e.to_string())?;
        Ok(median(per))
    })();
    if result.is_err() {
        let _ = peer.kill();
    }
    let _ = peer.wait();
    result
}

/// One thread copying 64 MiB between buffers whose pages are already mapped.
fn memcpy_64mib() -> f64 {
    let src: Vec<u8> = (0..BIG).map(|i| i as u8).collect();
    let mut dst = vec![1u8; BIG];
    let mut per = Vec::new();
    for i in 0..=TRANSFERS {
        let t0 = Instant::now();
        dst.copy_from_slice(black_box(&src));
        black_box(&mut dst);
        if i > 0 {
            per.push(t0.elapsed().as_secs_f64());
        }
    }
    median(per)
}

/// Why Python cannot be used, if it cannot.
fn python_missing() -> Option<String> {
    match Command::new("python3")
        .args(["-c", "import multiprocessing.shared_memory"])
        .output()
    {
        Err(e) => Some(format!("python3 not found ({e})")),
        Ok(o) if !o.status.success() => Some("python3 has no multiprocessing.shared_memory (3.8+)".into()),
        Ok(_) => None,
    }
}

fn fmt(v: Option<&Result<f64, String>>, scale: f64, unit: &str) -> String {
    match v {
        Some(Ok(s)) => format!("{:.2} {unit}", s * scale),
        _ => "n/a".into(),
    }
}

fn gbs(v: Option<&Result<f64, String>>) -> Option<f64> {
    match v {
        Some(Ok(s)) => Some(BIG as f64 / s / 1e9),
        _ => None,
    }
}

fn main() {
    // (cargo bench adds `--bench`.)
    let args: Vec<String> = std::env::args().filter(|a| !a.starts_with("--")).collect();
    if args.len() == 3 && args[1] == "zmq-peer" {
        zmq_peer(&args[2]);
        return;
    }
    let roundtrip_only = args.get(1).is_some_and(|a| a == "roundtrip");
    let th = PathBuf::from(env!("CARGO_BIN_EXE_th"));
    let script = std::env::temp_dir().join(format!("luatorch-bench-parallel-{}.lua", std::process::id()));
    std::fs::write(&script, LUA).expect("write the Lua benchmark script");
    let py = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/parallel_peers.py");
    let missing = python_missing();
    if let Some(why) = &missing {
        println!("parallel: Python columns skipped: {why}");
    }
    let (rt, tr, fk) = (ROUND_TRIPS.to_string(), TRANSFERS.to_string(), FORKS.to_string());
    let batch = BATCH.to_string();
    let counts = [rt.as_str(), batch.as_str(), tr.as_str(), fk.as_str()];
    let mut best = Results::new();
    let mut reasons: Vec<String> = Vec::new();
    let started = Instant::now();
    let measures = if roundtrip_only {
        "roundtrip"
    } else {
        "roundtrip,transfer,nfork8"
    };
    for _ in 0..ROUNDS {
        let mut args = vec![script.to_str().expect("utf-8 temp path")];
        args.extend(counts);
        args.push(measures);
        match run(&th, &args) {
            Ok(r) => keep_best(&mut best, r.into_iter().map(|(k, v)| (format!("th.{k}"), v)).collect()),
            Err(e) => reasons.push(e),
        }
        // The same round trip with local children on ZeroMQ.
        args.pop();
        args.push("roundtrip");
        match run_env(&th, &args, &[("LUATORCH_PARALLEL_FAST", "0")]) {
            Ok(r) => keep_best(&mut best, r.into_iter().map(|(k, v)| (format!("thz.{k}"), v)).collect()),
            Err(e) => reasons.push(e),
        }
        let z = zmq_roundtrip();
        keep_best(&mut best, Results::from([("zmq.roundtrip".to_string(), z)]));
        if !roundtrip_only {
            let m = memcpy_64mib();
            keep_best(&mut best, Results::from([("memcpy".to_string(), Ok(m))]));
        }
        if missing.is_none() {
            let mut args = vec![py.to_str().expect("utf-8 path")];
            args.extend(counts);
            if roundtrip_only {
                args.push("roundtrip");
            }
            match run(Path::new("python3"), &args) {
                Ok(r) => keep_best(&mut best, r.into_iter().map(|(k, v)| (format!("py.{k}"), v)).collect()),
                Err(e) => reasons.push(e),
            }
        }
    }
    let _ = std::fs::remove_file(&script);

    let get = |k: &str| best.get(k);
    println!("round trip (join, send, receive), median us per round:");
    for (label, k) in [
        ("luatorch parallel (pipes)", "th.roundtrip"),
        ("luatorch parallel on ZeroMQ", "thz.roundtrip"),
        ("raw ZeroMQ ROUTER/DEALER, ipc://@", "zmq.roundtrip"),
        ("Python multiprocessing Pipe", "py.roundtrip"),
    ] {
        println!("  {label:<38} {:>12}", fmt(get(k), 1e6, "us"));
    }
    let ratio = |a: &str, b: &str| match (get(a), get(b)) {
        (Some(Ok(x)), Some(Ok(y))) => Some(x / y),
        _ => None,
    };
    let show = |r: Option<f64>| r.map_or("n/a".to_string(), |r| format!("{r:.2}"));
    let r_py = ratio("th.roundtrip", "py.roundtrip");
    let verdict = match r_py {
        Some(r) if r <= 1.0 => "met",
        Some(_) => "MISSED",
        None => "n/a",
    };
    println!(
        "  ratio ours/multiprocessing: {} (goal: at most 1.00: {verdict})",
        show(r_py)
    );
    println!("  ratio ours/raw zmq: {}", show(ratio("th.roundtrip", "zmq.roundtrip")));
    println!(
        "  ratio ours on ZeroMQ/multiprocessing: {}",
        show(ratio("thz.roundtrip", "py.roundtrip"))
    );
    if roundtrip_only {
        println!("({} rounds, {:.1} s)", ROUNDS, started.elapsed().as_secs_f64());
        return;
    }

    println!("64 MiB to a child (send, receive, 1-byte ack), GB/s:");
    for (label, k) in [
        ("luatorch parallel, FloatTensor", "th.transfer"),
        ("memcpy, 1 thread, pre-faulted", "memcpy"),
        ("Python Pipe send_bytes/recv_bytes", "py.transfer_pipe"),
        ("Python shared_memory, fresh segment", "py.transfer_shm"),
        ("Python shared_memory, reused segment", "py.transfer_shm_reuse"),
    ] {
        let v = gbs(get(k)).map_or("n/a".to_string(), |g| format!("{g:.2} GB/s"));
        println!("  {label:<38} {v:>12}   ({})", fmt(get(k), 1e3, "ms"));
    }
    let frac = match (gbs(get("th.transfer")), gbs(get("memcpy"))) {
        (Some(a), Some(b)) => Some(a / b),
        _ => None,
    };
    let verdict = match frac {
        Some(f) if f >= 0.5 => "met",
        Some(_) => "MISSED",
        None => "n/a",
    };
    println!("  ratio ours/memcpy: {} (goal: at least 0.50: {verdict})", show(frac));
    for (label, k) in [
        ("Python Pipe", "py.transfer_pipe"),
        ("Python shared_memory, fresh", "py.transfer_shm"),
        ("Python shared_memory, reused", "py.transfer_shm_reuse"),
    ] {
        let r = match (gbs(get("th.transfer")), gbs(get(k))) {
            (Some(a), Some(b)) => Some(a / b),
            _ => None,
        };
        println!("  ratio ours/{label}: {}", show(r));
    }

    println!("8 children started and answering a join, median ms:");
    for (label, k) in [
        ("luatorch parallel.nfork(8)", "th.nfork8"),
        ("Python multiprocessing, fork", "py.fork8"),
        ("Python multiprocessing, spawn", "py.spawn8"),
    ] {
        println!("  {label:<38} {:>12}", fmt(get(k), 1e3, "ms"));
    }
    for (k, v) in &best {
        if let Err(why) = v {
            reasons.push(format!("{k}: {why}"));
        }
    }
    reasons.sort();
    reasons.dedup();
    for r in reasons {
        println!("n/a: {r}");
    }
    println!("({} rounds, {:.1} s)", ROUNDS, started.elapsed().as_secs_f64());
}
