//! The CMake side of a Torch rock's build: the files `FIND_PACKAGE(Torch)` reads (rocks/cmake/),
//! written into the tree, and the user package registry entry that lets CMake find them whatever
//! CMAKE_PREFIX_PATH the rockspec passes.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
/// The files of `<tree>/share/cmake/torch/`, as the repository's rocks/cmake/ holds them.
const FILES: &[(&str, &str)] = &[
    ("TorchConfig.cmake", include_str!("../../rocks/cmake/TorchConfig.cmake")),
    (
        "TorchPackage.cmake",
        include_str!("../../rocks/cmake/TorchPackage.cmake"),
    ),
    ("TorchWrap.cmake", include_str!("../../rocks/cmake/TorchWrap.cmake")),
];

/// The registry entry's name under ~/.cmake/packages/Torch/: one per user, the last tree readied.
const REGISTRY_ENTRY: &str = "luatorch";

/// Writes the cmake files into `<tree>/share/cmake/torch`; that folder.
pub fn install(tree: &Path) -> Result<PathBuf> {
    let dir = tree.join("share/cmake/torch");
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(format!("cannot create {}: {e}", dir.display())))?;
    for (name, text) in FILES {
        write_atomically(&dir.join(name), text.as_bytes())?;
    }
    Ok(dir)
}

/// Points CMake's user package registry for Torch at `cmake_dir`; the entry written, or None
/// without a HOME.
pub fn register(cmake_dir: &Path) -> Result<Option<PathBuf>> {
    let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) else {
        return Ok(None);
    };
    let packages = Path::new(&home).join(".cmake/packages/Torch");
    std::fs::create_dir_all(&packages).map_err(|e| Error::io(format!("cannot create {}: {e}", packages.display())))?;
    let entry = packages.join(REGISTRY_ENTRY);
    let mut line = cmake_dir.to_string_lossy().into_owned();
    line.push('\n');
    write_atomically(&entry, line.as_bytes())?;
    Ok(Some(entry))
}

/// Other Torch configurations CMake finds before the registry entry: find_package searches the
/// prefixes of PATH (each entry, and the parent of one ending in bin or sbin) ahead of the user
/// package registry, and the rockspecs' CMAKE_PREFIX_PATH (the Lua interpreter's prefix, /usr
/// for Debian's luarocks) is one of them. An original Torch7 installed there would be built
/// against instead of th.
pub fn shadowing(cmake_dir: &Path) -> Vec<PathBuf> {
    let ours = std::fs::canonicalize(cmake_dir).unwrap_or_else(|_| cmake_dir.to_path_buf());
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut prefixes: Vec<PathBuf> = Vec::new();
    for entry in std::env::split_paths(&path) {
        let parent = match entry.file_name().and_then(|n| n.to_str()) {
            Some("bin" | "sbin") => entry.parent().map(Path::to_path_buf),
            _ => None,
        };
        for prefix in [Some(entry), parent].into_iter().flatten() {
            if !prefixes.contains(&prefix) {
                prefixes.push(prefix);
            }
        }
    }
    let multiarch = format!("lib/{}-linux-gnu", std::env::consts::ARCH);
    let mut found = Vec::new();
    for prefix in prefixes {
        for lib in ["share", "lib", "lib64", multiarch.as_str()] {
            for name in ["torch", "Torch"] {
                let dir = prefix.join(lib).join("cmake").join(name);
                for file in ["TorchConfig.cmake", "torch-config.cmake"] {
                    let config = dir.join(file);
                    if !config.is_file() {
                        continue;
                    }
                    let real = std::fs::canonicalize(&dir).unwrap_or(dir.clone());
                    if real != ours && !found.contains(&config) {
                        found.push(config);
                    }
                }
            }
        }
    }
    found
}

/// A rock build running while the tree is readied again never reads a half-written file.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let part = path.with_extension("part");
    std::fs::write(&part, bytes)
        .and_then(|()| std::fs::rename(&part, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&part);
            Error::io(format!("cannot write {}: {e}", path.display()))
        })
}
