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
    // As Lua C modules (feature `module`) the library runs in the host's LuaJIT, whose bytecode
    // format may differ from the vendored one's: there the files are embedded as source. They are
    // compiled either way, so a syntax error stops the build.
    let as_source = std::env::var_os("CARGO_FEATURE_MODULE").is_some();
    let mut out = String::from(
        "/// (module name, path under lua/, LuaJIT bytecode or source)\npub static EMBEDDED_LUA: &[(&str, &str, &[u8])] = &[\n",
    );
    for file in &files {
        let rel = file.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        println!("cargo:rerun-if-changed={}", file.display());
        let source = std::fs::read(file).unwrap();
        let bytecode = match compile(&source, &format!("@[luatorch]/{rel}")) {
            Ok(b) => b,
            Err(e) => panic!("lua/{rel} does not compile: {e}"),
        };
        let dest = if as_source {
            file.clone()
        } else {
            let dest = out_dir.join("lua").join(format!("{rel}.bc"));
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            std::fs::write(&dest, bytecode).unwrap();
            dest
        };
        let module = module_name(&rel);
        writeln!(
            out,
            "    ({module:?}, {rel:?}, include_bytes!({:?})),",
            dest.display().to_string()
        )
        .unwrap();
    }
    out.push_str("];\n");
    writeln!(
        out,
        "/// Whether EMBEDDED_LUA holds bytecode (else source).\npub const EMBEDDED_BYTECODE: bool = {};",
        !as_source
    )
    .unwrap();
    std::fs::write(out_dir.join("embedded_lua.rs"), out).unwrap();

    build_nccl1(&manifest, &out_dir);
}

/// Compiles native/nccl1.c into `$OUT_DIR/libnccl.so.1`, which `th` embeds and loads (see
/// src/cuda/nccl/v1.rs). It needs no CUDA or NCCL headers: only the C compiler LuaJIT's build
/// needs anyway.
fn build_nccl1(manifest: &Path, out_dir: &Path) {
    let src = manifest.join("native").join("nccl1.c");
    println!("cargo:rerun-if-changed={}", src.display());
    let compiler = cc::Build::new().cargo_metadata(false).get_compiler();
    let out = out_dir.join("libnccl.so.1");
    let status = compiler
        .to_command()
        .args([
            "-shared",
            "-fPIC",
            "-O2",
            "-fvisibility=hidden",
            "-Wl,-soname,libnccl.so.1",
            "-o",
        ])
        .arg(&out)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("running the C compiler for native/nccl1.c failed: {e}"));
    assert!(status.success(), "compiling native/nccl1.c failed");
}

/// The bytecode of `source` (chunk name `name`) from the LuaJIT `th` embeds, with its debug
/// information: tracebacks keep file names and line numbers. Through mlua-sys rather than mlua: a
/// build-dependency on mlua would also get the `module` feature's "mlua/module", and `module`
/// excludes `vendored`.
fn compile(source: &[u8], name: &str) -> Result<Vec<u8>, String> {
    use mlua_sys as ffi;
    use std::ffi::{CString, c_char, c_int, c_void};

    unsafe extern "C-unwind" fn append(
        _: *mut ffi::lua_State,
        p: *const c_void,
        size: usize,
        out: *mut c_void,
    ) -> c_int {
        // SAFETY: `out` is the Vec handed to lua_dump below; LuaJIT passes `size` readable bytes.
        unsafe { (*out.cast::<Vec<u8>>()).extend_from_slice(std::slice::from_raw_parts(p.cast::<u8>(), size)) };
        0
    }

    let name = CString::new(name).map_err(|e| e.to_string())?;
    // SAFETY: a state of our own, closed before returning; each call leaves at most one value on
    // its stack.
    unsafe {
        let state = ffi::luaL_newstate();
        if state.is_null() {
            return Err("LuaJIT could not create a state".into());
        }
        let result = if ffi::luaL_loadbuffer(state, source.as_ptr().cast::<c_char>(), source.len(), name.as_ptr()) == 0
        {
            let mut out = Vec::<u8>::new();
            ffi::lua_dump(state, append, (&raw mut out).cast::<c_void>(), 0);
            Ok(out)
        } else {
            let mut len = 0;
            let message = ffi::lua_tolstring(state, -1, &mut len);
            Err(String::from_utf8_lossy(std::slice::from_raw_parts(message.cast::<u8>(), len)).into_owned())
        };
        ffi::lua_close(state);
        result
    }
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
