//! luarocks: rocks/luatorch-scm-1.rockspec built by Debian's `luarocks` into temporary trees
//! (`luarocks make` from this checkout; the `.src.rock` of rocks/pack.sh into a second tree), and
//! then:
//! - the modules under a stock `luajit` with such a tree on its paths: every module as under `th`
//!   (tests/lua/luarocks/transcript.lua), parallel children, ipc.map threads, `.t7` files from one
//!   runtime loaded in the other;
//! - `th` with luarocks trees: the tree it was installed into, the user's, what `luarocks path` says;
//! - `luarocks remove`, which leaves the tree clean;
//! - bad input: no cargo, a failing build, a luarocks for another Lua, PUC Lua 5.1 loading the
//!   modules. luarocks stops with a message saying what is missing and leaves no file in the tree.
//!
//! The rock is built once per run and shared by the tests that need it; its cargo builds go to
//! target/tmp/luarocks-build, kept between runs. Without luarocks or luajit the tests print why and
//! pass, except under CI (env `CI` set), which installs them.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::{Output, TIMEOUT, lua_dir, on_path, run_cmd, run_cmd_group, show, temp_dir, th_path};

/// A rock build compiles the crate twice in release mode (the Lua C module, then `th`), and from
/// nothing it compiles every dependency too.
const BUILD_TIMEOUT: Duration = Duration::from_secs(45 * 60);

const ROCKSPEC: &str = "rocks/luatorch-scm-1.rockspec";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Where rock builds put cargo's output: apart from the target dir `cargo test` holds, and kept
/// between runs so that a rebuild costs only what changed.
fn rock_target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("luarocks-build")
}

/// Whether luarocks, luajit and the Lua 5.1 headers luarocks checks for are here; under CI a
/// missing one is a failure.
fn tools() -> bool {
    let mut missing: Vec<&str> = ["luarocks", "luajit", "lua5.1"]
        .into_iter()
        .filter(|t| !on_path(t))
        .collect();
    if !Path::new("/usr/include/lua5.1/lua.h").exists() {
        missing.push("/usr/include/lua5.1/lua.h");
    }
    if missing.is_empty() {
        return true;
    }
    if std::env::var_os("CI").is_some() {
        panic!(
            "{} missing (.ci/run installs luarocks, luajit and libluajit-5.1-dev)",
            missing.join(", ")
        );
    }
    println!(
        "skipped: {} missing (apt-get install luarocks luajit libluajit-5.1-dev)",
        missing.join(", ")
    );
    false
}

/// `luarocks args` in `cwd` with `env` added, for at most `timeout`.
fn luarocks(cwd: &Path, args: &[&str], env: &[(&str, &str)], timeout: Duration) -> Output {
    let mut cmd = Command::new("luarocks");
    cmd.args(args).current_dir(cwd);
    for (k, v) in env {
        cmd.env(k, v);
    }
    run_cmd_group(&mut cmd, timeout)
}

fn luarocks_ok(cwd: &Path, args: &[&str], env: &[(&str, &str)], timeout: Duration) -> Output {
    let out = luarocks(cwd, args, env, timeout);
    assert_eq!(out.status, Some(0), "luarocks {args:?}\n{}", show(&out));
    out
}

/// A luarocks tree (`--tree DIR`).
struct Tree(PathBuf);

impl Tree {
    fn arg(&self) -> &str {
        self.0.to_str().expect("a UTF-8 temp path")
    }

    fn lua_dir(&self) -> PathBuf {
        self.0.join("share/lua/5.1")
    }

    /// Runs `program args` in `cwd` with the tree on `LUA_PATH`/`LUA_CPATH` (then the defaults),
    /// the way `eval $(luarocks --tree DIR path)` puts it there.
    fn run_with_paths(&self, program: &str, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
        let t = self.arg();
        let mut cmd = Command::new(program);
        cmd.args(args)
            .current_dir(cwd)
            .env(
                "LUA_PATH",
                format!("{t}/share/lua/5.1/?.lua;{t}/share/lua/5.1/?/init.lua;;"),
            )
            .env("LUA_CPATH", format!("{t}/lib/lua/5.1/?.so;;"));
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = run_cmd_group(&mut cmd, TIMEOUT);
        assert!(
            out.status.is_some(),
            "{program} {args:?} did not finish within {TIMEOUT:?}"
        );
        out
    }

    /// The stock `luajit` with this tree on its paths.
    fn luajit(&self, cwd: &Path, args: &[&str]) -> Output {
        self.run_with_paths("luajit", cwd, args, &[])
    }

    /// The `th` luarocks installed into this tree.
    fn th(&self) -> PathBuf {
        self.0.join("bin/th")
    }

    /// Every file under the tree, relative to it, sorted.
    fn files(&self) -> Vec<String> {
        fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, root, out);
                } else {
                    out.push(path.strip_prefix(root).unwrap().to_string_lossy().into_owned());
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.0, &self.0, &mut out);
        out.sort();
        out
    }
}

/// The script ended well: status 0 and `last` as its last line.
fn assert_ends_with(out: &Output, last: &str, what: &str) {
    assert!(
        out.status == Some(0) && out.stdout.ends_with(&format!("{last}\n")),
        "{what}\n{}",
        show(out)
    );
}

static ROCK: OnceLock<Result<PathBuf, String>> = OnceLock::new();

/// The tree `luarocks make` installed this checkout's rock into, built by the first test that
/// asks; None when the tools are missing.
fn rock_tree() -> Option<Tree> {
    if !tools() {
        return None;
    }
    let built = ROCK.get_or_init(|| {
        let tree = temp_dir("luarocks-tree");
        let target = rock_target_dir();
        let start = Instant::now();
        let out = luarocks(
            repo(),
            &["--tree", tree.to_str().unwrap(), "make", ROCKSPEC],
            &[("CARGO_TARGET_DIR", target.to_str().unwrap())],
            BUILD_TIMEOUT,
        );
        println!("luarocks make took {:.1} s", start.elapsed().as_secs_f64());
        if out.status == Some(0) {
            Ok(tree)
        } else {
            Err(format!("luarocks make {ROCKSPEC} failed\n{}", show(&out)))
        }
    });
    match built {
        Ok(tree) => Some(Tree(tree.clone())),
        Err(e) => panic!("{e}"),
    }
}

/// Optional modules the transcript also requires: those this checkout has Lua files for
/// (`lua/<name>/init.lua` or `lua/<name>.lua`). Their outcome, loaded or the error, must match too.
fn optional_modules() -> Vec<&'static str> {
    let lua = repo().join("lua");
    ["cutorch", "nccl"]
        .into_iter()
        .filter(|m| lua.join(m).join("init.lua").exists() || lua.join(format!("{m}.lua")).exists())
        .collect()
}

/// transcript.lua under the tree's `th` and under the stock `luajit`: the same lines.
fn assert_transcripts_match(tree: &Tree) {
    let dir = temp_dir("luarocks-transcript");
    let script = lua_dir().join("luarocks/transcript.lua");
    let mut args = vec![script.to_str().unwrap()];
    args.extend(optional_modules());
    let mut cmd = Command::new(tree.th());
    cmd.args(&args).current_dir(&dir);
    let th = run_cmd(&mut cmd, TIMEOUT);
    assert_ends_with(&th, "done", "transcript.lua under th");
    let luajit = tree.luajit(&dir, &args);
    assert_ends_with(&luajit, "done", "transcript.lua under luajit");
    assert_eq!(
        luajit.stdout, th.stdout,
        "the modules under luajit (left) and under th (right) differ"
    );
}

#[test]
fn make_installs_the_lua_files_the_native_modules_and_th() {
    let Some(tree) = rock_tree() else { return };
    // Every Lua file of lua/, as it is in the checkout (source, not bytecode).
    let mut count = 0;
    let mut stack = vec![repo().join("lua")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "lua") {
                let rel = path.strip_prefix(repo().join("lua")).unwrap();
                let installed = tree.lua_dir().join(rel);
                let same = std::fs::read(&installed).ok() == Some(std::fs::read(&path).unwrap());
                assert!(same, "{} is not installed as {}", rel.display(), installed.display());
                count += 1;
            }
        }
    }
    assert!(count >= 30, "only {count} Lua files under lua/");
    // One shared library, and a Lua file opening each native module from it.
    assert!(tree.0.join("lib/lua/5.1/luatorch/core.so").is_file());
    for (name, _) in luatorch::runtime::NATIVE_MODULES {
        let shim = std::fs::read_to_string(tree.lua_dir().join(format!("{name}.lua")))
            .unwrap_or_else(|e| panic!("no {name}.lua in the tree: {e}"));
        assert!(shim.contains(&format!("open('{name}')")), "{shim}");
    }
    // luarocks knows the rock.
    let out = luarocks_ok(repo(), &["--tree", tree.arg(), "list", "--porcelain"], &[], TIMEOUT);
    assert!(out.stdout.starts_with("luatorch\tscm-1\tinstalled"), "{}", out.stdout);
    // th, a native binary (luarocks copies it without a Lua wrapper), that works.
    let th = std::fs::read(tree.th()).expect("bin/th in the tree");
    assert_eq!(&th[..4], b"\x7fELF", "bin/th is the binary itself");
    // thcluster beside it.
    let thcluster = tree.th().with_file_name("thcluster");
    let out = run_cmd(Command::new(&thcluster).arg("--help"), TIMEOUT);
    assert!(out.stdout.starts_with("Usage: thcluster"), "{}", show(&out));
    let dir = temp_dir("luarocks-th");
    let mut cmd = Command::new(tree.th());
    cmd.args(["-e", "io.write(torch.FloatTensor(3):fill(2):sum(), '\\n')"])
        .current_dir(&dir);
    let out = run_cmd(&mut cmd, TIMEOUT);
    assert_eq!(out.stdout, "6\n", "{}", show(&out));
}

#[test]
fn stock_luajit_loads_every_module_as_th_does() {
    let Some(tree) = rock_tree() else { return };
    assert_transcripts_match(&tree);
    // The modules' Lua files come from the tree, as source.
    let dir = temp_dir("luarocks-origin");
    let out = tree.luajit(
        &dir,
        &[
            "-e",
            "io.write(debug.getinfo(require('paths').dofile, 'S').source, '\\n')",
        ],
    );
    let expected = format!("@{}/share/lua/5.1/paths/init.lua\n", tree.arg());
    assert_eq!(out.stdout, expected, "{}", show(&out));
}

/// Scripts of tests/lua that the th tests run, each under the stock luajit with `options` before
/// it: every one ends with `ok`.
fn scripts_ok_under_luajit(tree: &Tree, options: &[&str], scripts: &[&str]) {
    for script in scripts {
        let mut args = options.to_vec();
        args.push(script);
        let out = tree.luajit(&lua_dir(), &args);
        assert_ends_with(&out, "ok", &format!("luajit {args:?}"));
    }
}

#[test]
fn parallel_parent_in_stock_luajit_forks_exchanges_and_closes() {
    let Some(tree) = rock_tree() else { return };
    // tests/parallel.rs's scripts: values of every kind, 64 MiB tensors through shared memory,
    // close() ending every child (each script checks that the processes are gone).
    scripts_ok_under_luajit(
        &tree,
        &[],
        &[
            "parallel/local_data.lua",
            "parallel/local_big.lua",
            "parallel/local_close.lua",
        ],
    );
}

#[test]
fn ipc_threads_in_stock_luajit() {
    let Some(tree) = rock_tree() else { return };
    // tests/ipc_threads.rs's scripts use th's globals (`torch`): luajit loads trepl first, which
    // sets up th's environment.
    scripts_ok_under_luajit(
        &tree,
        &["-ltrepl"],
        &[
            "ipc/threads_map.lua",
            "ipc/threads_workqueue.lua",
            "ipc/threads_channel.lua",
            "ipc/threads_background.lua",
        ],
    );
}

#[test]
fn map_threads_and_children_search_where_their_parent_does() {
    let Some(tree) = rock_tree() else { return };
    let dir = temp_dir("luarocks-onlyhere");
    std::fs::write(dir.join("onlyhere.lua"), "return 'only here'\n").unwrap();
    let script = lua_dir().join("luarocks/search_paths.lua");
    let args = [script.to_str().unwrap(), dir.to_str().unwrap()];
    let out = tree.luajit(&lua_dir(), &args);
    assert_ends_with(&out, "search paths ok", "search_paths.lua under luajit");
    let mut cmd = Command::new(th_path());
    cmd.args(args).current_dir(lua_dir());
    assert_ends_with(
        &run_cmd(&mut cmd, TIMEOUT),
        "search paths ok",
        "search_paths.lua under th",
    );
}

#[test]
fn tensors_saved_in_one_runtime_load_in_the_other() {
    let Some(tree) = rock_tree() else { return };
    let script = lua_dir().join("luarocks/t7_exchange.lua");
    let script = script.to_str().unwrap();
    let th = |dir: &Path, mode: &str| {
        let mut cmd = Command::new(th_path());
        cmd.args([script, mode, dir.to_str().unwrap()]).current_dir(dir);
        run_cmd(&mut cmd, TIMEOUT)
    };
    let from_luajit = temp_dir("luarocks-t7-luajit");
    let saved = tree.luajit(&from_luajit, &[script, "save", from_luajit.to_str().unwrap()]);
    assert_ends_with(&saved, "save ok", "saving under luajit");
    assert_ends_with(&th(&from_luajit, "check"), "check ok", "loading under th");
    let from_th = temp_dir("luarocks-t7-th");
    assert_ends_with(&th(&from_th, "save"), "save ok", "saving under th");
    let loaded = tree.luajit(&from_th, &[script, "check", from_th.to_str().unwrap()]);
    assert_ends_with(&loaded, "check ok", "loading under luajit");
}

/// A copy of tests/lua/luarocks/hello (a rock with two Lua modules and a C one) in a fresh
/// directory, ready for `luarocks make`.
fn hello_rock(name: &str) -> PathBuf {
    let dir = temp_dir(name);
    let fixture = lua_dir().join("luarocks/hello");
    for file in ["hello-scm-1.rockspec", "hello.lua", "sub.lua"] {
        std::fs::copy(fixture.join(file), dir.join(file)).unwrap();
    }
    std::fs::copy(lua_dir().join("cmodule.c"), dir.join("cmodule.c")).unwrap();
    dir
}

const USE_HELLO: &str = "io.write(require 'hello', '|', require 'hello.sub', '|', require('cmodule').twice(21), '\\n')";
const HELLO_OUTPUT: &str = "hello from a rock|hello.sub from a rock|42\n";

#[test]
fn th_finds_lua_and_c_rocks_in_the_user_tree_and_where_luarocks_path_points() {
    if !tools() {
        return;
    }
    let home = temp_dir("luarocks-home");
    let home_env = [("HOME", home.to_str().unwrap())];
    let rock = hello_rock("luarocks-hello-user");
    luarocks_ok(&rock, &["--local", "make", "hello-scm-1.rockspec"], &home_env, TIMEOUT);
    assert!(home.join(".luarocks/lib/lua/5.1/cmodule.so").is_file());
    let elsewhere = temp_dir("luarocks-elsewhere");
    let th = |code: &str| {
        let mut cmd = Command::new(th_path());
        cmd.args(["-e", code])
            .current_dir(&elsewhere)
            .env("HOME", &home)
            .env_remove("LUA_PATH")
            .env_remove("LUA_CPATH");
        run_cmd(&mut cmd, TIMEOUT)
    };
    let out = th(USE_HELLO);
    assert_eq!(out.stdout, HELLO_OUTPUT, "{}", show(&out));
    // Everything `luarocks path` would add (user and system trees) th searches already.
    let reported = luarocks_ok(&elsewhere, &["path"], &home_env, TIMEOUT).stdout;
    let out = th("io.write(package.path, '\\n', package.cpath, '\\n')");
    let mut ours = out.stdout.lines();
    let (path, cpath) = (ours.next().unwrap_or(""), ours.next().unwrap_or(""));
    for (var, searched) in [("LUA_PATH", path), ("LUA_CPATH", cpath)] {
        let line = reported
            .lines()
            .find(|l| l.starts_with(&format!("export {var}=")))
            .unwrap_or_else(|| panic!("no {var} in luarocks path:\n{reported}"));
        let value = line.split('\'').nth(1).expect("a quoted value");
        for entry in value.split(';').filter(|e| !e.is_empty() && !e.ends_with("loadall.so")) {
            assert!(
                searched.split(';').any(|e| e == entry),
                "th does not search {entry} (from luarocks path's {var}); it searches {searched}"
            );
        }
    }
}

#[test]
fn th_installed_by_luarocks_finds_the_rocks_of_its_own_tree() {
    let Some(tree) = rock_tree() else { return };
    let rock = hello_rock("luarocks-hello-tree");
    luarocks_ok(
        &rock,
        &["--tree", tree.arg(), "make", "hello-scm-1.rockspec"],
        &[],
        TIMEOUT,
    );
    let home = temp_dir("luarocks-empty-home");
    let mut cmd = Command::new(tree.th());
    cmd.args(["-e", USE_HELLO])
        .current_dir(&home)
        .env("HOME", &home)
        .env_remove("LUA_PATH")
        .env_remove("LUA_CPATH");
    let out = run_cmd(&mut cmd, TIMEOUT);
    assert_eq!(out.stdout, HELLO_OUTPUT, "{}", show(&out));
}

#[test]
fn a_src_rock_of_the_checkout_installs_into_a_second_tree_and_removes_cleanly() {
    // After the first build: rock builds share one cargo target dir, one at a time.
    let Some(first) = rock_tree() else { return };
    let dir = temp_dir("luarocks-srcrock");
    let out = run_cmd(Command::new("sh").arg(repo().join("rocks/pack.sh")).arg(&dir), TIMEOUT);
    assert_eq!(out.status, Some(0), "rocks/pack.sh\n{}", show(&out));
    let rock = dir.join("luatorch-scm-1.src.rock");
    assert!(rock.is_file(), "{}", show(&out));
    let tree = Tree(dir.join("tree"));
    let target = rock_target_dir();
    let start = Instant::now();
    luarocks_ok(
        &dir,
        &["--tree", tree.arg(), "install", rock.to_str().unwrap()],
        &[("CARGO_TARGET_DIR", target.to_str().unwrap())],
        BUILD_TIMEOUT,
    );
    println!(
        "luarocks install of the .src.rock took {:.1} s",
        start.elapsed().as_secs_f64()
    );
    // The same files as the first tree, and the same behaviour.
    let installed: Vec<String> = tree
        .files()
        .into_iter()
        .filter(|f| !f.starts_with("lib/luarocks/"))
        .collect();
    let first_files: Vec<String> = first
        .files()
        .into_iter()
        .filter(|f| !f.starts_with("lib/luarocks/") && !f.contains("hello") && !f.contains("cmodule"))
        .collect();
    assert_eq!(installed, first_files);
    assert_transcripts_match(&tree);
    // Removed, the rock leaves nothing but luarocks' (now empty) manifest.
    luarocks_ok(&dir, &["--tree", tree.arg(), "remove", "luatorch"], &[], TIMEOUT);
    assert_eq!(tree.files(), ["lib/luarocks/rocks-5.1/manifest"]);
    let manifest = std::fs::read_to_string(tree.0.join("lib/luarocks/rocks-5.1/manifest")).unwrap();
    assert!(!manifest.contains("luatorch"), "{manifest}");
}

/// `luarocks make` of the rockspec into a fresh tree, which must fail: returns what it printed,
/// after checking that the tree holds no file. `args` go before `make`, `make_args` after it.
fn make_fails(name: &str, args: &[&str], make_args: &[&str], env: &[(&str, &str)]) -> String {
    let tree = Tree(temp_dir(name));
    // Its own cargo target dir: a failed build must not touch the shared one.
    let target = temp_dir(&format!("{name}-target"));
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--tree", tree.arg(), "make"]);
    all.extend(make_args);
    all.push(ROCKSPEC);
    let mut env = env.to_vec();
    env.push(("CARGO_TARGET_DIR", target.to_str().unwrap()));
    let out = luarocks(repo(), &all, &env, TIMEOUT);
    assert_eq!(out.status, Some(1), "luarocks {all:?} should fail\n{}", show(&out));
    assert_eq!(tree.files(), Vec::<String>::new(), "files left in the tree");
    format!("{}{}", out.stdout, out.stderr)
}

/// An executable shell script at `path` running `body`.
fn write_script(path: &Path, body: &str) {
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

#[test]
fn without_cargo_luarocks_stops_and_installs_nothing() {
    if !tools() {
        return;
    }
    let said = make_fails("luarocks-nocargo", &[], &[], &[("CARGO", "/nonexistent/cargo")]);
    assert!(
        said.contains("luatorch: cargo ('/nonexistent/cargo') not found") && said.contains("install Rust"),
        "{said}"
    );
}

#[test]
fn a_failing_build_stops_luarocks_and_installs_nothing() {
    if !tools() {
        return;
    }
    let cargo = temp_dir("luarocks-badcargo").join("cargo");
    write_script(&cargo, "echo 'error: could not compile `luatorch`' >&2\nexit 101");
    let said = make_fails("luarocks-failing", &[], &[], &[("CARGO", cargo.to_str().unwrap())]);
    assert!(
        said.contains("could not compile") && said.contains("luatorch: building the Lua C module failed"),
        "{said}"
    );
}

#[test]
fn a_luarocks_for_another_lua_stops() {
    if !tools() {
        return;
    }
    // A Lua 5.4 prefix: an interpreter that says it is 5.4 and a lua.h that agrees.
    let prefix = temp_dir("luarocks-fake-lua54");
    std::fs::create_dir_all(prefix.join("bin")).unwrap();
    std::fs::create_dir_all(prefix.join("include")).unwrap();
    write_script(
        &prefix.join("bin/lua5.4"),
        "exec lua5.1 -e '_VERSION=\"Lua 5.4\"' \"$@\"",
    );
    std::fs::write(prefix.join("include/lua.h"), "#define LUA_VERSION_NUM 504\n").unwrap();
    let for_54 = ["--lua-version=5.4", "--lua-dir", prefix.to_str().unwrap()];
    // The rockspec's dependency stops it first...
    let said = make_fails("luarocks-lua54", &for_54, &[], &[]);
    assert!(said.contains("lua ~> 5.1"), "{said}");
    // ...and without dependency checks, the build step does.
    let said = make_fails("luarocks-lua54-nodeps", &for_54, &["--deps-mode=none"], &[]);
    assert!(
        said.contains("luatorch: luarocks is set up for Lua 5.4") && said.contains("--lua-version=5.1"),
        "{said}"
    );
}

#[test]
fn puc_lua_says_the_modules_need_luajit() {
    let Some(tree) = rock_tree() else { return };
    let dir = temp_dir("luarocks-puc");
    let out = tree.run_with_paths("lua5.1", &dir, &["-e", "require 'torch'"], &[]);
    assert_eq!(out.status, Some(1), "{}", show(&out));
    assert!(
        out.stderr
            .contains(": luatorch's native modules need LuaJIT 2.1, not Lua 5.1"),
        "{}",
        show(&out)
    );
}
