//! `th --jupyter-kernel FILE`: a Jupyter kernel (protocol 5.3) over the same Lua state and
//! evaluation as the REPL, in the manner of iTorch; `th --jupyter-install` writes its kernelspec.
//!
//! - `connection.rs`: the connection file; `wire.rs`: messages, their HMAC-SHA256 signatures
//!   (checked on every message received: a bad one is logged and dropped);
//! - `channels.rs`: the sockets, bound only where the connection file says, and the heartbeat
//!   and iopub threads; `control.rs`: the control thread (shutdown, interrupt);
//! - `kernel.rs`: the shell loop and execute; `requests.rs`: kernel_info, complete, inspect,
//!   is_complete; `io.rs`: a cell's output, input and rich display (`require 'itorch.kernel'`);
//! - `install.rs`: the kernelspec.
//!
//! Lua's side is `lua/itorch/`: `capture.lua` points print, io.write, io.read and the standard
//! files at the notebook, and `itorch` (a global in the kernel) shows images and HTML.

mod channels;
mod connection;
mod control;
mod install;
mod io;
mod kernel;
mod requests;
mod wire;

use std::cell::RefCell;
use std::io::Read as _;
use std::rc::Rc;

use mlua::Lua;

pub use install::main as install_main;

/// A fresh UUID-looking session id (random, from /dev/urandom).
fn session_id() -> String {
    let mut b = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut b));
    if read.is_err() {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        b = (t ^ u128::from(std::process::id())).to_le_bytes();
    }
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
}

/// Runs the kernel over `lua` (a th state, environment loaded) until a shutdown_request; returns
/// the exit status.
pub fn run_kernel(lua: &Lua, connection_file: &str) -> i32 {
    let conn = match connection::Connection::read(connection_file) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("th --jupyter-kernel: {e}");
            return 1;
        }
    };
    // Between cells SIGINT is ignored: the frontend interrupts an idle kernel too (before a
    // shutdown, say). While a cell runs, `repl::interrupt` handles it.
    // SAFETY: installs the ignore disposition.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
    }
    let signer = wire::Signer::new(&conn.key);
    let session = session_id();
    let control = control::Control {
        signer: signer.clone(),
        session: session.clone(),
        kernel_info: requests::kernel_info(lua),
    };
    let mut channels = match channels::Channels::open(&conn, move |s, ctx, flags| control.serve(s, ctx, flags)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("th --jupyter-kernel: {e}");
            return 1;
        }
    };
    let Some(stdin) = channels.stdin.take() else {
        return 1;
    };
    let publisher = match channels::Publisher::new(&channels.ctx, signer.clone(), session.clone()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("th --jupyter-kernel: cannot publish: {e}");
            return 1;
        }
    };
    let io = Rc::new(RefCell::new(io::Io::new(
        publisher,
        stdin,
        signer.clone(),
        channels.flags.clone(),
    )));
    let ready = io::register(lua, &io).and_then(|()| {
        lua.load("require 'itorch.capture'; itorch = require 'itorch'")
            .set_name("=[jupyter kernel]")
            .exec()
    });
    if let Err(e) = ready {
        eprintln!("th --jupyter-kernel: {}", crate::error::message::describe(&e));
        channels.close();
        return 1;
    }
    let mut k = kernel::Kernel::new(lua, channels, io, signer, session);
    k.serve();
    k.channels.close();
    0
}
