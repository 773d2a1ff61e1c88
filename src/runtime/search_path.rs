//! `package.path` and `package.cpath`: the user's `LUA_PATH`/`LUA_CPATH` first, then the current
//! directory, then the luarocks trees for LuaJIT (the one `th` is installed in, the user's, the
//! system's), then Debian's Lua dirs. Within a tree, the places `luarocks path` names.

use mlua::{Lua, Result, Table};

const LUA_TEMPLATES: &[&str] = &["?.lua", "?/init.lua"];
const C_TEMPLATES: &[&str] = &["?.so"];

/// Trees searched after the current directory, highest priority first.
fn trees() -> Vec<String> {
    let mut trees = Vec::new();
    if let Some(own) = own_tree() {
        trees.push(own);
    }
    if let Some(home) = std::env::var_os("HOME") {
        trees.push(format!("{}/.luarocks", home.to_string_lossy()));
    }
    trees.push("/usr/local".to_string());
    let mut seen = std::collections::HashSet::new();
    trees.retain(|t| seen.insert(t.clone()));
    trees
}

/// The luarocks tree `th` was installed into (`<tree>/bin/th`), which holds the rocks installed
/// alongside it. A directory without luarocks' rocks directory is no tree (`~/.cargo/bin/th`).
pub fn own_tree() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let tree = exe.parent()?.parent()?;
    tree.join("lib/luarocks")
        .is_dir()
        .then(|| tree.to_string_lossy().into_owned())
}

/// `./` then, for each tree, `<tree>/<dir>/<template>` for each of `tree_dirs`, then `extra_dirs`.
fn default_path(tree_dirs: &[&str], templates: &[&str], extra_dirs: &[&str]) -> String {
    let mut dirs: Vec<String> = vec![".".to_string()];
    for tree in trees() {
        dirs.extend(tree_dirs.iter().map(|d| format!("{tree}/{d}")));
    }
    dirs.extend(extra_dirs.iter().map(|d| d.to_string()));
    let mut entries = Vec::new();
    for dir in &dirs {
        for t in templates {
            entries.push(format!("{dir}/{t}"));
        }
    }
    entries.join(";")
}

/// The variable's entries come first and the defaults after them; a `;;` in the variable marks
/// where the defaults go instead, as in stock Lua.
fn with_env(var: &str, default: &str) -> String {
    match std::env::var(var) {
        Ok(user) if !user.is_empty() => {
            let joined = if user.contains(";;") {
                user.replacen(";;", &format!(";{default};"), 1)
            } else {
                format!("{user};{default}")
            };
            joined
                .split(';')
                .filter(|e| !e.is_empty())
                .collect::<Vec<_>>()
                .join(";")
        }
        _ => default.to_string(),
    }
}

pub fn configure(_lua: &Lua, package: &Table) -> Result<()> {
    // luarocks puts Lua files under share/, C modules under lib/, and lists lib/ for Lua files too.
    let lua_default = default_path(
        &["share/lua/5.1", "lib/lua/5.1"],
        LUA_TEMPLATES,
        &["/usr/share/lua/5.1"],
    );
    let c_default = default_path(
        &["lib/lua/5.1"],
        C_TEMPLATES,
        &["/usr/lib/x86_64-linux-gnu/lua/5.1", "/usr/lib/lua/5.1"],
    );
    package.set("path", with_env("LUA_PATH", &lua_default))?;
    package.set("cpath", with_env("LUA_CPATH", &c_default))?;
    Ok(())
}
