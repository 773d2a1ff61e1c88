//! The kernel's five sockets, bound where the connection file says, and the threads that serve
//! the ones Lua must not wait for: the heartbeat (REP, echoes), iopub (one PUB fed through an
//! inproc PULL, so the main thread and the control thread can both publish) and control
//! (`control.rs`). The shell and stdin ROUTERs stay with the main thread, which owns the Lua state.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use super::connection::Connection;
use super::wire::{Message, Signer, encode};

const IOPUB_INPROC: &str = "inproc://luatorch-jupyter-iopub";
/// How often the threads look at the stop flag, in ms.
pub const TICK_MS: i64 = 100;

/// What the threads and the main loop share.
#[derive(Default)]
pub struct Flags {
    /// Every thread returns.
    pub stop: AtomicBool,
    /// A shutdown_request came in: the main loop ends.
    pub shutdown: AtomicBool,
    /// The main thread is running a cell.
    pub busy: AtomicBool,
}

/// A way to publish on iopub from one thread.
pub struct Publisher {
    push: zmq::Socket,
    signer: Signer,
    pub session: String,
}

impl Publisher {
    pub fn new(ctx: &zmq::Context, signer: Signer, session: String) -> zmq::Result<Publisher> {
        let push = ctx.socket(zmq::PUSH)?;
        push.set_linger(1000)?;
        push.connect(IOPUB_INPROC)?;
        Ok(Publisher { push, signer, session })
    }

    pub fn publish(&self, msg: &Message) {
        let mut frames = encode(msg, &self.signer);
        // The topic frame clients ignore, in place of identities.
        frames.insert(0, format!("kernel.{}.{}", self.session, msg.msg_type()).into_bytes());
        if let Err(e) = self.push.send_multipart(frames, 0) {
            eprintln!("th kernel: cannot publish {}: {e}", msg.msg_type());
        }
    }
}

/// The bound sockets the main thread keeps, and the threads serving the others.
pub struct Channels {
    pub ctx: zmq::Context,
    pub shell: zmq::Socket,
    pub stdin: Option<zmq::Socket>,
    pub flags: Arc<Flags>,
    threads: Vec<JoinHandle<()>>,
}

fn bind(ctx: &zmq::Context, kind: zmq::SocketType, endpoint: &str) -> Result<zmq::Socket, String> {
    let s = ctx.socket(kind).map_err(|e| e.to_string())?;
    s.set_linger(1000).map_err(|e| e.to_string())?;
    s.bind(endpoint).map_err(|e| format!("cannot bind {endpoint}: {e}"))?;
    Ok(s)
}

impl Channels {
    /// Binds every socket; `control` is the body of the control thread, given its socket.
    pub fn open(
        c: &Connection,
        control: impl FnOnce(zmq::Socket, zmq::Context, Arc<Flags>) + Send + 'static,
    ) -> Result<Channels, String> {
        let ctx = zmq::Context::new();
        let shell = bind(&ctx, zmq::ROUTER, &c.endpoint(c.shell_port))?;
        let stdin = bind(&ctx, zmq::ROUTER, &c.endpoint(c.stdin_port))?;
        let control_socket = bind(&ctx, zmq::ROUTER, &c.endpoint(c.control_port))?;
        let iopub = bind(&ctx, zmq::PUB, &c.endpoint(c.iopub_port))?;
        let hb = bind(&ctx, zmq::REP, &c.endpoint(c.hb_port))?;
        let pull = bind(&ctx, zmq::PULL, IOPUB_INPROC)?;
        let flags = Arc::new(Flags::default());
        let mut threads = Vec::new();
        let spawn = |name: &str, f: Box<dyn FnOnce() + Send>| {
            std::thread::Builder::new()
                .name(name.into())
                .spawn(f)
                .map_err(|e| format!("cannot start the {name} thread: {e}"))
        };
        let f = flags.clone();
        threads.push(spawn("jupyter-hb", Box::new(move || heartbeat(hb, &f)))?);
        let f = flags.clone();
        threads.push(spawn("jupyter-iopub", Box::new(move || forward(pull, iopub, &f)))?);
        let (f, c) = (flags.clone(), ctx.clone());
        threads.push(spawn(
            "jupyter-control",
            Box::new(move || control(control_socket, c, f)),
        )?);
        Ok(Channels {
            ctx,
            shell,
            stdin: Some(stdin),
            flags,
            threads,
        })
    }

    /// Stops and joins the threads (iopub last sends what was queued).
    pub fn close(&mut self) {
        self.flags.stop.store(true, Ordering::SeqCst);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Waits up to `ms` for a message on `socket`; false on timeout or error.
pub fn readable(socket: &zmq::Socket, ms: i64) -> bool {
    let mut items = [socket.as_poll_item(zmq::POLLIN)];
    matches!(zmq::poll(&mut items, ms), Ok(n) if n > 0) && items[0].is_readable()
}

fn heartbeat(hb: zmq::Socket, flags: &Flags) {
    while !flags.stop.load(Ordering::SeqCst) {
        if readable(&hb, TICK_MS)
            && let Ok(ping) = hb.recv_bytes(0)
        {
            let _ = hb.send(ping, 0);
        }
    }
}

fn forward(pull: zmq::Socket, iopub: zmq::Socket, flags: &Flags) {
    loop {
        if readable(&pull, TICK_MS) {
            if let Ok(frames) = pull.recv_multipart(0) {
                let _ = iopub.send_multipart(frames, 0);
            }
        } else if flags.stop.load(Ordering::SeqCst) {
            // Nothing left queued.
            return;
        }
    }
}
