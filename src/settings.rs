//! The one list of `LUATORCH_*` settings: every environment variable th reads to change what it
//! does, with its meaning and default. Code reads a setting through `get` (or the helpers below),
//! never with `std::env::var`, so the list stays complete; Lua code reads them through
//! `require('libsettings').get(name)`. README's "Settings" table is this list.

use std::ffi::OsString;

/// One setting: its variable, what it does, and what happens when it is not set.
pub struct Setting {
    pub name: &'static str,
    pub meaning: &'static str,
    pub default: &'static str,
}

pub const PARALLEL_FAST: &str = "LUATORCH_PARALLEL_FAST";
pub const IPC_SECRET: &str = "LUATORCH_IPC_SECRET";
pub const CLUSTER_DIR: &str = "LUATORCH_CLUSTER_DIR";
pub const TREE_ALGO: &str = "LUATORCH_TREE_ALGO";
pub const TREE_NET: &str = "LUATORCH_TREE_NET";
pub const TREE_NET_SPIN_US: &str = "LUATORCH_TREE_NET_SPIN_US";
pub const TREE_SHM: &str = "LUATORCH_TREE_SHM";
pub const SHM_SPIN_US: &str = "LUATORCH_SHM_SPIN_US";
pub const SHM_YIELD_US: &str = "LUATORCH_SHM_YIELD_US";
pub const SHM_SPREAD: &str = "LUATORCH_SHM_SPREAD";
pub const CUDA_LIBS: &str = "LUATORCH_CUDA_LIBS";
pub const CUDA_CACHE: &str = "LUATORCH_CUDA_CACHE";
pub const CUDA_IPC: &str = "LUATORCH_CUDA_IPC";
pub const CUDA_VERBOSE: &str = "LUATORCH_CUDA_VERBOSE";
pub const CUDNN: &str = "LUATORCH_CUDNN";
pub const CUDNN_VERBOSE: &str = "LUATORCH_CUDNN_VERBOSE";
pub const NCCL: &str = "LUATORCH_NCCL";
pub const NCCL_TIMEOUT: &str = "LUATORCH_NCCL_TIMEOUT";

pub const SETTINGS: &[Setting] = &[
    Setting {
        name: PARALLEL_FAST,
        meaning: "`0`: parallel's local children talk over ZeroMQ, as remote ones do, instead of a socket pair each",
        default: "a socket pair per local child",
    },
    Setting {
        name: IPC_SECRET,
        meaning: "the secret every ipc, parallel and cluster peer proves before anything else passes",
        default: "`~/.luatorch/ipc_secret`, made (mode 0600) on first use",
    },
    Setting {
        name: CLUSTER_DIR,
        meaning: "the folder of thcluster's connection files",
        default: "`~/.luatorch/cluster`",
    },
    Setting {
        name: TREE_ALGO,
        meaning: "`ring` or `tree`: the socket allreduce's algorithm between machines",
        default: "the ring for leaves of at least RING_SEGMENT bytes per node, else the pipelined tree",
    },
    Setting {
        name: TREE_NET,
        meaning: "`0`: ipc.Tree's allreduce goes hop by hop over its message sockets (torch-ipc's way)",
        default: "the socket allreduce (ipc.treenet) between machines",
    },
    Setting {
        name: TREE_NET_SPIN_US,
        meaning: "microseconds the socket allreduce asks again before it sleeps in poll",
        default: "50",
    },
    Setting {
        name: TREE_SHM,
        meaning: "`0`: ipc.Tree's ranks on one machine do not sum in shared memory",
        default: "ranks on one machine sum in shared memory",
    },
    Setting {
        name: SHM_SPIN_US,
        meaning: "microseconds a shared-memory allreduce wait spins before it yields",
        default: "chosen from the number of ranks and CPUs",
    },
    Setting {
        name: SHM_YIELD_US,
        meaning: "microseconds a shared-memory allreduce wait yields before it sleeps",
        default: "chosen from the number of ranks and CPUs",
    },
    Setting {
        name: SHM_SPREAD,
        meaning: "`0`: a shared-memory allreduce rank that keeps finding a lower rank on its CPU stays there",
        default: "it moves to another CPU, where every rank can have one",
    },
    Setting {
        name: CUDA_LIBS,
        meaning: "colon-separated folders searched first for cuBLAS and NVRTC",
        default: "the CUDA toolkit, then pip's nvidia-* wheels",
    },
    Setting {
        name: CUDA_CACHE,
        meaning: "the folder of compiled CUDA kernels (and NCCL 1.x's shim)",
        default: "`$XDG_CACHE_HOME/luatorch`, else `~/.cache/luatorch`",
    },
    Setting {
        name: CUDA_IPC,
        meaning: "`0`: device tensors between processes of one machine travel through host memory",
        default: "CUDA IPC loans",
    },
    Setting {
        name: CUDA_VERBOSE,
        meaning: "`1`: cutorch says at load whether an MPS daemon serves this process",
        default: "silent",
    },
    Setting {
        name: CUDNN,
        meaning: "`0`: cudnn's modules run on th's own kernels instead of libcudnn",
        default: "libcudnn where one loads and runs",
    },
    Setting {
        name: CUDNN_VERBOSE,
        meaning: "`1`: cudnn says at load which backend it uses",
        default: "silent",
    },
    Setting {
        name: NCCL,
        meaning: "the path of libnccl.so.2",
        default: "the loader's path, then pip's nvidia-nccl wheels",
    },
    Setting {
        name: NCCL_TIMEOUT,
        meaning: "seconds an NCCL call waits for the other ranks before it gives up",
        default: "300",
    },
];

/// Whether `name` is one of the settings.
pub fn is_setting(name: &str) -> bool {
    SETTINGS.iter().any(|s| s.name == name)
}

/// The value of setting `name`, None when unset or empty.
pub fn get(name: &str) -> Option<OsString> {
    debug_assert!(is_setting(name), "settings::get: {name} is not in SETTINGS");
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// The value as text (None when unset, empty or not UTF-8).
pub fn text(name: &str) -> Option<String> {
    get(name).and_then(|v| v.into_string().ok())
}

/// Whether the setting is `0`: the settings that turn a path off.
pub fn is_off(name: &str) -> bool {
    get(name).is_some_and(|v| v == "0")
}

/// The value parsed as a number (None when unset or not a number).
pub fn number<T: std::str::FromStr>(name: &str) -> Option<T> {
    text(name).and_then(|v| v.trim().parse().ok())
}

/// The folder for compiled CUDA code: the setting, else `$XDG_CACHE_HOME/luatorch`, else
/// `~/.cache/luatorch`.
pub fn cuda_cache_dir() -> Option<std::path::PathBuf> {
    use std::path::{Path, PathBuf};
    get(CUDA_CACHE)
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| Path::new(&d).join("luatorch")))
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/luatorch")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_is_listed_once_and_described() {
        let mut names: Vec<&str> = SETTINGS.iter().map(|s| s.name).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "a setting is listed twice");
        for s in SETTINGS {
            assert!(s.name.starts_with("LUATORCH_"), "{}", s.name);
            assert!(!s.meaning.is_empty() && !s.default.is_empty(), "{}", s.name);
        }
    }

    #[test]
    fn the_readme_table_is_this_list() {
        let readme = include_str!("../README.md");
        let section = readme
            .split("## Settings")
            .nth(1)
            .expect("README has a Settings section");
        let section = section.split("\n## ").next().unwrap_or(section);
        for s in SETTINGS {
            let row = format!("| `{}` | {} | {} |", s.name, s.meaning, s.default);
            assert!(
                section.contains(&row),
                "README's Settings table lacks or differs on: {row}"
            );
        }
        let rows = section.lines().filter(|l| l.starts_with("| `LUATORCH_")).count();
        assert_eq!(rows, SETTINGS.len(), "README's Settings table lists other variables");
    }
}
