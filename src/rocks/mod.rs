//! `th --setup-rocks`: readies a luarocks tree for Torch rocks, as Torch7's distro readied its own
//! tree. `luarocks make` of a Torch rock then works offline against th:
//! - the rock's CMakeLists.txt finds Torch (`cmake.rs`: TorchConfig.cmake and its macros, and
//!   CMake's user package registry pointing at them);
//! - the rock's dependencies on torch, nn, ... are met (`provided.rs`: an entry in the tree for
//!   every package th has built in, and for the system's Lua modules th loads).
//!
//! What a rock installs lands in the tree's share/lua/5.1 and lib/lua/5.1, which th searches
//! (`runtime::search_path`).

mod cmake;
mod provided;

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
pub const USAGE: &str = "Usage: th --setup-rocks [--local | --tree DIR]

Readies a luarocks tree for `luarocks make` of Torch rocks: writes TorchConfig.cmake into
DIR/share/cmake/torch (registered with CMake for FIND_PACKAGE(Torch)) and adds a rock entry
for each package th has built in (torch, nn, nngraph, tds, ...), so that rocks depending on
them install offline.

  --tree DIR   the tree to ready
  --local      the user's tree, ~/.luarocks (as luarocks --local)

Without either: the tree th was installed into by luarocks, else /usr/local as root, else
~/.luarocks. The luarocks run is $LUAROCKS when set, else luarocks on PATH.
";

/// Which tree to ready.
#[derive(Debug, PartialEq)]
enum Target {
    Default,
    Local,
    Tree(PathBuf),
}

fn parse(args: &[String]) -> Result<Target> {
    let mut target = Target::Default;
    let mut i = 0;
    while i < args.len() {
        let next = match args[i].as_str() {
            "--local" => Target::Local,
            "--tree" => {
                i += 1;
                let dir = args
                    .get(i)
                    .ok_or_else(|| Error::argument("option '--tree' needs a directory"))?;
                Target::Tree(PathBuf::from(dir))
            }
            a if a.starts_with("--tree=") => Target::Tree(PathBuf::from(&a["--tree=".len()..])),
            other => return Err(Error::argument(format!("unrecognized argument '{other}'"))),
        };
        if target != Target::Default {
            return Err(Error::argument("give one of --local and --tree"));
        }
        target = next;
        i += 1;
    }
    Ok(target)
}

fn home() -> Result<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| Error::io("HOME is not set, so there is no user tree (~/.luarocks)"))
}

fn tree_of(target: Target) -> Result<PathBuf> {
    let tree = match target {
        Target::Tree(dir) => dir,
        Target::Local => home()?.join(".luarocks"),
        Target::Default => match crate::runtime::search_path::own_tree() {
            Some(own) => PathBuf::from(own),
            None if nix::unistd::geteuid().is_root() => PathBuf::from("/usr/local"),
            None => home()?.join(".luarocks"),
        },
    };
    // luarocks records absolute paths; a relative --tree is the user's current directory's.
    std::path::absolute(&tree).map_err(|e| Error::io(format!("cannot resolve the tree '{}': {e}", tree.display())))
}

/// Runs `th --setup-rocks` with the arguments after it; the exit status.
pub fn main(args: &[String]) -> u8 {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{USAGE}");
        return 0;
    }
    match parse(args).and_then(tree_of).and_then(|tree| setup(&tree)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("th --setup-rocks: {e}");
            1
        }
    }
}

fn setup(tree: &Path) -> Result<()> {
    let cmake_dir = cmake::install(tree)?;
    println!("TorchConfig.cmake: {}", cmake_dir.display());
    match cmake::register(&cmake_dir)? {
        Some(entry) => println!("registered for FIND_PACKAGE(Torch): {}", entry.display()),
        None => println!("not registered with CMake: HOME is not set (rocks must pass -DTorch_DIR)"),
    }
    for other in cmake::shadowing(&cmake_dir) {
        eprintln!(
            "th --setup-rocks: warning: CMake finds {} (a prefix on PATH) before this tree's \
             TorchConfig.cmake, so rocks made now build against that Torch, not th; move it \
             away, or give cmake -DTorch_DIR={}",
            other.display(),
            cmake_dir.display()
        );
    }
    let report = provided::install(tree)?;
    if !report.added.is_empty() {
        println!(
            "rocks provided by th, added to {}: {}",
            tree.display(),
            report.added.join(" ")
        );
    }
    if !report.kept.is_empty() {
        println!("already in the tree, kept: {}", report.kept.join(" "));
    }
    if !report.missing.is_empty() {
        println!(
            "not provided (th cannot load their modules): {}",
            report.missing.join(" ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn arguments_name_one_tree() {
        assert_eq!(parse(&args(&[])), Ok(Target::Default));
        assert_eq!(parse(&args(&["--local"])), Ok(Target::Local));
        assert_eq!(parse(&args(&["--tree", "/t"])), Ok(Target::Tree("/t".into())));
        assert_eq!(parse(&args(&["--tree=/t"])), Ok(Target::Tree("/t".into())));
        assert!(
            parse(&args(&["--tree"]))
                .unwrap_err()
                .message()
                .contains("needs a directory")
        );
        assert!(
            parse(&args(&["--local", "--tree", "/t"]))
                .unwrap_err()
                .message()
                .contains("one of")
        );
        assert!(parse(&args(&["--bogus"])).unwrap_err().message().contains("'--bogus'"));
    }
}
