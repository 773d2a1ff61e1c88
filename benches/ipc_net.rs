//! `ipc.client` -> `ipc.server` through the real `th`, against a raw Rust TCP socket, side by side
//! in one run: a 64 MiB FloatTensor sent from a client process to a server process on loopback
//! (client `send(t)`, server `recv(t)` into a preallocated tensor, then a small message back as
//! the ack), against the same 64 MiB written on a plain TCP socket to another process that reads
//! them into a preallocated buffer and answers with one byte (this bench binary started again as
//! `raw-peer`).
//!
//! A side's figure is the median of TRANSFERS timed transfers (after one warm-up); the sides
//! alternate ROUNDS times and each keeps its best median. GB/s is 10^9 bytes per second.
//!
//! Run with `cargo bench --bench ipc_net`. Goal: at least 2 GB/s.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const ROUNDS: usize = 3;
const TRANSFERS: usize = 15;
const BIG: usize = 64 << 20;

const LUA: &str = r#"
local ipc = require 'libipc'
local role, n = arg[1], tonumber(arg[2])
local elems = 16 * 2 ^ 20
if role == 'server' then
   local server, port = ipc.server()
   print('port ' .. port)
   io.stdout:flush()
   local t = torch.FloatTensor(elems)
   server:clients(1, function(c)
      for _ = 1, n + 1 do
         c:recv(t)
         c:send(1)
      end
   end)
   assert(t[elems] == 7, 'wrong data')
   server:close()
else
   local client = ipc.client(tonumber(arg[3]))
   local t = torch.FloatTensor(elems):fill(7)
   local timer = torch.Timer()
   local per = {}
   for i = 1, n + 1 do
      timer:reset()
      client:send(t)
      assert(client:recv() == 1)
      if i > 1 then per[#per + 1] = timer:time().real end
   end
   table.sort(per)
   print('transfer\t' .. per[math.floor((#per + 1) / 2)])
   client:close()
end
"#;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[(v.len() - 1) / 2]
}

/// The receiving side of the raw socket transfer, in its own process.
fn raw_peer(port: &str) {
    let mut s = TcpStream::connect(("127.0.0.1", port.parse::<u16>().expect("port"))).expect("connect");
    s.set_nodelay(true).expect("nodelay");
    let mut buf = vec![0u8; BIG];
    while s.read_exact(&mut buf).is_ok() {
        std::hint::black_box(&buf);
        if s.write_all(&[1]).is_err() {
            break;
        }
    }
}

fn raw_transfer() -> Result<f64, String> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let port = l.local_addr().map_err(|e| e.to_string())?.port().to_string();
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut peer = Command::new(exe)
        .args(["raw-peer", &port])
        .spawn()
        .map_err(|e| format!("cannot start the raw peer: {e}"))?;
    let result = (|| {
        let (mut s, _) = l.accept().map_err(|e| e.to_string())?;
        s.set_nodelay(true).map_err(|e| e.to_string())?;
        let data: Vec<u8> = (0..BIG).map(|i| i as u8).collect();
        let mut ack = [0u8; 1];
        let mut per = Vec::new();
        for i in 0..=TRANSFERS {
            let t0 = Instant::now();
            s.write_all(&data).map_err(|e| e.to_string())?;
            s.read_exact(&mut ack).map_err(|e| e.to_string())?;
            if i > 0 {
                per.push(t0.elapsed().as_secs_f64());
            }
        }
        Ok(median(per))
    })();
    if result.is_err() {
        let _ = peer.kill();
    }
    let _ = peer.wait();
    result
}

fn ours(th: &Path, script: &Path) -> Result<f64, String> {
    let n = TRANSFERS.to_string();
    let script = script.to_str().expect("utf-8 temp path");
    let mut server = Command::new(th)
        .args([script, "server", &n])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run th: {e}"))?;
    let mut lines = BufReader::new(server.stdout.take().expect("piped"));
    let mut first = String::new();
    lines.read_line(&mut first).map_err(|e| e.to_string())?;
    let Some(port) = first.trim().strip_prefix("port ") else {
        let _ = server.kill();
        let _ = server.wait();
        return Err(format!("the server printed {first:?}"));
    };
    let out = Command::new(th)
        .args([script, "client", &n, port])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run th: {e}"))?;
    let status = server.wait().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || !status.success() {
        return Err(format!(
            "th failed: {}",
            String::from_utf8_lossy(&out.stderr).trim().lines().last().unwrap_or("")
        ));
    }
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("transfer\t"))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .ok_or_else(|| format!("no timing in {stdout:?}"))
}

fn best(a: Option<Result<f64, String>>, b: Result<f64, String>) -> Option<Result<f64, String>> {
    Some(match (a, b) {
        (Some(Ok(x)), Ok(y)) => Ok(x.min(y)),
        (Some(Ok(x)), Err(_)) => Ok(x),
        (_, b) => b,
    })
}

fn gbs(v: &Option<Result<f64, String>>) -> Option<f64> {
    match v {
        Some(Ok(s)) => Some(BIG as f64 / s / 1e9),
        _ => None,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 3 && args[1] == "raw-peer" {
        raw_peer(&args[2]);
        return;
    }
    let th = PathBuf::from(env!("CARGO_BIN_EXE_th"));
    let script = std::env::temp_dir().join(format!("luatorch-bench-ipc-net-{}.lua", std::process::id()));
    std::fs::write(&script, LUA).expect("write the Lua benchmark script");
    let started = Instant::now();
    let (mut th_best, mut raw_best) = (None, None);
    for _ in 0..ROUNDS {
        th_best = best(th_best, ours(&th, &script));
        raw_best = best(raw_best, raw_transfer());
    }
    let _ = std::fs::remove_file(&script);

    println!("64 MiB client -> server on loopback (send, receive into a preallocated buffer, ack), GB/s:");
    for (label, v) in [
        ("luatorch ipc.client/server, FloatTensor", &th_best),
        ("raw Rust TCP socket, same bytes", &raw_best),
    ] {
        let shown = match (gbs(v), v) {
            (Some(g), Some(Ok(s))) => format!("{g:.2} GB/s   ({:.2} ms)", s * 1e3),
            (_, Some(Err(e))) => format!("n/a ({e})"),
            _ => "n/a".into(),
        };
        println!("  {label:<42} {shown}");
    }
    let ours = gbs(&th_best);
    let ratio = match (ours, gbs(&raw_best)) {
        (Some(a), Some(b)) => format!("{:.2}", a / b),
        _ => "n/a".into(),
    };
    let verdict = match ours {
        Some(g) if g >= 2.0 => "met",
        Some(_) => "MISSED",
        None => "n/a",
    };
    println!("  ratio ours/raw socket: {ratio}; goal at least 2 GB/s: {verdict}");
    println!("({ROUNDS} rounds, {:.1} s)", started.elapsed().as_secs_f64());
}
