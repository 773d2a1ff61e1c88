//! Rock entries for what th already has, so that a rock's `dependencies` on them are met: each is
//! an empty rock (build type "none"), made into the tree by luarocks itself, so that `luarocks
//! list`, `show` and `remove` treat it as any other. Torch7's distro had the same packages in its
//! tree as real rocks.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};

/// Rocks th has built in: (rock name, what it is). `require` finds th's own whatever the tree holds.
const BUILT_IN: &[(&str, &str)] = &[
    ("torch", "tensors, storages, serialization"),
    ("nn", "neural network modules and criteria"),
    ("optim", "optimisation algorithms"),
    ("paths", "file system paths"),
    ("sys", "system utilities"),
    ("xlua", "terminal and argument helpers"),
    ("trepl", "the REPL and its globals"),
    ("dok", "inline documentation"),
    ("threads", "thread pools"),
    ("gnuplot", "plots"),
    ("image", "image I/O and processing"),
    ("nngraph", "graphs of nn modules"),
    ("graph", "graphs and their dot output"),
    ("tds", "Rust-backed hashes and vectors"),
    ("nnx", "nn extensions"),
    ("moses", "functional utilities, 1.x API"),
    ("argcheck", "argument checking"),
    ("class", "classes"),
    ("totem", "test helpers"),
    ("parallel", "processes over ssh and zmq"),
    ("ipc", "torch-ipc"),
    ("cutorch", "CUDA tensors"),
    ("cunn", "CUDA nn"),
    ("cudnn", "cuDNN modules"),
    ("nccl", "NCCL collectives"),
    ("luaffi", "LuaJIT's ffi"),
];

/// Rocks whose modules the system installs (Debian packages th uses): entered only where th can
/// load them. (rock name, module, Debian package)
const SYSTEM: &[(&str, &str, &str)] = &[
    ("luafilesystem", "lfs", "lua-filesystem"),
    ("penlight", "pl.utils", "lua-penlight"),
    ("lua-cjson", "cjson", "lua-cjson"),
    ("md5", "md5", "lua-md5"),
];

const VERSION: &str = "scm-1";

#[derive(Default)]
pub struct Report {
    pub added: Vec<String>,
    pub kept: Vec<String>,
    pub missing: Vec<String>,
}

/// Enters every rock th provides into `tree` that the tree does not hold yet.
pub fn install(tree: &Path) -> Result<Report> {
    let luarocks = std::env::var("LUAROCKS").unwrap_or_else(|_| "luarocks".into());
    let mut report = Report::default();
    let mut wanted: Vec<(&str, String)> = BUILT_IN
        .iter()
        .map(|(name, what)| (*name, format!("{what}, built into th")))
        .collect();
    let loadable = loadable(&SYSTEM.iter().map(|(_, module, _)| *module).collect::<Vec<_>>())?;
    for ((name, module, package), ok) in SYSTEM.iter().zip(loadable) {
        if ok {
            wanted.push((name, format!("module '{module}', from the system ({package})")));
        } else {
            report.missing.push(format!("{name} (apt-get install {package})"));
        }
    }
    let scratch = Scratch::new()?;
    for (name, summary) in wanted {
        if tree.join("lib/luarocks/rocks-5.1").join(name).is_dir() {
            report.kept.push(name.to_string());
            continue;
        }
        let spec = scratch.0.join(format!("{name}-{VERSION}.rockspec"));
        std::fs::write(&spec, rockspec(name, &summary))
            .map_err(|e| Error::io(format!("cannot write {}: {e}", spec.display())))?;
        make(&luarocks, tree, &spec, &scratch.0)?;
        report.added.push(name.to_string());
    }
    Ok(report)
}

fn rockspec(name: &str, summary: &str) -> String {
    let th = std::env::current_exe().map_or_else(|_| "th".into(), |p| p.to_string_lossy().into_owned());
    format!(
        "package = {name:?}\nversion = {VERSION:?}\nsource = {{ url = {url:?} }}\n\
         description = {{\n  summary = {summary:?},\n  detailed = {detailed:?},\n}}\n\
         dependencies = {{}}\nbuild = {{ type = \"none\" }}\n",
        url = format!("file://{th}"),
        detailed = format!(
            "An entry written by `th --setup-rocks` so that rocks depending on {name} install: \
             th has it already, and require finds th's own."
        ),
    )
}

/// `luarocks make` of one empty rock into `tree`, its dependencies left unchecked (they are the
/// other entries).
fn make(luarocks: &str, tree: &Path, spec: &Path, cwd: &Path) -> Result<()> {
    let out = Command::new(luarocks)
        .arg("--lua-version=5.1")
        .arg("--tree")
        .arg(tree)
        .args(["make", "--deps-mode=none"])
        .arg(spec)
        .current_dir(cwd)
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::io(format!(
                "luarocks ('{luarocks}') not found: install it (Debian: apt-get install luarocks) or set LUAROCKS"
            )),
            _ => Error::io(format!("cannot run '{luarocks}': {e}")),
        })?;
    if out.status.success() {
        return Ok(());
    }
    Err(Error::peer(format!(
        "'{luarocks} make' of {} into {} failed ({}):\n{}{}",
        spec.display(),
        tree.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )))
}

/// Which of `modules` th's runtime loads, each in a fresh state as a script would.
fn loadable(modules: &[&str]) -> Result<Vec<bool>> {
    modules
        .iter()
        .map(|module| {
            let lua =
                crate::runtime::new_state().map_err(|e| Error::memory(format!("cannot create a Lua state: {e}")))?;
            let require: mlua::Function = lua.globals().get("require").map_err(|e| Error::io(e.to_string()))?;
            Ok(require.call::<mlua::Value>(*module).is_ok())
        })
        .collect()
}

/// A private folder for the rockspecs, removed however `install` ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch> {
        let dir = std::env::temp_dir().join(format!("luatorch-setup-rocks-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(format!("cannot create {}: {e}", dir.display())))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_rock_is_a_package_of_lua() {
        // Each name is a folder of lua/ (luaffi is LuaJIT's ffi), so the list cannot name a
        // package th lacks.
        let lua_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("lua");
        for (name, _) in BUILT_IN {
            assert!(
                *name == "luaffi" || lua_dir.join(name).is_dir(),
                "{name} is not in lua/"
            );
        }
    }

    #[test]
    fn rockspecs_are_lua_tables_luarocks_reads() {
        let text = rockspec("nn", "neural \"nets\"");
        let lua = mlua::Lua::new();
        lua.load(&text).exec().unwrap();
        let package: String = lua.globals().get("package").unwrap();
        assert_eq!(package, "nn");
        let build: mlua::Table = lua.globals().get("build").unwrap();
        assert_eq!(build.get::<String>("type").unwrap(), "none");
    }
}
