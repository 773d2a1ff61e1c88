//! The arguments of `ipc.server` and `ipc.client`: timeouts (an argument or the module's
//! setting), ports and hosts.

use std::time::Duration;

use mlua::{Result, Table, Value};

use crate::args::{error, type_name};

pub const DEFAULT_CONNECT_TIMEOUT: f64 = 30.0;
pub const DEFAULT_ACCEPT_TIMEOUT: f64 = 300.0;

/// A timeout in seconds from an argument, or the module setting `name`, or `default`.
pub fn timeout_setting(
    settings: &Table,
    arg: Option<&Value>,
    name: &str,
    default: f64,
    method: &str,
) -> Result<Duration> {
    let (v, what) = match arg {
        Some(v) if !v.is_nil() => (v.clone(), "timeout".to_string()),
        _ => (settings.get::<Value>(name)?, format!("ipc.{name}")),
    };
    let secs = match v {
        Value::Nil => default,
        Value::Integer(i) => i as f64,
        Value::Number(n) => n,
        other => {
            return Err(error(
                method,
                format!("{what} must be a number of seconds, got {}", type_name(&other)),
            ));
        }
    };
    if secs.is_nan() || secs <= 0.0 || secs >= 1e9 {
        return Err(error(
            method,
            format!("{what} must be a positive number of seconds, got {secs}"),
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// A port from a number or a numeric string.
pub fn port_arg(v: &Value, method: &str) -> Result<u16> {
    let n = match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Number(n) => Some(*n),
        Value::String(s) => s.to_str().ok().and_then(|s| s.trim().parse::<f64>().ok()),
        _ => None,
    };
    match n {
        Some(n) if n.fract() == 0.0 && (0.0..=65535.0).contains(&n) => Ok(n as u16),
        _ => Err(error(
            method,
            format!("expected a port number (0 to 65535), got {}", describe_arg(v)),
        )),
    }
}

fn describe_arg(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{}'", s.to_string_lossy()),
        Value::Integer(i) => i.to_string(),
        Value::Number(n) => n.to_string(),
        v => type_name(v),
    }
}

pub fn host_arg(v: &Value, method: &str) -> Result<String> {
    match v {
        Value::String(s) => Ok(s.to_str().map(|s| s.to_string()).unwrap_or_default()),
        v => Err(error(
            method,
            format!("expected a host name or address, got {}", type_name(v)),
        )),
    }
}
