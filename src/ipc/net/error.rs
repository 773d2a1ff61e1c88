//! How a call on a client/server connection fails: the kinds decide whether the connection
//! survives the error.

pub const DISCONNECTED: &str = "remote peer disconnected";

/// Why a call on a connection failed.
#[derive(Debug, Clone, PartialEq)]
pub enum NetError {
    /// The connection is over: the peer said goodbye or its end went away.
    Gone(String),
    /// The connection cannot be used any more: an I/O error or a malformed frame.
    Broken(String),
    /// The next frame does not fit this call's receiver; it stays for a later call.
    Mismatch(String),
    /// Ctrl-C during a wait (REPL).
    Interrupted,
}

impl NetError {
    pub fn message(&self) -> String {
        match self {
            NetError::Gone(m) | NetError::Broken(m) | NetError::Mismatch(m) => m.clone(),
            NetError::Interrupted => "interrupted".into(),
        }
    }

    /// Whether the connection is unusable after this error. An interrupted call may have left a
    /// frame half read or half written, so it ends the connection too.
    pub fn is_fatal(&self) -> bool {
        !matches!(self, NetError::Mismatch(_))
    }
}

/// What a call on a connection returns.
pub type Res<T> = Result<T, NetError>;

impl From<NetError> for crate::error::Error {
    fn from(e: NetError) -> crate::error::Error {
        use crate::error::Error;
        match e {
            NetError::Gone(m) => Error::peer(m),
            NetError::Broken(m) => Error::io(m),
            NetError::Mismatch(m) => Error::shape(m),
            NetError::Interrupted => Error::peer("interrupted"),
        }
    }
}
