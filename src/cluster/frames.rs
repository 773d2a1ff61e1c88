//! A cluster message on the wire. Every ZeroMQ frame is at most `MAX_FRAME` bytes, since that is
//! what the gate lets a peer send before and after it authenticates (`process/gate.rs`): the
//! first frame (the message and its body, a `.t7` value with its small storages in it) goes in
//! pieces after a `Msg::Pieces` when it is longer, and is put back together by the receiver;
//! a storage beside the body goes in consecutive frames, which `value.rs` reads as they come.

use super::protocol::Msg;
use crate::error::{Error, Result};
use crate::process::gate::MAX_FRAME;

/// Sends `first` on `socket` with `flags` (SNDMORE when frames follow it), in pieces when it is
/// longer than a frame may be. A refusal of the first piece (DONTWAIT, a gone route) leaves
/// nothing sent.
pub fn send_first(socket: &zmq::Socket, first: &[u8], flags: i32) -> zmq::Result<()> {
    if first.len() <= MAX_FRAME {
        return socket.send(first, flags);
    }
    let count = first.len().div_ceil(MAX_FRAME);
    let header = Msg::Pieces { count: count as u32 };
    socket.send(header.encode(), flags | zmq::SNDMORE)?;
    let more = flags & zmq::SNDMORE;
    for (i, piece) in first.chunks(MAX_FRAME).enumerate() {
        socket.send(piece, if i + 1 < count { zmq::SNDMORE } else { more })?;
    }
    Ok(())
}

/// A received message's frames with its first frame whole again (see `send_first`).
pub fn join_first(mut frames: Vec<zmq::Message>) -> Result<Vec<zmq::Message>> {
    let Some(Msg::Pieces { count }) = frames.first().and_then(|f| Msg::split(f)).map(|(m, _)| m) else {
        return Ok(frames);
    };
    let count = count as usize;
    if count == 0 || frames.len() < 1 + count {
        return Err(Error::corrupt("a message announces more pieces than it has"));
    }
    let total: usize = frames[1..=count].iter().map(|f| f.len()).sum();
    let mut whole = Vec::new();
    whole
        .try_reserve_exact(total)
        .map_err(|_| Error::memory(format!("out of memory receiving a message of {total} bytes")))?;
    for piece in frames.drain(..=count).skip(1) {
        whole.extend_from_slice(&piece);
    }
    frames.insert(0, zmq::Message::from(whole));
    Ok(frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a PAIR of sockets carries, sent with `send_first` and joined.
    fn round_trip(first: &[u8], raw: &[&[u8]]) -> Vec<Vec<u8>> {
        let ctx = zmq::Context::new();
        let a = ctx.socket(zmq::PAIR).unwrap();
        let b = ctx.socket(zmq::PAIR).unwrap();
        a.bind("inproc://frames-test").unwrap();
        b.connect("inproc://frames-test").unwrap();
        let flags = if raw.is_empty() { 0 } else { zmq::SNDMORE };
        send_first(&a, first, flags).unwrap();
        for (i, r) in raw.iter().enumerate() {
            a.send(*r, if i + 1 < raw.len() { zmq::SNDMORE } else { 0 }).unwrap();
        }
        let mut got = vec![b.recv_msg(0).unwrap()];
        while got.last().unwrap().get_more() {
            got.push(b.recv_msg(0).unwrap());
        }
        assert!(got.iter().all(|f| f.len() <= MAX_FRAME));
        join_first(got).unwrap().iter().map(|m| m.to_vec()).collect()
    }

    #[test]
    fn a_long_first_frame_goes_in_pieces_and_comes_back_whole() {
        let small = Msg::Quit.with_body(b"body");
        assert_eq!(round_trip(&small, &[]), vec![small.clone()]);
        let long: Vec<u8> = Msg::Quit.with_body(&(0..3 * MAX_FRAME + 7).map(|i| i as u8).collect::<Vec<u8>>());
        assert_eq!(round_trip(&long, &[]), vec![long.clone()]);
        assert_eq!(
            round_trip(&long, &[b"raw", b""]),
            vec![long, b"raw".to_vec(), Vec::new()]
        );
    }

    #[test]
    fn missing_pieces_are_an_error() {
        let header = zmq::Message::from(Msg::Pieces { count: 3 }.encode());
        assert!(join_first(vec![header, zmq::Message::from(&b"x"[..])]).is_err());
    }
}
