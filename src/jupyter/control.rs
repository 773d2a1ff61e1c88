//! The control channel, on its own thread so that it answers while a cell runs: shutdown_request
//! (reply, then the main loop ends; a running cell is interrupted first), interrupt_request (the
//! same SIGINT the signal mode sends, so both take one path), kernel_info_request. Each request
//! is framed by busy and idle on iopub, as on shell.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::{Value, json};

use super::channels::{Flags, Publisher, TICK_MS, readable};
use super::wire::{Message, Signer, child, decode, encode};

pub struct Control {
    pub signer: Signer,
    pub session: String,
    pub kernel_info: Value,
}

/// Sends SIGINT to this process: the cell running (if any) stops as at a Ctrl-C; between cells
/// the kernel ignores it.
pub fn interrupt_self() {
    // SAFETY: kill on our own pid with a signal whose handler is installed or ignored.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGINT);
    }
}

impl Control {
    pub fn serve(self, socket: zmq::Socket, ctx: zmq::Context, flags: Arc<Flags>) {
        let publisher = match Publisher::new(&ctx, self.signer.clone(), self.session.clone()) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("th kernel: control cannot publish: {e}");
                return;
            }
        };
        while !flags.stop.load(Ordering::SeqCst) {
            if !readable(&socket, TICK_MS) {
                continue;
            }
            let Ok(frames) = socket.recv_multipart(0) else {
                continue;
            };
            let msg = match decode(frames, &self.signer) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("th kernel: control message dropped: {e}");
                    continue;
                }
            };
            let status = |state: &str| {
                publisher.publish(&child(
                    Some(&msg),
                    "status",
                    &self.session,
                    json!({ "execution_state": state }),
                ));
            };
            let reply = |msg_type: &str, content: Value| {
                let r: Message = child(Some(&msg), msg_type, &self.session, content);
                let _ = socket.send_multipart(encode(&r, &self.signer), 0);
            };
            status("busy");
            match msg.msg_type() {
                "shutdown_request" => {
                    let restart = msg.content["restart"].as_bool().unwrap_or(false);
                    reply("shutdown_reply", json!({ "status": "ok", "restart": restart }));
                    status("idle");
                    flags.shutdown.store(true, Ordering::SeqCst);
                    if flags.busy.load(Ordering::SeqCst) {
                        interrupt_self();
                    }
                    continue;
                }
                "interrupt_request" => {
                    if flags.busy.load(Ordering::SeqCst) {
                        interrupt_self();
                    }
                    reply("interrupt_reply", json!({ "status": "ok" }));
                }
                "kernel_info_request" => reply("kernel_info_reply", self.kernel_info.clone()),
                other => eprintln!("th kernel: control message {other:?} not handled"),
            }
            status("idle");
        }
    }
}
