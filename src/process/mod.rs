//! Process plumbing shared by `parallel` and `cluster`: starting children here or through a remote
//! shell and handing them a line on stdin (`launch`, `stdin`), the ZeroMQ gate that keeps
//! strangers to a few KiB each and a bounded number (`gate`, `handshakes`), and the run's
//! shared-memory segments with the sweep that removes what killed processes left (`segments`,
//! `sweep`). Nothing here knows a package's protocol.

pub mod gate;
pub mod handshakes;
pub mod launch;
pub mod segments;
pub mod stdin;
pub mod sweep;
