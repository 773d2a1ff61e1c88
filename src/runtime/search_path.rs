//! `package.path` and `package.cpath`: the user's `LUA_PATH`/`LUA_CPATH` first, then the current
//! directory, then the luarocks trees for LuaJIT (user, then system), then Debian's Lua dirs.

use mlua::{Lua, Result, Table};

const LUA_TEMPLATES: &[&str] = &["?.lua", "?/init.lua"];
const C_TEMPLATES: &[&str] = &["?.so"];

/// Trees searched after the current directory, highest priority first.
fn trees() -> Vec<String> {
    let mut trees = Vec::new();
    if let Some(home) = std::env::var_os("HOME") {
        trees.push(format!("{}/.luarocks", home.to_string_lossy()));
    }
    trees.push("/usr/local".to_string());
    trees
}

fn default_path(lua_dir: &str, templates: &[&str], extra_dirs: &[&str]) -> String {
    let mut dirs: Vec<String> = vec![".".to_string()];
    dirs.extend(trees().into_iter().map(|t| format!("{t}/{lua_dir}")));
    dirs.extend(extra_dirs.iter().map(|d| d.to_string()));
    let mut entries = Vec::new();
    for dir in &dirs {
        for t in templates {
            entries.push(if dir == "." {
                format!("./{t}")
            } else {
                format!("{dir}/{t}")
            });
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
    let lua_default = default_path("share/lua/5.1", LUA_TEMPLATES, &["/usr/share/lua/5.1"]);
    let c_default = default_path(
        "lib/lua/5.1",
        C_TEMPLATES,
        &["/usr/lib/x86_64-linux-gnu/lua/5.1", "/usr/lib/lua/5.1"],
    );
    package.set("path", with_env("LUA_PATH", &lua_default))?;
    package.set("cpath", with_env("LUA_CPATH", &c_default))?;
    Ok(())
}
