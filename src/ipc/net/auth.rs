//! Mutual authentication of a client/server connection before any frame is read. torch-ipc had
//! none: anyone who could reach a server could send it values, and a `.t7` value may hold function
//! bytecode, which LuaJIT does not verify. Here both ends prove that they know the same secret by
//! the wire's handshake (`wire::handshake`: challenge and response, HMAC-SHA256 over fresh nonces
//! from both sides), its three messages written on the TCP stream as they are, the server's
//! challenge first.
//!
//! The secret is the user's, like an MPI or Erlang cookie: `LUATORCH_IPC_SECRET` when set,
//! otherwise the file `~/.luatorch/ipc_secret`, made on first use (mode 600) with 32 random bytes.
//! Processes of one user on one machine, or on machines sharing the home directory (a cluster),
//! agree without any setup; elsewhere set the variable to the same value everywhere.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::wire::handshake::{self, ANSWER_LEN, CHALLENGE_LEN, CONFIRMATION_LEN, Challenge};

pub const SECRET_ENV: &str = crate::settings::IPC_SECRET;
/// How long either end of a connection waits for the other's part of the handshake.
pub const HANDSHAKE_LIMIT: Duration = Duration::from_secs(10);

/// Where the secret comes from, for messages.
pub const SECRET_SOURCES: &str = "LUATORCH_IPC_SECRET or ~/.luatorch/ipc_secret";

fn secret_file() -> Result<PathBuf> {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).ok_or_else(|| {
        Error::peer(format!(
            "no secret for authenticating peers: set {SECRET_ENV} (HOME is not set)"
        ))
    })?;
    Ok(PathBuf::from(home).join(".luatorch").join("ipc_secret"))
}

/// Reads the secret file, making it first when there is none.
fn secret_from_file() -> Result<Vec<u8>> {
    let path = secret_file()?;
    let shown = path.display();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("cannot create {}: {e}", dir.display())))?;
    }
    // O_EXCL: of two processes making it at once, one writes and both read the same secret.
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
    {
        Ok(mut f) => {
            let fresh = handshake::random_bytes(32).map_err(|e| Error::io(format!("no random bytes: {e}")))?;
            f.write_all(handshake::hex(&fresh).as_bytes())
                .map_err(|e| Error::io(format!("cannot write {shown}: {e}")))?
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(Error::io(format!("cannot create {shown}: {e}"))),
    }
    let meta = std::fs::metadata(&path).map_err(|e| Error::io(format!("cannot read {shown}: {e}")))?;
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(Error::peer(format!(
            "{shown} is readable by other users: `chmod 600` it (or set {SECRET_ENV})"
        )));
    }
    // A writer that made the file a moment ago may not have written it yet.
    for _ in 0..100 {
        let s = std::fs::read(&path).map_err(|e| Error::io(format!("cannot read {shown}: {e}")))?;
        let s = s.trim_ascii().to_vec();
        if !s.is_empty() {
            return Ok(s);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Err(Error::peer(format!(
        "{shown} is empty: remove it (a new one is made) or set {SECRET_ENV}"
    )))
}

/// This process's secret (read once).
pub fn secret() -> Result<&'static [u8]> {
    static SECRET: OnceLock<Result<Vec<u8>>> = OnceLock::new();
    SECRET
        .get_or_init(|| match crate::settings::text(SECRET_ENV) {
            Some(s) => Ok(s.into_bytes()),
            None => secret_from_file(),
        })
        .as_deref()
        .map_err(Clone::clone)
}

fn exchange<T>(sock: &TcpStream, limit: Duration, f: impl FnOnce(&mut &TcpStream) -> io::Result<T>) -> io::Result<T> {
    sock.set_read_timeout(Some(limit))?;
    sock.set_write_timeout(Some(limit))?;
    let mut s = sock;
    let r = f(&mut s);
    sock.set_read_timeout(None)?;
    sock.set_write_timeout(None)?;
    r
}

/// The server's half: Ok when the client proved it knows the secret (and got the server's proof).
pub fn server_side(sock: &TcpStream, secret: &[u8], limit: Duration) -> Result<()> {
    let challenge = Challenge::new()?;
    let answer = exchange(sock, limit, |s| {
        s.write_all(&challenge.bytes())?;
        let mut answer = [0u8; ANSWER_LEN];
        s.read_exact(&mut answer)?;
        Ok(answer)
    })
    .map_err(|e| Error::peer(format!("the peer did not finish the handshake: {e}")))?;
    let confirmation = challenge
        .check(secret, &answer)
        .map_err(|e| Error::peer(format!("{e} ({SECRET_SOURCES})")))?;
    exchange(sock, limit, |s| s.write_all(&confirmation))
        .map_err(|e| Error::peer(format!("the peer left during the handshake: {e}")))
}

/// The client's half: Ok when the server accepted this client and proved it knows the secret.
pub fn client_side(sock: &TcpStream, secret: &[u8], limit: Duration) -> Result<()> {
    let mut challenge = [0u8; CHALLENGE_LEN];
    exchange(sock, limit, |s| s.read_exact(&mut challenge))
        .map_err(|e| Error::peer(format!("the server did not start the handshake: {e}")))?;
    let (answer, answered) =
        handshake::answer(secret, &challenge).map_err(|_| Error::peer("the server does not speak this protocol"))?;
    let mut confirmation = [0u8; CONFIRMATION_LEN];
    exchange(sock, limit, |s| {
        s.write_all(&answer)?;
        s.read_exact(&mut confirmation)
    })
    .map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof | io::ErrorKind::ConnectionReset => Error::peer(format!(
            "the server refused this client: its secret differs from this user's ({SECRET_SOURCES})"
        )),
        _ => Error::peer(format!("the handshake with the server failed: {e}")),
    })?;
    answered.check(&confirmation).map_err(|_| {
        Error::peer(format!(
            "the server does not know this user's secret ({SECRET_SOURCES})"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn both_sides_agree_and_strangers_are_refused() {
        let secret = b"test secret";
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let t = std::thread::spawn(move || {
            let (s, _) = l.accept().unwrap();
            let first = server_side(&s, secret, Duration::from_secs(5));
            let (s, _) = l.accept().unwrap();
            let second = server_side(&s, secret, Duration::from_secs(5));
            (first, second)
        });
        let c = TcpStream::connect(addr).unwrap();
        client_side(&c, secret, Duration::from_secs(5)).unwrap();
        // A stranger that answers with a wrong proof.
        let mut c = TcpStream::connect(addr).unwrap();
        let mut hello = [0u8; CHALLENGE_LEN];
        c.read_exact(&mut hello).unwrap();
        let mut bad = b"LTA1".to_vec();
        bad.extend_from_slice(&[7u8; ANSWER_LEN - 4]);
        c.write_all(&bad).unwrap();
        let (first, second) = t.join().unwrap();
        assert!(first.is_ok());
        assert!(second.unwrap_err().message().contains("does not know"));
    }
}
