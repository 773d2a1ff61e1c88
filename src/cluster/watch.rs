//! How a client learns that its controller is gone, within `NOTICE`: ZeroMQ's own heartbeats
//! on the connection (a controller that stopped answering, however busy its Lua side, misses
//! them, since its I/O thread answers them), the connection's events read off a monitor socket
//! (a killed controller's connection closes at once), and, for a controller on this machine,
//! its pid. The same events tell a refused handshake (a wrong secret) from a silent one.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::process::{gate, launch};

/// Between heartbeats on an idle connection.
const HEARTBEAT_IVL_MS: i32 = 400;
/// A heartbeat unanswered this long closes the connection.
const HEARTBEAT_TIMEOUT_MS: i32 = 1200;
/// The longest a client takes to notice (the heartbeat's worst case, plus a wait's slice).
pub const NOTICE: Duration = Duration::from_millis(2000);

/// What the events said.
#[derive(Debug, Clone, PartialEq)]
pub enum Heard {
    /// The connection closed (the peer ended, or missed its heartbeats).
    Closed,
    /// The peer refused our handshake: the secret's token is not its own.
    Refused,
}

/// The monitor of one connecting socket.
pub struct Watch {
    events: zmq::Socket,
    /// The controller's pid, when it runs on this machine.
    local_pid: Option<u32>,
}

/// Makes `socket` (not yet connected) keep ZeroMQ heartbeats, never reconnect on its own (a new
/// connection would need a new handshake), and report its connection's events to a `Watch`.
pub fn watch(ctx: &zmq::Context, socket: &zmq::Socket, local_pid: Option<u32>) -> Result<Watch> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let endpoint = format!(
        "inproc://luatorch-cluster-watch-{}",
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let fail = |e: zmq::Error| Error::io(format!("cannot watch the connection to the controller: {e}"));
    socket.set_heartbeat_ivl(HEARTBEAT_IVL_MS).map_err(fail)?;
    socket.set_heartbeat_timeout(HEARTBEAT_TIMEOUT_MS).map_err(fail)?;
    socket.set_reconnect_ivl(-1).map_err(fail)?;
    let wanted = zmq::SocketEvent::DISCONNECTED as i32
        | zmq::SocketEvent::HANDSHAKE_FAILED_AUTH as i32
        | zmq::SocketEvent::HANDSHAKE_FAILED_PROTOCOL as i32
        | zmq::SocketEvent::HANDSHAKE_FAILED_NO_DETAIL as i32;
    socket.monitor(&endpoint, wanted).map_err(fail)?;
    let events = ctx.socket(zmq::PAIR).map_err(fail)?;
    events.set_linger(0).map_err(fail)?;
    events.connect(&endpoint).map_err(fail)?;
    Ok(Watch { events, local_pid })
}

impl Watch {
    /// What has happened since the last look, without waiting; None while all is well.
    pub fn heard(&self) -> Option<Heard> {
        let mut heard = None;
        while let Ok(frames) = self.events.recv_multipart(zmq::DONTWAIT) {
            let Some((event, _)) = gate::monitor_event(&frames) else {
                continue;
            };
            let event = event as i32;
            let this = if event == zmq::SocketEvent::HANDSHAKE_FAILED_AUTH as i32 {
                Heard::Refused
            } else {
                Heard::Closed
            };
            // A refusal says more than the close that follows it.
            if heard != Some(Heard::Refused) {
                heard = Some(this);
            }
        }
        heard
    }

    /// Whether the controller runs on this machine (its pid can be looked at).
    pub fn is_local(&self) -> bool {
        self.local_pid.is_some()
    }

    /// Whether the controller's process, when it runs on this machine, has ended.
    pub fn process_ended(&self) -> bool {
        self.local_pid.is_some_and(|pid| !process_alive(pid))
    }
}

/// Whether `pid` is a live process (not a zombie) on this machine.
pub fn process_alive(pid: u32) -> bool {
    launch::stat_fields(pid).is_some_and(|f| !matches!(f.first().map(String::as_str), Some("Z" | "X") | None))
}

/// Whether `endpoint` names this machine (loopback), where a pid means a process here.
pub fn is_local(endpoint: &str) -> bool {
    let host = endpoint
        .strip_prefix("tcp://")
        .and_then(|rest| rest.rsplit_once(':'))
        .map(|(h, _)| h.trim_start_matches('[').trim_end_matches(']'));
    match host {
        Some(h) => h == "localhost" || h == "::1" || h.starts_with("127."),
        None => endpoint.starts_with("ipc://"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_endpoints_are_local() {
        assert!(is_local("tcp://127.0.0.1:5555"));
        assert!(is_local("tcp://[::1]:5555"));
        assert!(is_local("ipc:///tmp/x"));
        assert!(!is_local("tcp://10.0.0.2:5555"));
        assert!(!is_local("tcp://node7:5555"));
    }

    #[test]
    fn this_process_is_alive() {
        assert!(process_alive(std::process::id()));
        assert!(!process_alive(u32::MAX - 1));
    }
}
