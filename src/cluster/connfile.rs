//! The connection file of a cluster: `~/.luatorch/cluster/<profile>.json` (the directory can be
//! moved with `LUATORCH_CLUSTER_DIR`), readable by its owner only. It holds the controller's
//! address and the cluster's secret; a client or engine that cannot read it cannot join.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::wire::handshake::{hex, unhex};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Connection {
    pub profile: String,
    /// Where the controller listens (a ZeroMQ TCP endpoint).
    pub endpoint: String,
    /// The cluster's secret, in hex.
    pub secret: String,
    /// The controller's process and machine.
    pub pid: u32,
    pub host: String,
}

impl Connection {
    pub fn secret_bytes(&self) -> Result<Vec<u8>> {
        unhex(&self.secret).ok_or_else(|| Error::corrupt("the connection file's secret is not hex"))
    }

    pub fn new(profile: &str, endpoint: &str, secret: &[u8]) -> Connection {
        Connection {
            profile: profile.to_string(),
            endpoint: endpoint.to_string(),
            secret: hex(secret),
            pid: std::process::id(),
            host: super::protocol::hostname(),
        }
    }
}

/// A profile name is a file name: letters, digits, `-`, `_` and `.`, not starting with a dot.
pub fn check_profile(profile: &str) -> Result<()> {
    let ok = !profile.is_empty()
        && profile.len() <= 100
        && !profile.starts_with('.')
        && profile
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    if ok {
        Ok(())
    } else {
        Err(Error::argument(format!(
            "bad profile name '{profile}' (letters, digits, '-', '_' and '.' only)"
        )))
    }
}

/// The directory of connection files.
pub fn dir() -> Result<PathBuf> {
    if let Some(d) = crate::settings::get(crate::settings::CLUSTER_DIR) {
        return Ok(PathBuf::from(d));
    }
    let home = std::env::var_os("HOME").ok_or_else(|| Error::io("HOME is not set"))?;
    Ok(PathBuf::from(home).join(".luatorch").join("cluster"))
}

/// The connection file of `profile`.
pub fn path(profile: &str) -> Result<PathBuf> {
    check_profile(profile)?;
    Ok(dir()?.join(format!("{profile}.json")))
}

/// Makes the directory of connection files (0700: only its owner may look in).
pub fn make_dir() -> Result<PathBuf> {
    let d = dir()?;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&d)
        .map_err(|e| Error::io(format!("cannot make {}: {e}", d.display())))?;
    Ok(d)
}

/// Writes the file of `c.profile` (mode 0600, in a 0700 directory), replacing an old one only
/// through a rename, so that a reader never sees half a file.
pub fn write(c: &Connection) -> Result<PathBuf> {
    let final_path = path(&c.profile)?;
    let d = make_dir()?;
    let tmp = d.join(format!(".{}.json.{}", c.profile, std::process::id()));
    let text = serde_json::to_string_pretty(c).map_err(|e| Error::io(e.to_string()))?;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(|e| Error::io(format!("cannot write {}: {e}", tmp.display())))?;
    f.write_all(text.as_bytes())
        .and_then(|_| f.write_all(b"\n"))
        .and_then(|_| f.sync_all())
        .map_err(|e| Error::io(format!("cannot write {}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, &final_path).map_err(|e| Error::io(format!("cannot write {}: {e}", final_path.display())))?;
    Ok(final_path)
}

/// Reads the file of `profile`; refuses one that others can read (the secret would be known).
pub fn read(profile: &str) -> Result<Connection> {
    let p = path(profile)?;
    read_path(&p, profile)
}

pub fn read_path(p: &std::path::Path, profile: &str) -> Result<Connection> {
    let meta = std::fs::metadata(p).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::argument(format!(
                "no cluster '{profile}' is running (no connection file {}; start one with `thcluster start`)",
                p.display()
            ))
        } else {
            Error::io(format!("cannot read {}: {e}", p.display()))
        }
    })?;
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(Error::argument(format!(
            "{} can be read by others: its secret cannot be trusted (chmod 600 it, or restart the cluster)",
            p.display()
        )));
    }
    let text = std::fs::read_to_string(p).map_err(|e| Error::io(format!("cannot read {}: {e}", p.display())))?;
    serde_json::from_str(&text).map_err(|e| Error::corrupt(format!("{} is not a connection file: {e}", p.display())))
}

/// Removes the file of `profile` if it still belongs to controller `pid`.
pub fn remove_if_ours(profile: &str, pid: u32) {
    if let Ok(p) = path(profile)
        && let Ok(c) = read_path(&p, profile)
        && c.pid == pid
        && c.host == super::protocol::hostname()
    {
        let _ = std::fs::remove_file(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_plain_file_names() {
        for good in ["default", "a-b_c.1"] {
            check_profile(good).unwrap();
        }
        for bad in ["", "../x", ".hidden", "a/b", "a b"] {
            assert!(check_profile(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn files_are_private_and_round_trip() {
        let d = std::env::temp_dir().join(format!("luatorch-connfile-{}", std::process::id()));
        let c = Connection::new("t", "tcp://127.0.0.1:1", &[1, 2, 3]);
        let p = d.join("t.json");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(&p, serde_json::to_string(&c).unwrap()).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(read_path(&p, "t").unwrap_err().message().contains("read by others"));
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        let back = read_path(&p, "t").unwrap();
        assert_eq!(back, c);
        assert_eq!(back.secret_bytes().unwrap(), vec![1, 2, 3]);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
