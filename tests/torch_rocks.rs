//! `luarocks make` of Torch rocks into a tree readied by `th --setup-rocks`, offline, with Debian's
//! luarocks and cmake, from the fixture rocks in tests/lua/luarocks/:
//! - torchhello, in the shape of nngraph's and rnn's rocks (a CMake "command" build through
//!   FIND_PACKAGE(Torch) and ADD_TORCH_PACKAGE, a test subpackage, installed assets, dependencies
//!   on torch, nn, tds and moses): it installs, `require` finds it, `luarocks remove` removes it;
//! - torchcmod (C sources in ADD_TORCH_PACKAGE, as image) and thlinked (a plain library linking
//!   TH when Torch is found, as tds): luarocks stops with luatorch's message and installs nothing;
//! - the setup itself: the files and entries it writes, running it twice, its errors.
//!
//! Each test has a HOME of its own, so the user tree (~/.luarocks) and CMake's registry
//! (~/.cmake/packages) are private to it. Without luarocks or cmake the tests print why and pass,
//! except under CI (env `CI` set), which installs them.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{Output, TIMEOUT, lua_dir, run_cmd, run_cmd_group, show, temp_dir, th_path};

/// A CMake configure and build of a few files, with luarocks around it.
const MAKE_TIMEOUT: Duration = Duration::from_secs(180);

fn tools() -> bool {
    common::tools_present(&["luarocks", "cmake", "make"], "apt-get install luarocks cmake")
}

/// A private HOME, whose ~/.luarocks is the tree the tests ready.
struct Home(PathBuf);

impl Home {
    fn new(name: &str) -> Home {
        Home(temp_dir(name))
    }

    fn tree(&self) -> PathBuf {
        self.0.join(".luarocks")
    }

    fn command(&self, program: &Path, cwd: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(cwd)
            .env("HOME", &self.0)
            .env_remove("LUA_PATH")
            .env_remove("LUA_CPATH")
            .env_remove("LUAROCKS_CONFIG");
        cmd
    }

    fn setup(&self, args: &[&str]) -> Output {
        let mut cmd = self.command(&th_path(), &self.0);
        cmd.arg("--setup-rocks").args(args);
        run_cmd(&mut cmd, TIMEOUT)
    }

    /// `luarocks --local make <rockspec>` in a copy of the fixture rock `name`, with no rocks
    /// server to fall back on: every dependency must be met by the tree.
    fn make(&self, name: &str) -> Output {
        let rock = temp_dir(&format!("torch-rock-{name}"));
        copy_dir(&lua_dir().join("luarocks").join(name), &rock);
        let mut cmd = self.command(Path::new("luarocks"), &rock);
        cmd.args(["--only-server=file:///nonexistent", "--local", "make"])
            .arg(format!("{name}-scm-1.rockspec"));
        run_cmd_group(&mut cmd, MAKE_TIMEOUT)
    }

    fn th(&self, code: &str) -> Output {
        let elsewhere = temp_dir("torch-rocks-elsewhere");
        let mut cmd = self.command(&th_path(), &elsewhere);
        cmd.args(["-e", code]);
        run_cmd(&mut cmd, TIMEOUT)
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn ok(out: Output, what: &str) -> Output {
    assert_eq!(out.status, Some(0), "{what}\n{}", show(&out));
    out
}

#[test]
fn a_pure_lua_torch_rock_makes_offline_into_the_readied_tree_and_runs() {
    if !tools() {
        return;
    }
    let home = Home::new("torch-rocks-home");
    let out = ok(home.setup(&["--local"]), "th --setup-rocks --local");
    let tree = home.tree();
    let cmake_dir = tree.join("share/cmake/torch");
    assert!(cmake_dir.join("TorchConfig.cmake").is_file(), "{}", show(&out));
    let entry = std::fs::read_to_string(home.0.join(".cmake/packages/Torch/luatorch")).unwrap();
    assert_eq!(entry.trim_end(), cmake_dir.to_str().unwrap());
    for rock in ["torch", "nn", "nngraph", "tds", "moses", "luaffi"] {
        assert!(
            tree.join("lib/luarocks/rocks-5.1").join(rock).join("scm-1").is_dir(),
            "{rock}: {}",
            show(&out)
        );
    }

    let made = ok(home.make("torchhello"), "luarocks make torchhello");
    assert!(made.stdout.contains("Found Torch7"), "{}", show(&made));
    let lua = tree.join("share/lua/5.1/torchhello");
    for file in ["init.lua", "Doubler.lua", "test/test.lua", "assets/greeting.txt"] {
        assert!(lua.join(file).is_file(), "{file} not installed\n{}", show(&made));
    }
    let out = home.th("require 'torchhello'; require 'torchhello.test.test'
         io.write(torchhello.greeting(), '|', torchhello.count({'a','b','a'}).a, '|',
                  nn.Doubler():forward(torch.Tensor{1, 2}):sum(), '\\n')
         torchhello.test()");
    assert_eq!(out.status, Some(0), "{}", show(&out));
    assert!(
        out.stdout.starts_with("hello from a Torch rock|2|6\n"),
        "{}",
        show(&out)
    );
    assert!(out.stdout.contains("2/2"), "the rock's own tests: {}", show(&out));

    let listed = ok(
        run_cmd(
            home.command(Path::new("luarocks"), &home.0).args(["--local", "list"]),
            TIMEOUT,
        ),
        "luarocks list",
    );
    assert!(listed.stdout.contains("torchhello"), "{}", show(&listed));
    ok(
        run_cmd(
            home.command(Path::new("luarocks"), &home.0)
                .args(["--local", "remove", "torchhello"]),
            TIMEOUT,
        ),
        "luarocks remove torchhello",
    );
    assert!(!lua.exists(), "luarocks remove left {}", lua.display());
}

#[test]
fn c_rocks_stop_with_a_message_and_install_nothing() {
    if !tools() {
        return;
    }
    let home = Home::new("torch-rocks-c-home");
    ok(home.setup(&["--local"]), "th --setup-rocks --local");
    for (rock, asked) in [
        ("torchcmod", "the rock's module 'torchcmod' (init.c)"),
        ("thlinked", "the rock's target 'thlinked', which links TH,"),
    ] {
        let out = home.make(rock);
        assert_ne!(out.status, Some(0), "{rock} built\n{}", show(&out));
        let text = format!("{}{}", out.stdout, out.stderr).replace('\n', " ");
        assert!(text.contains(&format!("luatorch: {asked}")), "{rock}: {}", show(&out));
        assert!(
            text.contains("TH/luaT libraries, which th does not offer yet"),
            "{rock}: {}",
            show(&out)
        );
        assert!(
            !home.tree().join("lib/luarocks/rocks-5.1").join(rock).exists(),
            "{rock} left in the tree"
        );
    }
}

#[test]
fn setup_keeps_what_the_tree_has_and_explains_bad_arguments() {
    if !tools() {
        return;
    }
    let home = Home::new("torch-rocks-again-home");
    let tree = temp_dir("torch-rocks-tree");
    // A rock the user installed under a name th provides stays as it is.
    let spec = tree.join("nn-1.0-0.rockspec");
    std::fs::write(
        &spec,
        "package = 'nn'\nversion = '1.0-0'\nsource = { url = 'file:///dev/null' }\nbuild = { type = 'none' }\n",
    )
    .unwrap();
    let mut cmd = home.command(Path::new("luarocks"), &tree);
    cmd.args(["--tree", tree.to_str().unwrap(), "make", "nn-1.0-0.rockspec"]);
    ok(run_cmd(&mut cmd, TIMEOUT), "luarocks make of the user's nn");
    let out = ok(home.setup(&["--tree", tree.to_str().unwrap()]), "first setup");
    assert!(out.stdout.contains("kept: nn"), "{}", show(&out));
    assert!(!tree.join("lib/luarocks/rocks-5.1/nn/scm-1").exists());
    let again = ok(home.setup(&["--tree", tree.to_str().unwrap()]), "second setup");
    assert!(
        !again.stdout.contains("added"),
        "a second setup adds nothing\n{}",
        show(&again)
    );
    assert!(again.stdout.contains("kept: torch nn"), "{}", show(&again));

    let out = home.setup(&["--tree"]);
    assert_eq!(out.status, Some(1));
    assert!(
        out.stderr
            .contains("th --setup-rocks: option '--tree' needs a directory"),
        "{}",
        show(&out)
    );
    let out = home.setup(&["--global"]);
    assert!(
        out.stderr.contains("unrecognized argument '--global'"),
        "{}",
        show(&out)
    );
    let mut cmd = home.command(&th_path(), &home.0);
    cmd.args(["--setup-rocks", "--tree", tree.join("other").to_str().unwrap()])
        .env("LUAROCKS", "/nonexistent/luarocks");
    let out = run_cmd(&mut cmd, TIMEOUT);
    assert_eq!(out.status, Some(1));
    assert!(
        out.stderr.contains("luarocks ('/nonexistent/luarocks') not found"),
        "{}",
        show(&out)
    );
    let help = ok(home.setup(&["--help"]), "--help");
    assert!(help.stdout.starts_with("Usage: th --setup-rocks"));
}

#[test]
fn without_a_tree_named_th_readies_the_tree_it_was_installed_into() {
    if !tools() {
        return;
    }
    // A th in <tree>/bin, as luarocks installs it (a hard link: th knows itself by the path it
    // was run as).
    let tree = temp_dir("torch-rocks-own-tree");
    std::fs::create_dir_all(tree.join("bin")).unwrap();
    std::fs::create_dir_all(tree.join("lib/luarocks/rocks-5.1")).unwrap();
    let th = tree.join("bin/th");
    if std::fs::hard_link(th_path(), &th).is_err() {
        std::fs::copy(th_path(), &th).unwrap();
    }
    let home = Home::new("torch-rocks-own-home");
    let mut cmd = home.command(&th, &home.0);
    cmd.arg("--setup-rocks");
    let out = ok(run_cmd(&mut cmd, TIMEOUT), "th --setup-rocks from a tree");
    assert!(
        tree.join("share/cmake/torch/TorchConfig.cmake").is_file(),
        "{}",
        show(&out)
    );
    assert!(
        tree.join("lib/luarocks/rocks-5.1/torch/scm-1").is_dir(),
        "{}",
        show(&out)
    );
    assert!(!home.tree().exists(), "the user tree was touched\n{}", show(&out));
}

#[test]
fn another_torch_on_a_path_prefix_is_named_in_a_warning() {
    if !tools() {
        return;
    }
    // An original Torch7 installed into a prefix whose bin is on PATH: CMake's find_package
    // searches it before the user package registry, so the setup says so.
    let foreign = temp_dir("torch-rocks-foreign-prefix");
    let config_dir = foreign.join("share/cmake/torch");
    std::fs::create_dir_all(&config_dir).unwrap();
    std::fs::create_dir_all(foreign.join("bin")).unwrap();
    std::fs::write(config_dir.join("TorchConfig.cmake"), "set(Torch_FOUND TRUE)\n").unwrap();
    let home = Home::new("torch-rocks-foreign-home");
    let path = std::env::join_paths(
        std::iter::once(foreign.join("bin"))
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let mut cmd = home.command(&th_path(), &home.0);
    cmd.env("PATH", path).args(["--setup-rocks", "--local"]);
    let out = ok(
        run_cmd(&mut cmd, TIMEOUT),
        "th --setup-rocks with another Torch on PATH",
    );
    let named = config_dir.join("TorchConfig.cmake");
    assert!(
        out.stderr.contains("warning") && out.stderr.contains(named.to_str().unwrap()),
        "{}",
        show(&out)
    );
    // The tree th readied is not reported as another Torch.
    let again = ok(home.setup(&["--local"]), "th --setup-rocks without it on PATH");
    assert!(!again.stderr.contains("warning"), "{}", show(&again));
}
