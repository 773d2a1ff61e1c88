//! The wire: how Lua values, storages and the peers' proofs travel between processes, whatever
//! carries them. `parallel` (ZeroMQ, postcard envelopes) and ipc's client/server (`ipc::net`, TCP
//! frames) both use it, and keep only their routing and transport (and torch-ipc's raw tensor
//! frames). Nothing here knows Lua: the Lua side of a value (the `.t7` walker) stays with the Lua
//! glue, and the wire describes bytes and descriptors.
//!
//! The words, each with one meaning throughout `parallel`, `ipc` and here:
//! - **wire**: this format, between processes;
//! - **value** ([`value`]): a Lua value in wire form: its `.t7` body and the storages left beside
//!   it, each named by a [`value::Beside`] descriptor;
//! - **frame**: one delimited chunk of bytes that a transport carries (a ZeroMQ frame; a header,
//!   description and body on an ipc connection);
//! - **message**: what one send hands a transport: one or more frames (a parallel envelope and
//!   what it announces; an ipc value message, one frame);
//! - **envelope**: parallel's control header, in the first frame of its messages;
//! - **packed** (`ipc::packed`): a value made ready for another Lua state of the same process,
//!   storages and handles by reference, no wire involved;
//! - **marshal**: only torch-ipc's `ipc.marshal` object.
//!
//! Where each storage beside a body goes (a segment, a loan, a frame) is one rule with a policy per
//! transport ([`travel`]). Device storages go to a process of the same machine by CUDA IPC handle, lent until released
//! ([`cuda`] says why this one protocol serves both APIs); the peers prove a shared secret to each
//! other before anything else ([`handshake`]).

pub mod cuda;
pub mod dtype;
pub mod handshake;
pub mod travel;
pub mod value;
