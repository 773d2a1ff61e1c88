//! Finding and loading the NCCL library at run time, and the handful of its C functions we call
//! (the bottom of `nccl`, beside `cuda::libraries`).
//!
//! NCCL is found under the names it really ships with: its soname `libnccl.so.2` (distribution
//! packages, the pip wheel `nvidia-nccl-cu*`), `libnccl.so` (a development symlink), and the pip
//! layout `<site-packages>/nvidia/nccl/lib/libnccl.so.2`, which is on no library path. `LUATORCH_NCCL`
//! names the file outright. The library is loaded once per process and never unloaded: NCCL keeps
//! threads running that would crash on unmapped code.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use libloading::Library;

use crate::error::{Error, Result};

/// The environment variable that names the NCCL library file; when set, nothing else is tried.
pub const ENV: &str = crate::settings::NCCL;
/// NCCL's soname, then the unversioned development name.
const SONAMES: [&str; 2] = ["libnccl.so.2", "libnccl.so"];
/// Where the pip wheel puts the library, relative to a site-packages directory.
const PIP_LIB: &str = "nvidia/nccl/lib/libnccl.so.2";
/// Bound on asking python3 where `nvidia.nccl` is (the last place searched).
const PYTHON_TIMEOUT: Duration = Duration::from_secs(10);

pub type NcclResult = c_int;
pub type Comm = *mut c_void;
pub type Stream = *mut c_void;

pub const SUCCESS: NcclResult = 0;
pub const INVALID_USAGE: NcclResult = 5;
pub const IN_PROGRESS: NcclResult = 7;

pub const UNIQUE_ID_BYTES: usize = 128;

/// `ncclUniqueId`: 128 opaque bytes, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct UniqueId {
    pub internal: [c_char; UNIQUE_ID_BYTES],
}

/// The leading fields of `ncclConfig_t` (NCCL 2.17 and later, up to `trafficClass`, so that no
/// padding is left undefined). NCCL copies only `size` bytes of the struct it is given, keeps its
/// defaults for the rest, and ignores fields newer than `version`, so this prefix is valid for
/// every version since.
#[repr(C)]
pub struct Config {
    size: usize,
    magic: u32,
    version: u32,
    blocking: c_int,
    cga_cluster_size: c_int,
    min_ctas: c_int,
    max_ctas: c_int,
    net_name: *const c_char,
    split_share: c_int,
    traffic_class: c_int,
}

/// NCCL_CONFIG_UNDEF_INT: "let NCCL decide".
const UNDEF: c_int = c_int::MIN;

// The size NCCL sees: no padding bytes at the end.
const _: () = assert!(std::mem::size_of::<Config>() == 48);

impl Config {
    /// A configuration that only asks for a non-blocking communicator: calls return at once
    /// (`ncclInProgress`) and we poll with a deadline, so a missing peer cannot hang us.
    pub fn non_blocking() -> Config {
        Config {
            size: std::mem::size_of::<Config>(),
            magic: 0xcafe_beef,
            version: 21700,
            blocking: 0,
            cga_cluster_size: UNDEF,
            min_ctas: UNDEF,
            max_ctas: UNDEF,
            net_name: std::ptr::null(),
            split_share: UNDEF,
            traffic_class: UNDEF,
        }
    }
}

/// The NCCL functions we use, resolved once.
pub struct Nccl {
    /// The file or name that was loaded.
    pub source: String,
    pub get_version: unsafe extern "C" fn(*mut c_int) -> NcclResult,
    pub get_unique_id: unsafe extern "C" fn(*mut UniqueId) -> NcclResult,
    pub comm_init_rank_config: unsafe extern "C" fn(*mut Comm, c_int, UniqueId, c_int, *mut Config) -> NcclResult,
    pub comm_init_all: unsafe extern "C" fn(*mut Comm, c_int, *const c_int) -> NcclResult,
    pub comm_finalize: unsafe extern "C" fn(Comm) -> NcclResult,
    pub comm_destroy: unsafe extern "C" fn(Comm) -> NcclResult,
    pub comm_abort: unsafe extern "C" fn(Comm) -> NcclResult,
    pub comm_get_async_error: unsafe extern "C" fn(Comm, *mut NcclResult) -> NcclResult,
    pub comm_count: unsafe extern "C" fn(Comm, *mut c_int) -> NcclResult,
    pub comm_user_rank: unsafe extern "C" fn(Comm, *mut c_int) -> NcclResult,
    pub comm_cu_device: unsafe extern "C" fn(Comm, *mut c_int) -> NcclResult,
    pub get_error_string: unsafe extern "C" fn(NcclResult) -> *const c_char,
    pub get_last_error: unsafe extern "C" fn(Comm) -> *const c_char,
    pub group_start: unsafe extern "C" fn() -> NcclResult,
    pub group_end: unsafe extern "C" fn() -> NcclResult,
    #[allow(clippy::type_complexity)]
    pub all_reduce: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, Comm, Stream) -> NcclResult,
    #[allow(clippy::type_complexity)]
    pub reduce:
        unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, c_int, Comm, Stream) -> NcclResult,
    #[allow(clippy::type_complexity)]
    pub broadcast: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, Comm, Stream) -> NcclResult,
    #[allow(clippy::type_complexity)]
    pub all_gather: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, Comm, Stream) -> NcclResult,
    #[allow(clippy::type_complexity)]
    pub reduce_scatter:
        unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, Comm, Stream) -> NcclResult,
    /// Keeps the code above mapped; never dropped (the value lives in a static).
    _library: Library,
}

/// The process's NCCL, loaded on first use; the error says everything that was tried.
pub fn nccl() -> Result<&'static Nccl> {
    static NCCL: OnceLock<Result<Nccl>> = OnceLock::new();
    NCCL.get_or_init(load).as_ref().map_err(Clone::clone)
}

fn load() -> Result<Nccl> {
    if let Some(path) = crate::settings::get(ENV) {
        let path = PathBuf::from(path);
        return open(&path.to_string_lossy())
            .map_err(|e| e.context(format!("cannot load the NCCL library {ENV}={}", path.display())));
    }
    let mut tried = vec![format!("{ENV} (not set)")];
    for name in SONAMES {
        match open(name) {
            Ok(n) => return Ok(n),
            Err(e) => tried.push(format!("{name} ({e})")),
        }
    }
    let dirs = site_packages();
    for dir in &dirs {
        let file = dir.join(PIP_LIB);
        if file.is_file() {
            match open(&file.to_string_lossy()) {
                Ok(n) => return Ok(n),
                Err(e) => tried.push(format!("{} ({e})", file.display())),
            }
        }
    }
    tried.push(if dirs.is_empty() {
        format!("{PIP_LIB} under site-packages (no site-packages directory found)")
    } else {
        let list: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        format!("{PIP_LIB} under {}", list.join(", "))
    });
    match python_nccl_dirs() {
        Ok(found) => {
            for file in found {
                match open(&file.to_string_lossy()) {
                    Ok(n) => return Ok(n),
                    Err(e) => tried.push(format!("{} ({e})", file.display())),
                }
            }
        }
        Err(e) => tried.push(format!("python3's nvidia.nccl ({e})")),
    }
    Err(Error::device(format!(
        "the NCCL library was not found; tried: {}. Install NCCL (the libnccl2 package, or \
         `pip install nvidia-nccl-cu13`) or set {ENV} to the path of libnccl.so.2",
        tried.join("; ")
    )))
}

/// Loads `name` (a path or a name for the dynamic loader) and resolves every function we use; the
/// error says why not.
fn open(name: &str) -> Result<Nccl> {
    // SAFETY: loading NCCL runs its initialisers, which only set up NCCL's own state.
    let library = unsafe { Library::new(name) }.map_err(|e| dl_error(&e))?;
    macro_rules! sym {
        ($symbol:literal) => {
            // SAFETY: the types above are NCCL's published prototypes (nccl.h) for these symbols.
            *unsafe { library.get(concat!($symbol, "\0").as_bytes()) }.map_err(|_| {
                Error::device(format!(
                    "no {} in it: not NCCL, or an NCCL older than 2.17",
                    $symbol
                ))
            })?
        };
    }
    Ok(Nccl {
        source: name.to_string(),
        get_version: sym!("ncclGetVersion"),
        get_unique_id: sym!("ncclGetUniqueId"),
        comm_init_rank_config: sym!("ncclCommInitRankConfig"),
        comm_init_all: sym!("ncclCommInitAll"),
        comm_finalize: sym!("ncclCommFinalize"),
        comm_destroy: sym!("ncclCommDestroy"),
        comm_abort: sym!("ncclCommAbort"),
        comm_get_async_error: sym!("ncclCommGetAsyncError"),
        comm_count: sym!("ncclCommCount"),
        comm_user_rank: sym!("ncclCommUserRank"),
        comm_cu_device: sym!("ncclCommCuDevice"),
        get_error_string: sym!("ncclGetErrorString"),
        get_last_error: sym!("ncclGetLastError"),
        group_start: sym!("ncclGroupStart"),
        group_end: sym!("ncclGroupEnd"),
        all_reduce: sym!("ncclAllReduce"),
        reduce: sym!("ncclReduce"),
        broadcast: sym!("ncclBroadcast"),
        all_gather: sym!("ncclAllGather"),
        reduce_scatter: sym!("ncclReduceScatter"),
        _library: library,
    })
}

/// libloading's error with the loader's own message ("dlopen failed: <dlerror>").
fn dl_error(e: &libloading::Error) -> Error {
    use std::error::Error as _;
    Error::device(match e.source() {
        Some(source) => source.to_string(),
        None => e.to_string(),
    })
}

/// The site-packages directories that exist, in a fixed order: the active virtual environment and
/// conda environment first, then the user's, then the system's (newest Python first in each).
fn site_packages() -> Vec<PathBuf> {
    let mut prefixes: Vec<(PathBuf, &[&str])> = Vec::new();
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(p) = std::env::var_os(var).filter(|p| !p.is_empty()) {
            prefixes.push((PathBuf::from(p).join("lib"), &["site-packages"]));
        }
    }
    if let Some(home) = std::env::var_os("HOME").filter(|p| !p.is_empty()) {
        prefixes.push((PathBuf::from(home).join(".local/lib"), &["site-packages"]));
    }
    prefixes.push((PathBuf::from("/usr/local/lib"), &["dist-packages", "site-packages"]));
    prefixes.push((PathBuf::from("/usr/lib"), &["dist-packages", "site-packages"]));
    prefixes.push((PathBuf::from("/usr/lib64"), &["site-packages"]));

    let mut dirs = Vec::new();
    for (lib, leaves) in prefixes {
        for python in python_dirs(&lib) {
            for leaf in leaves {
                let dir = python.join(leaf);
                if dir.is_dir() && !dirs.contains(&dir) {
                    dirs.push(dir);
                }
            }
        }
    }
    dirs
}

/// `<lib>/python3*` directories, newest version first (`python3` itself, Debian's, last).
fn python_dirs(lib: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(lib) else {
        return Vec::new();
    };
    let mut found: Vec<(u32, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let rest = name.strip_prefix("python3")?;
            let minor = match rest.strip_prefix('.') {
                Some(m) => m.parse().ok()?,
                None if rest.is_empty() => 0,
                None => return None,
            };
            Some((minor, e.path()))
        })
        .collect();
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    found.into_iter().map(|(_, p)| p).collect()
}

/// Asks `python3` where the `nvidia.nccl` package is (any environment it knows of), within
/// PYTHON_TIMEOUT; returns the library files that exist there.
fn python_nccl_dirs() -> Result<Vec<PathBuf>> {
    const SCRIPT: &str = "import nvidia.nccl\nfor p in nvidia.nccl.__path__: print(p)";
    let mut child = Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| Error::io(format!("cannot run python3: {e}")))?;
    let deadline = Instant::now() + PYTHON_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Error::io(format!(
                    "python3 did not answer within {} s",
                    PYTHON_TIMEOUT.as_secs()
                )));
            }
            Err(e) => return Err(Error::io(format!("waiting for python3: {e}"))),
        }
    };
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        use std::io::Read;
        let _ = stdout.read_to_string(&mut out);
    }
    if !status.success() {
        return Err(Error::device("not installed"));
    }
    let files: Vec<PathBuf> = out
        .lines()
        .map(|dir| Path::new(dir.trim()).join("lib/libnccl.so.2"))
        .filter(|f| f.is_file())
        .collect();
    if files.is_empty() {
        return Err(Error::device("installed, but without lib/libnccl.so.2"));
    }
    Ok(files)
}

impl Nccl {
    /// NCCL's name for a result code ("invalid usage", ...).
    pub fn error_string(&self, code: NcclResult) -> String {
        // SAFETY: ncclGetErrorString returns a static string (or NULL) for any code.
        let p = unsafe { (self.get_error_string)(code) };
        if p.is_null() {
            format!("NCCL error {code}")
        } else {
            // SAFETY: a NUL-terminated string owned by NCCL.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    }

    /// NCCL's message about the last error on `comm` (or in the process for a null comm).
    pub(super) fn last_error(&self, comm: Comm) -> String {
        // SAFETY: comm is null or a live communicator; the result is NULL or a NUL-terminated
        // string owned by NCCL.
        let p = unsafe { (self.get_last_error)(comm) };
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: as above.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().trim().to_string()
        }
    }

    /// The version code: major*10000 + minor*100 + patch (2.28.9 is 22809).
    pub fn version(&self) -> Result<i32> {
        let mut v: c_int = 0;
        // SAFETY: writes one int.
        let rc = unsafe { (self.get_version)(&mut v) };
        if rc != SUCCESS {
            return Err(Error::device(format!(
                "ncclGetVersion failed: {}",
                self.error_string(rc)
            )));
        }
        Ok(v)
    }

    /// "2.28.9" from the version code.
    pub fn version_string(&self) -> String {
        match self.version() {
            Ok(v) => format!("{}.{}.{}", v / 10000, v / 100 % 100, v % 100),
            Err(_) => "unknown".to_string(),
        }
    }

    /// A fresh unique id (works without a GPU).
    pub fn unique_id(&self) -> Result<[u8; UNIQUE_ID_BYTES]> {
        let mut id = UniqueId {
            internal: [0; UNIQUE_ID_BYTES],
        };
        // SAFETY: writes the 128-byte id.
        let rc = unsafe { (self.get_unique_id)(&mut id) };
        if rc != SUCCESS {
            let detail = self.last_error(std::ptr::null_mut());
            return Err(Error::device(format!(
                "ncclGetUniqueId failed: {} {detail}",
                self.error_string(rc)
            )));
        }
        Ok(id.internal.map(|c| c as u8))
    }
}
