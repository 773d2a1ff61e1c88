//! Build script: exports the Lua C API from `th` so compiled Lua modules load into it, and embeds the
//! project's Lua files (`lua/`) so an installed `th` works from any directory.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    // Compiled Lua modules (.so from a luarocks tree) resolve `lua_*` symbols from the host binary.
    // Only the Lua C API (th.dynlist) is exported: a smaller dynamic symbol table also starts faster.
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    println!(
        "cargo:rustc-link-arg-bins=-Wl,--dynamic-list={}",
        manifest.join("th.dynlist").display()
    );
    println!("cargo:rerun-if-changed=th.dynlist");
    println!("cargo:rerun-if-changed=lua");

    let root = manifest.join("lua");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();

    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    // SAFETY: a throw-away state used only to compile and dump chunks.
    let lua = unsafe { mlua::Lua::unsafe_new() };
    let mut out = String::from(
        "/// (module name, path under lua/, LuaJIT bytecode)\npub static EMBEDDED_LUA: &[(&str, &str, &[u8])] = &[\n",
    );
    for file in &files {
        let rel = file.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        println!("cargo:rerun-if-changed={}", file.display());
        let source = std::fs::read(file).unwrap();
        let function = match lua.load(&source).set_name(format!("@[luatorch]/{rel}")).into_function() {
            Ok(f) => f,
            Err(e) => panic!("lua/{rel} does not compile: {e}"),
        };
        // Not stripped: tracebacks keep file names and line numbers.
        let dest = out_dir.join("lua").join(format!("{rel}.bc"));
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::write(&dest, function.dump(false)).unwrap();
        let module = module_name(&rel);
        writeln!(
            out,
            "    ({module:?}, {rel:?}, include_bytes!({:?})),",
            dest.display().to_string()
        )
        .unwrap();
    }
    out.push_str("];\n");
    std::fs::write(out_dir.join("embedded_lua.rs"), out).unwrap();
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
