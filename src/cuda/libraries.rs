//! Finding the CUDA libraries at run time (bottom layer, beside `driver`).
//!
//! cudarc loads each library on first use and panics when it is missing, so every entry point
//! asks here first. Its loader only tries bare sonames (`libcublas.so.13`, ...), which the dynamic
//! loader finds through LD_LIBRARY_PATH and its cache; cuBLAS and NVRTC are often elsewhere (a
//! CUDA toolkit in /usr/local/cuda, pip's nvidia-* wheels). So before their first use they are
//! looked for in those places and loaded by full path, globally: a library already loaded with
//! soname `libcublas.so.13` is what a later `dlopen("libcublas.so.13")` returns. The driver
//! (libcuda.so.1) comes with the kernel driver and is always on the loader's path.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::driver::guard;
use crate::error::{Error, Result};

/// The libraries used here besides the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lib {
    Cublas,
    Nvrtc,
}

impl Lib {
    fn name(self) -> &'static str {
        match self {
            Lib::Cublas => "cuBLAS",
            Lib::Nvrtc => "NVRTC",
        }
    }

    /// cudarc's name for the library, and the libraries to load first from the same folder
    /// (cuBLAS needs cuBLASLt, which its loader would otherwise look for on the default path).
    fn stems(self) -> &'static [&'static str] {
        match self {
            Lib::Cublas => &["cublasLt", "cublas"],
            Lib::Nvrtc => &["nvrtc"],
        }
    }

    fn present(self) -> bool {
        // SAFETY: the probes only dlopen and dlclose the candidate names.
        guard("load", || unsafe {
            Ok(match self {
                Lib::Cublas => cudarc::cublas::sys::is_culib_present(),
                Lib::Nvrtc => cudarc::nvrtc::sys::is_culib_present(),
            })
        })
        .unwrap_or(false)
    }
}

/// Whether the driver library can be loaded (no driver: no device, and nothing else is tried).
pub fn driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: the probe only dlopens and dlcloses the candidate names.
    *PRESENT.get_or_init(|| guard("load", || Ok(unsafe { cudarc::driver::sys::is_culib_present() })).unwrap_or(false))
}

/// Makes `lib` loadable by cudarc, loading it by full path from the known places if the
/// loader's own search does not find it; the error says where it was looked for.
pub fn ensure(lib: Lib) -> Result<()> {
    static CUBLAS: OnceLock<Result<()>> = OnceLock::new();
    static NVRTC: OnceLock<Result<()>> = OnceLock::new();
    let cell = match lib {
        Lib::Cublas => &CUBLAS,
        Lib::Nvrtc => &NVRTC,
    };
    cell.get_or_init(|| load(lib)).clone()
}

fn load(lib: Lib) -> Result<()> {
    if lib.present() {
        return Ok(());
    }
    let dirs = search_dirs();
    let main = lib.stems()[lib.stems().len() - 1];
    for dir in &dirs {
        let Some(found) = find_in(dir, main) else { continue };
        for stem in &lib.stems()[..lib.stems().len() - 1] {
            if let Some(dep) = find_in(dir, stem) {
                // A failure shows in the main library's load below.
                let _ = dlopen_global(&dep);
            }
        }
        if dlopen_global(&found).is_ok() && lib.present() {
            return Ok(());
        }
    }
    Err(Error::device(format!(
        "the {} library was not found (searched the loader path{}{}; set LUATORCH_CUDA_LIBS to the folder that holds it)",
        lib.name(),
        if dirs.is_empty() { "" } else { " and " },
        dirs.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// The file in `dir` that cudarc would open for `stem`, if any (its candidate names, in order).
fn find_in(dir: &Path, stem: &str) -> Option<PathBuf> {
    cudarc::get_lib_name_candidates(stem)
        .into_iter()
        .map(|name| dir.join(name))
        .find(|p| p.is_file())
}

/// Loads a library by path into the global namespace, for good (never closed).
fn dlopen_global(path: &Path) -> Result<()> {
    let c = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| Error::io("path holds a NUL byte"))?;
    // SAFETY: a plain dlopen of a library file; the handle is kept (leaked) on purpose.
    let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
    if handle.is_null() {
        return Err(Error::device(format!("cannot load {}", path.display())));
    }
    Ok(())
}

/// Folders that may hold cuBLAS and NVRTC, most specific first: LUATORCH_CUDA_LIBS (a
/// colon-separated list), the CUDA toolkit, and the lib folders of pip's nvidia-* wheels in the
/// usual Python package folders. Only existing folders are returned.
pub fn search_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(list) = crate::settings::get(crate::settings::CUDA_LIBS) {
        dirs.extend(std::env::split_paths(&list));
    }
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(root) = std::env::var_os(var) {
            dirs.push(Path::new(&root).join("lib64"));
        }
    }
    let target = if cfg!(target_arch = "aarch64") {
        "sbsa-linux"
    } else {
        "x86_64-linux"
    };
    dirs.push("/usr/local/cuda/lib64".into());
    dirs.push(format!("/usr/local/cuda/targets/{target}/lib").into());
    for site in site_packages() {
        for sub in [
            "nvidia/cu13/lib",
            "nvidia/cublas/lib",
            "nvidia/cuda_nvrtc/lib",
            "nvidia/cu12/lib",
        ] {
            dirs.push(site.join(sub));
        }
    }
    let mut seen = std::collections::HashSet::new();
    dirs.retain(|d| d.is_dir() && seen.insert(d.clone()));
    dirs
}

/// Python package folders worth a look, found without running Python.
fn site_packages() -> Vec<PathBuf> {
    let mut roots: Vec<(PathBuf, &str)> = vec![
        ("/usr/lib".into(), "dist-packages"),
        ("/usr/local/lib".into(), "dist-packages"),
        ("/usr/local/lib".into(), "site-packages"),
    ];
    if let Some(home) = std::env::var_os("HOME") {
        roots.push((Path::new(&home).join(".local/lib"), "site-packages"));
    }
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(env) = std::env::var_os(var) {
            roots.push((Path::new(&env).join("lib"), "site-packages"));
        }
    }
    let mut out = Vec::new();
    for (root, leaf) in roots {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
            .map(|e| e.path().join(leaf))
            .collect();
        found.sort();
        out.extend(found);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_dirs_exist_and_honour_the_override() {
        for d in search_dirs() {
            assert!(d.is_dir(), "{}", d.display());
        }
        let names = cudarc::get_lib_name_candidates("nvrtc");
        assert!(names.iter().any(|n| n == "libnvrtc.so.13"), "{names:?}");
    }
}
