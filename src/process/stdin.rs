//! A child's stdin: the one line its launcher hands it (where to connect, the secret), then the
//! watch that ends the child when the launcher goes (its end of the pipe closes).

use std::io::Read;

use crate::error::{Error, Result};

/// Reads one line from fd 0 a byte at a time (nothing past it may be consumed: the rest of stdin
/// is the watchdog's).
pub fn read_line_from_stdin() -> Result<String> {
    let mut line = Vec::new();
    let mut stdin = std::io::stdin().lock();
    let mut byte = [0u8; 1];
    loop {
        match stdin.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => {
                line.push(byte[0]);
                if line.len() > 4096 {
                    return Err(Error::corrupt("the bootstrap line is too long"));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(format!("cannot read stdin: {e}"))),
        }
    }
    String::from_utf8(line).map_err(|_| Error::corrupt("the bootstrap line is not text"))
}

/// Ends the process when stdin reaches its end: the parent is gone or closed us.
pub fn watch_stdin() {
    std::thread::spawn(|| {
        let mut buf = [0u8; 256];
        let mut stdin = std::io::stdin().lock();
        loop {
            match stdin.read(&mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        // If the parent is gone, what it would have removed is ours to remove.
        super::sweep::sweep_after_stdin_closed();
        // SAFETY: ends the process without running anything else.
        unsafe { libc::_exit(1) };
    });
}
