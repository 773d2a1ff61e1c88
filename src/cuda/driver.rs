//! The floor of the CUDA layer: every call into cudarc (the driver, cuBLAS, NVRTC) goes through
//! `guard`, so that no panic of cudarc's loader (a missing library or symbol) unwinds into Lua,
//! and a driver failure becomes a `crate::error::Error` of kind device in words ("CUDA_ERROR_X
//! (description)") rather than a number.

use cudarc::driver::DriverError;

use crate::error::{Error, Result};

/// Runs `f`, turning a panic inside it into an error naming `what` (the library call).
pub fn guard<R>(what: &str, f: impl FnOnce() -> Result<R>) -> Result<R> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown failure".into());
            Err(Error::device(format!("{what}: a CUDA library call failed: {msg}")))
        }
    }
}

/// A driver error in words: its name and description.
pub fn error(e: DriverError) -> Error {
    let name = e
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    Error::device(match e.error_string() {
        Ok(s) => format!("{name} ({})", s.to_string_lossy()),
        Err(_) => name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_turns_panics_into_errors() {
        let r: Result<()> = guard("probe", || panic!("Unable to dynamically load"));
        let e = r.unwrap_err();
        assert_eq!(e.kind(), crate::error::Kind::Device);
        assert!(
            e.message().starts_with("probe: a CUDA library call failed") && e.message().contains("Unable"),
            "{e}"
        );
        assert_eq!(guard("probe", || Ok(3)), Ok(3));
    }
}
