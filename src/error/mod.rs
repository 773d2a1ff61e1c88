//! The error of the code below the Lua layer: what went wrong, by kind, in words that do not name
//! the Lua function. The function's name is added once, where the error becomes a Lua error
//! (`Error::named`, or `Named::named` on a result), so a message is never named twice and no
//! code has to guess from its text whether it already is.

pub mod message;

use std::fmt;

/// What kind of thing went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Arguments that match none of a function's forms.
    Argument,
    /// Sizes, dimensions, positions or counts that do not fit.
    Shape,
    /// An element type (or a value's type) that the operation does not take.
    Type,
    /// A CUDA device, its driver or one of its libraries.
    Device,
    /// Reading or writing a file, a pipe or a socket.
    Io,
    /// Input that is not what it claims to be: a damaged `.t7` file, a malformed frame.
    Corrupt,
    /// Another process or thread: gone, refusing, timed out, or failing to authenticate.
    Peer,
    /// Memory the system would not give: a storage or a buffer too large for what is left.
    Memory,
}

/// An error of kind `kind` with its message (no function name in it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: Kind,
    message: String,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: Kind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }

    pub fn argument(message: impl Into<String>) -> Error {
        Error::new(Kind::Argument, message)
    }

    pub fn shape(message: impl Into<String>) -> Error {
        Error::new(Kind::Shape, message)
    }

    pub fn dtype(message: impl Into<String>) -> Error {
        Error::new(Kind::Type, message)
    }

    pub fn device(message: impl Into<String>) -> Error {
        Error::new(Kind::Device, message)
    }

    pub fn io(message: impl Into<String>) -> Error {
        Error::new(Kind::Io, message)
    }

    pub fn corrupt(message: impl Into<String>) -> Error {
        Error::new(Kind::Corrupt, message)
    }

    pub fn peer(message: impl Into<String>) -> Error {
        Error::new(Kind::Peer, message)
    }

    pub fn memory(message: impl Into<String>) -> Error {
        Error::new(Kind::Memory, message)
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error with `what` in front of its message ("what: message"), for a caller that
    /// knows which operand or step it concerns.
    pub fn context(self, what: impl fmt::Display) -> Error {
        Error {
            kind: self.kind,
            message: format!("{what}: {}", self.message),
        }
    }

    /// The Lua error raised by `function`: "function: message".
    pub fn named(self, function: &str) -> mlua::Error {
        mlua::Error::RuntimeError(format!("{function}: {}", self.message))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::io(e.to_string())
    }
}

/// Naming the Lua function at the boundary: `kernel(...).named("torch.sum")?`.
pub trait Named<T> {
    fn named(self, function: &str) -> mlua::Result<T>;
}

impl<T> Named<T> for Result<T> {
    fn named(self, function: &str) -> mlua::Result<T> {
        self.map_err(|e| e.named(function))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_once_at_the_boundary() {
        let e = Error::shape("inconsistent tensor size").context("argument #2");
        assert_eq!(e.kind(), Kind::Shape);
        assert_eq!(e.to_string(), "argument #2: inconsistent tensor size");
        let r: Result<()> = Err(e);
        let lua = r.named("torch.add").unwrap_err();
        assert_eq!(
            lua.to_string(),
            "runtime error: torch.add: argument #2: inconsistent tensor size"
        );
        let io: Error = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file").into();
        assert_eq!(io.kind(), Kind::Io);
    }
}
