//! The connection file a Jupyter client writes: where to bind the five sockets, and the key that
//! signs every message.

use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub struct Connection {
    #[serde(default = "tcp")]
    pub transport: String,
    pub ip: String,
    pub shell_port: u16,
    pub iopub_port: u16,
    pub stdin_port: u16,
    pub control_port: u16,
    pub hb_port: u16,
    #[serde(default)]
    pub key: String,
    #[serde(default = "hmac_sha256")]
    pub signature_scheme: String,
}

fn tcp() -> String {
    "tcp".into()
}

fn hmac_sha256() -> String {
    "hmac-sha256".into()
}

impl Connection {
    pub fn read(path: &str) -> Result<Connection, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let c: Connection = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
        if !c.key.is_empty() && c.signature_scheme != "hmac-sha256" {
            return Err(format!(
                "{path}: signature_scheme {:?} is not supported (hmac-sha256 is)",
                c.signature_scheme
            ));
        }
        if c.transport != "tcp" && c.transport != "ipc" {
            return Err(format!("{path}: transport {:?} is neither tcp nor ipc", c.transport));
        }
        Ok(c)
    }

    /// The address of one socket: `tcp://IP:PORT`, or `ipc://IP-PORT`.
    pub fn endpoint(&self, port: u16) -> String {
        if self.transport == "ipc" {
            format!("ipc://{}-{port}", self.ip)
        } else {
            format!("tcp://{}:{port}", self.ip)
        }
    }
}
