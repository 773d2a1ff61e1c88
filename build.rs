//! Build script: exports the Lua C API from `th` so compiled Lua modules load into it, and embeds the
//! project's Lua files (`lua/`) so an installed `th` works from any directory.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    // Compiled Lua modules (.so from a luarocks tree) resolve `lua_*` symbols from the host binary.
    println!("cargo:rustc-link-arg-bins=-Wl,--export-dynamic");
    println!("cargo:rerun-if-changed=lua");

    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("lua");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();

    let mut out = String::from(
        "/// (module name, path under lua/, source)\npub static EMBEDDED_LUA: &[(&str, &str, &[u8])] = &[\n",
    );
    for file in &files {
        let rel = file.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        println!("cargo:rerun-if-changed={}", file.display());
        let module = module_name(&rel);
        writeln!(
            out,
            "    ({module:?}, {rel:?}, include_bytes!({:?})),",
            file.display().to_string()
        )
        .unwrap();
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("embedded_lua.rs");
    std::fs::write(dest, out).unwrap();
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "lua") {
            files.push(path);
        }
    }
}

/// `paths/init.lua` -> `paths`, `ipc/Tree.lua` -> `ipc.Tree`.
fn module_name(rel: &str) -> String {
    let stem = rel.strip_suffix(".lua").unwrap();
    let stem = stem.strip_suffix("/init").unwrap_or(stem);
    stem.replace('/', ".")
}
