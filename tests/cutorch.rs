//! cutorch through the real `th`:
//! - with no usable GPU (forced with CUDA_VISIBLE_DEVICES set to nothing, so it holds on GPU
//!   machines too): `require 'cutorch'` fails saying why and leaves nothing behind, the native
//!   layer's device calls each raise an error naming the call, and .t7 files with device tensors
//!   load as host tensors;
//! - the GPU checks (tests/lua/cuda/run_all.lua) on a mock CUDA driver that runs the kernels on
//!   the CPU (tests/cuda_mock, built here with the system's C++ compiler);
//! - the same checks on a real GPU, skipped (with the reason printed) where there is none;
//! - cunn (tests/lua/cuda/cunn_modules.lua): every nn module and criterion on CudaTensors against the
//!   host, on the mock and on a real GPU;
//! - an ipc.Tree of CudaTensors whose hops go through CUDA IPC, on the mock.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{Output, lua_dir, run_cmd, run_th_in, temp_dir, th_path};

/// The GPU checks take longer than one th run of the other tests: the first use of a device
/// compiles the kernels, and the mock runs every GPU thread on one CPU.
const SUITE_TIMEOUT: Duration = Duration::from_secs(600);

fn cuda_dir() -> PathBuf {
    lua_dir().join("cuda")
}

#[test]
fn without_a_gpu_every_device_call_raises_a_clear_error() {
    let out = run_th_in(&cuda_dir(), &["nogpu.lua"], "", &[("CUDA_VISIBLE_DEVICES", "")]);
    out.assert_ok();
    assert!(out.stdout.ends_with("ok\n"), "{}", out.stdout);
    assert!(!out.stdout.contains("FAIL"), "{}", out.stdout);
}

#[test]
fn cuda_tensor_files_load_as_host_tensors_without_cutorch() {
    // Without `require 'cutorch'` the device classes load as the host ones (as before cutorch).
    let script = r#"
        local m = torch.MemoryFile():binary()
        local function str(s) m:writeInt(#s) m:writeChar(torch.CharStorage():string(s)) end
        m:writeInt(4) m:writeInt(1) str('V 1') str('torch.CudaStorage')
        m:writeLong(2) m:writeFloat(torch.FloatStorage({ 1.5, -2 }))
        local s = torch.deserialize(m:storage():string():sub(1, -2))
        print(torch.type(s), s[1], s[2])
    "#;
    let out = run_th_in(&cuda_dir(), &["-e", script], "", &[("CUDA_VISIBLE_DEVICES", "")]);
    out.assert_ok();
    assert_eq!(out.stdout, "torch.FloatStorage\t1.5\t-2\n");
}

/// Runs tests/lua/cuda/run_all.lua (the checks whose names match `pattern`, if given) with
/// `env`; panics with its output unless every check passed.
fn run_suite(env: &[(&str, &str)], pattern: Option<&str>) -> Output {
    let mut cmd = Command::new(th_path());
    cmd.arg("run_all.lua").args(pattern).current_dir(cuda_dir());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run_cmd(&mut cmd, SUITE_TIMEOUT);
    assert!(
        out.status == Some(0) && !out.stdout.contains("\nFAIL") && !out.stdout.starts_with("FAIL"),
        "GPU checks failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
    out
}

#[test]
fn gpu_checks_on_a_real_gpu() {
    let cache = temp_dir("cutorch-gpu-cache");
    let out = run_suite(&[("LUATORCH_CUDA_CACHE", cache.to_str().unwrap())], None);
    if let Some(why) = out.stdout.strip_prefix("SKIP ") {
        println!("skipped: {}", why.trim());
        return;
    }
    println!("{}", out.stdout);
}

/// Builds the mock driver, cuBLAS and NVRTC (tests/cuda_mock) into `dir`, with a host build of
/// the kernels' source as this th generates it. An error (the reason to skip) when there is no
/// C++ compiler.
fn build_mock(dir: &Path) -> Result<(), String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("cuda_mock");
    let kernels = dir.join("kernels.cu");
    let out = run_th_in(dir, &["-e", "io.write(require('libcutorch')._kernelSource())"], "", &[]);
    out.assert_ok();
    std::fs::write(&kernels, out.stdout).unwrap();
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let compile = |args: &[&std::ffi::OsStr]| -> Result<(), String> {
        let mut cmd = Command::new(&cxx);
        cmd.args(["-fPIC", "-O1", "-w"]).args(args).current_dir(dir);
        let out = run_cmd(&mut cmd, Duration::from_secs(300));
        match out.status {
            Some(0) => Ok(()),
            _ => Err(format!("{cxx} failed:\n{}", out.stderr)),
        }
    };
    if Command::new(&cxx).arg("--version").output().is_err() {
        return Err(format!("no C++ compiler ({cxx})"));
    }
    let shim = src.join("kernel_shim.h");
    compile(&[
        "-c".as_ref(),
        "-include".as_ref(),
        shim.as_os_str(),
        "-x".as_ref(),
        "c++".as_ref(),
        kernels.as_os_str(),
        "-o".as_ref(),
        "kernels.o".as_ref(),
    ])?;
    compile(&[
        "-c".as_ref(),
        src.join("mock_driver.cpp").as_os_str(),
        "-o".as_ref(),
        "driver.o".as_ref(),
    ])?;
    compile(&[
        "-shared".as_ref(),
        "kernels.o".as_ref(),
        "driver.o".as_ref(),
        "-o".as_ref(),
        "libcuda.so.1".as_ref(),
        "-lrt".as_ref(),
    ])?;
    compile(&[
        "-shared".as_ref(),
        src.join("mock_cublas.cpp").as_os_str(),
        "-o".as_ref(),
        "libcublas.so.13".as_ref(),
    ])?;
    compile(&[
        "-shared".as_ref(),
        src.join("mock_nvrtc.cpp").as_os_str(),
        "-o".as_ref(),
        "libnvrtc.so.13".as_ref(),
    ])?;
    // cudarc's loader tries the unversioned names first.
    for (link, target) in [
        ("libcuda.so", "libcuda.so.1"),
        ("libcublas.so", "libcublas.so.13"),
        ("libnvrtc.so", "libnvrtc.so.13"),
    ] {
        let _ = std::fs::remove_file(dir.join(link));
        std::os::unix::fs::symlink(target, dir.join(link)).unwrap();
    }
    Ok(())
}

/// The environment that makes th use the mock built in `dir`.
fn mock_env(dir: &Path) -> Vec<(&'static str, String)> {
    let libs = match std::env::var("LD_LIBRARY_PATH") {
        Ok(old) if !old.is_empty() => format!("{}:{old}", dir.display()),
        _ => dir.display().to_string(),
    };
    vec![
        ("LD_LIBRARY_PATH", libs),
        ("LUATORCH_CUDA_CACHE", dir.join("cache").display().to_string()),
        ("LUATORCH_CUDA_MOCK", "1".into()),
        // The mock driver has no cuDNN: a libcudnn found on this machine must not run on it.
        ("LUATORCH_CUDNN", "0".into()),
        // Only the mock's libraries: nothing found elsewhere may stand in for them.
        ("LUATORCH_CUDA_LIBS", dir.display().to_string()),
        // Two devices, so that the checks across devices run too.
        ("MOCK_CUDA_DEVICES", "2".into()),
        // 1 GiB of device memory, so that filling it (to check that the cache gives way) is cheap.
        ("MOCK_CUDA_MEMORY", (1u64 << 30).to_string()),
    ]
}

#[test]
fn gpu_checks_on_the_mock_driver() {
    let dir = temp_dir("cutorch-mock");
    if let Err(why) = build_mock(&dir) {
        println!("skipped: {why}");
        return;
    }
    let env = mock_env(&dir);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let out = run_suite(&env, None);
    assert!(out.stdout.contains("ok ("), "{}", out.stdout);
    // Each case ran (none skipped).
    assert!(passed(&out) >= 25, "{}", out.stdout);
    // Again without the caching allocator (cutorch's switch): every temporary is then a fresh
    // driver allocation, which the mock fills with ones (NaN, -1), so that a result some
    // operation leaves partly unset shows, where a reused block would hide it.
    let mut uncached = env.clone();
    uncached.push(("THC_CACHING_ALLOCATOR", "0"));
    let again = run_suite(&uncached, None);
    assert_eq!(passed(&again), passed(&out), "{}", again.stdout);
}

/// Runs tests/lua/cuda/cunn_modules.lua with `env`; panics with its output unless every check passed.
fn run_cunn(env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(th_path());
    cmd.arg("cunn_modules.lua").current_dir(cuda_dir());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run_cmd(&mut cmd, SUITE_TIMEOUT);
    assert!(
        out.status == Some(0) && !out.stdout.contains("\nFAIL") && !out.stdout.starts_with("FAIL"),
        "cunn checks failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
    out
}

/// The lines of cunn_modules.lua's report that say what it covered (printed with the test's output).
fn cunn_summary(out: &Output) -> String {
    out.stdout
        .lines()
        .filter(|l| l.starts_with("cunn: ") || l.starts_with("ok ("))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every nn module and criterion on CudaTensors against the host (tests/lua/cuda/cunn_modules.lua), on
/// the mock driver: forward, backward, parameter gradients and updates, getParameters, a
/// criterion kept as a model's field, saving and loading a device model.
#[test]
fn cunn_checks_on_the_mock_driver() {
    let dir = temp_dir("cunn-mock");
    if let Err(why) = build_mock(&dir) {
        println!("skipped: {why}");
        return;
    }
    let env = mock_env(&dir);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let out = run_cunn(&env);
    assert!(out.stdout.contains("\nok ("), "{}", out.stdout);
    println!("{}", cunn_summary(&out));
    // Each class ran (none skipped for want of a GPU); the count is cunn_modules.lua's own.
    let counted = out
        .stdout
        .lines()
        .find_map(|l| {
            l.strip_prefix("cunn: ")?
                .split(" modules and ")
                .next()?
                .parse::<usize>()
                .ok()
        })
        .unwrap_or(0);
    assert!(counted >= 150, "{}", out.stdout);
    assert!(passed(&out) >= 200, "{}", out.stdout);
    // Without the caching allocator too (see gpu_checks_on_the_mock_driver): a kernel that leaves
    // part of a result unset shows.
    let mut uncached = env.clone();
    uncached.push(("THC_CACHING_ALLOCATOR", "0"));
    let again = run_cunn(&uncached);
    assert_eq!(passed(&again), passed(&out), "{}", again.stdout);
}

#[test]
fn cunn_checks_on_a_real_gpu() {
    let cache = temp_dir("cunn-gpu-cache");
    let out = run_cunn(&[("LUATORCH_CUDA_CACHE", cache.to_str().unwrap())]);
    if let Some(why) = out.stdout.strip_prefix("SKIP ") {
        println!("skipped: {}", why.trim());
        return;
    }
    println!("{}", cunn_summary(&out));
}

fn passed(out: &Output) -> usize {
    out.stdout.lines().filter(|l| l.starts_with("PASS ")).count()
}

/// A CUDA tensor to and from a parallel child forked through ssh (another machine for parallel:
/// host memory, no IPC handle), both sides on the mock driver; the remote th is started through
/// a wrapper that sets the mock's environment, since an ssh session starts with a fresh one.
#[test]
fn cuda_tensors_to_a_child_through_ssh_go_through_host_memory() {
    let dir = temp_dir("cutorch-mock-remote");
    if let Err(why) = build_mock(&dir) {
        println!("skipped: {why}");
        return;
    }
    let Some(server) = common::sshd::Sshd::start("cutorch-remote") else {
        return;
    };
    let env = mock_env(&dir);
    let wrapper = dir.join("th-on-mock");
    let exports: String = env.iter().map(|(k, v)| format!("export {k}='{v}'\n")).collect();
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\n{exports}exec '{}' \"$@\"\n", th_path().display()),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut cmd = Command::new(th_path());
    cmd.args(["share_remote.lua", &server.protocol(), wrapper.to_str().unwrap()])
        .current_dir(cuda_dir());
    for (k, v) in &env {
        cmd.env(k, v);
    }
    let out = run_cmd(&mut cmd, SUITE_TIMEOUT);
    assert!(
        out.status == Some(0) && out.stdout.contains("share ok"),
        "share_remote.lua failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
}

/// Device memory on the mock is shared memory; a process killed outright (no exit handlers)
/// must not leave it behind in /dev/shm, as a real driver frees a dead context's memory.
#[test]
fn device_memory_of_a_killed_process_is_not_left_behind() {
    let dir = temp_dir("cutorch-mock-killed");
    if let Err(why) = build_mock(&dir) {
        println!("skipped: {why}");
        return;
    }
    let script = r#"
        require 'cutorch'
        local t = torch.CudaTensor(4096):fill(1)
        local f = assert(io.open('/proc/self/stat'))
        local pid = f:read('*l'):match('^(%d+)')
        f:close()
        print(pid)
        io.stdout:flush()
        os.execute('kill -9 ' .. pid)
    "#;
    let mut cmd = Command::new(th_path());
    cmd.args(["-e", script]).current_dir(&dir);
    for (k, v) in mock_env(&dir) {
        cmd.env(k, v);
    }
    let out = run_cmd(&mut cmd, Duration::from_secs(120));
    let pid = out.stdout.trim();
    assert!(
        !pid.is_empty() && out.status != Some(0),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    let prefix = format!("luatorch-mock-{pid}-");
    let left: Vec<String> = std::fs::read_dir("/dev/shm")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(&prefix))
                .collect()
        })
        .unwrap_or_default();
    assert!(left.is_empty(), "left in /dev/shm: {left:?}");
}

/// Runs tests/lua/cuda/cudnn_modules.lua (cudnn's modules against nn's) with `env`; panics with its
/// output unless every check passed.
fn run_cudnn_checks(env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(th_path());
    cmd.arg("cudnn_modules.lua").current_dir(cuda_dir());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run_cmd(&mut cmd, SUITE_TIMEOUT);
    let skipped = out.status == Some(0) && out.stdout.starts_with("SKIP: ");
    assert!(
        skipped || (out.status == Some(0) && out.stdout.ends_with("ok\n") && !out.stdout.contains("FAIL")),
        "cudnn checks failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
    out
}

/// cudnn on the mock driver: no cuDNN there (the mock's environment turns it off with
/// LUATORCH_CUDNN=0), so every module runs the fallback (nn's code on CudaTensors) and must match
/// nn on the host.
#[test]
fn cudnn_modules_match_nn_on_the_mock_driver() {
    let dir = temp_dir("cutorch-mock-cudnn");
    if let Err(why) = build_mock(&dir) {
        println!("skipped: {why}");
        return;
    }
    let env = mock_env(&dir);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let out = run_cudnn_checks(&env);
    assert!(
        out.stdout
            .contains("cudnn backend: luatorch kernels (LUATORCH_CUDNN=0)"),
        "{}",
        out.stdout
    );
    assert!(passed(&out) >= 17, "{}", out.stdout);
}

/// The same checks where a real GPU is (cuDNN used if a libcudnn loads; skipped elsewhere).
#[test]
fn cudnn_modules_match_nn_on_a_real_gpu() {
    let cache = temp_dir("cutorch-gpu-cudnn-cache");
    let out = run_cudnn_checks(&[("LUATORCH_CUDA_CACHE", cache.to_str().unwrap())]);
    if let Some(why) = out.stdout.strip_prefix("SKIP: ") {
        println!("skipped: {}", why.trim());
        return;
    }
    println!("{}", out.stdout);
}

/// Without a GPU `require 'nnx'` works (it is nn) and `require 'cudnn'` fails as cudnn.torch's
/// did, saying that cutorch has no device, the same way on a second attempt, leaving nothing.
#[test]
fn nnx_loads_and_cudnn_fails_clearly_without_a_gpu() {
    let script = r#"
        require 'nnx'
        assert(nnx.Linear == nn.Linear, 'nnx is nn')
        for attempt = 1, 2 do
            local ok, err = pcall(require, 'cudnn')
            assert(not ok, 'require cudnn succeeded')
            assert(tostring(err):find('cudnn: needs cutorch: cutorch: no CUDA device is available', 1, true), err)
        end
        assert(package.loaded.cudnn == nil and rawget(_G, 'cudnn') == nil, 'cudnn left behind')
        print('ok')
    "#;
    let out = run_th_in(&cuda_dir(), &["-e", script], "", &[("CUDA_VISIBLE_DEVICES", "")]);
    out.assert_ok();
    assert_eq!(out.stdout, "ok\n");
}

/// Runs `script` (with `args`) from `dir` on the mock driver built in `mock` with `devices`
/// devices.
fn run_on_mock(mock: &Path, devices: &str, dir: &Path, script: &str, args: &[&str], timeout: Duration) -> Output {
    let mut cmd = Command::new(th_path());
    cmd.arg(script).args(args).current_dir(dir);
    for (k, v) in mock_env(mock) {
        cmd.env(k, v);
    }
    cmd.env("MOCK_CUDA_DEVICES", devices);
    // No NCCL, even where CI names its library: a real NCCL on the mock driver is not a case.
    cmd.env("LUATORCH_NCCL", mock.join("no-libnccl.so.2"));
    run_cmd(&mut cmd, timeout)
}

/// NCCL 1.x's C interface through LuaJIT's FFI, as Torch7-era scripts use it (nccl.torch's
/// ffi.lua): the 1.x header declared by the script, `ffi.load('libnccl.so.1')` by its bare name,
/// four ranks forked with parallel, all on one GPU (so summed through CUDA IPC: the mock has no
/// NCCL, and NCCL 2.5+ would refuse them anyway). Every collective gives the right values with
/// 1.x's type codes (float is 3), and bad arguments get 1.x's result codes.
#[test]
fn nccl_1x_ffi_scripts_run_unchanged_with_ranks_sharing_a_gpu() {
    let dir = temp_dir("cutorch-mock-nccl1");
    if let Err(why) = build_mock(&dir) {
        println!("skipped: {why}");
        return;
    }
    let nccl = lua_dir().join("nccl");
    let out = run_on_mock(&dir, "1", &nccl, "v1_ffi.lua", &["4"], Duration::from_secs(120));
    assert!(
        out.status == Some(0) && out.stdout.contains("\nok\n") && !out.stdout.contains("FAIL"),
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
    assert!(out.stdout.matches("PASS rank 0").count() >= 17, "{}", out.stdout);
    // C callers only see codes: the reason is on stderr.
    assert!(
        out.stderr.contains("ncclAllReduce: unknown data type 9"),
        "{}",
        out.stderr
    );
}

/// Ranks on two GPUs need NCCL among the GPUs; without it (the mock has none) every rank's
/// ncclCommInitRank fails at once, saying why (no NCCL library), and none is left waiting.
#[test]
fn nccl_1x_ranks_on_two_gpus_without_nccl_fail_without_waiting() {
    let dir = temp_dir("cutorch-mock-nccl1-two");
    if let Err(why) = build_mock(&dir) {
        println!("skipped: {why}");
        return;
    }
    let script = dir.join("two_gpus.lua");
    std::fs::write(
        &script,
        r#"
        require 'cutorch'; require 'parallel'
        local ffi = require 'ffi'
        ffi.cdef [[
            typedef struct ncclComm* ncclComm_t;
            typedef struct { char internal[128]; } ncclUniqueId;
            int ncclGetUniqueId(ncclUniqueId* uniqueId);
            int ncclCommInitRank(ncclComm_t* comm, int ndev, ncclUniqueId commId, int rank);
        ]]
        local C = ffi.load('libnccl.so.1')
        local id = ffi.new('ncclUniqueId')
        assert(C.ncclGetUniqueId(id) == 0)
        local bytes = ffi.string(id.internal, 128)
        local child = parallel.fork()
        child:exec(function()
            require 'cutorch'
            local ffi = require 'ffi'
            ffi.cdef [[
                typedef struct ncclComm* ncclComm_t;
                typedef struct { char internal[128]; } ncclUniqueId;
                int ncclCommInitRank(ncclComm_t* comm, int ndev, ncclUniqueId commId, int rank);
            ]]
            local C = ffi.load('libnccl.so.1')
            local id = ffi.new('ncclUniqueId')
            ffi.copy(id.internal, parallel.parent:receive(), 128)
            cutorch.setDevice(2)
            parallel.parent:send(C.ncclCommInitRank(ffi.new('ncclComm_t[1]'), 2, id, 1))
        end)
        child:send(bytes)
        local mine = C.ncclCommInitRank(ffi.new('ncclComm_t[1]'), 2, id, 0)
        local theirs = child:receive()
        print('results', mine, theirs)
        parallel.close()
        "#,
    )
    .unwrap();
    let out = run_on_mock(&dir, "2", &dir, "two_gpus.lua", &[], Duration::from_secs(60));
    assert!(out.stdout.contains("results\t2\t2"), "{}\n{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("NCCL library"), "{}", out.stderr);
}

/// tests/lua/cuda/tree.lua on nodes 1..=n at once (an ipc.LocalhostTree of device tensors found
/// through `key`), with `env`; panics with every node's output unless each printed `ok`.
fn cuda_tree(n: usize, key: &str, expect: &str, env: &[(&str, String)]) {
    let handles: Vec<_> = (1..=n)
        .map(|node| {
            let mut cmd = Command::new(th_path());
            cmd.args(["tree.lua", &node.to_string(), &n.to_string(), key, expect])
                .current_dir(cuda_dir());
            for (k, v) in env {
                cmd.env(k, v);
            }
            std::thread::spawn(move || run_cmd(&mut cmd, SUITE_TIMEOUT))
        })
        .collect();
    let outs: Vec<Output> = handles
        .into_iter()
        .map(|h| h.join().expect("a node's runner panicked"))
        .collect();
    let ok = outs.iter().all(|o| o.status == Some(0) && o.stdout.ends_with("ok\n"));
    let all: String = outs
        .iter()
        .enumerate()
        .map(|(i, o)| format!("--- node {} (status {:?})\n{}{}", i + 1, o.status, o.stdout, o.stderr))
        .collect();
    assert!(ok, "a tree of {n} device-tensor nodes ({expect}) failed\n{all}");
}

/// An allreduce tree of CudaTensors on one machine (the mock driver, two devices): every hop lends
/// the sender's device memory through CUDA IPC, so no tensor bytes pass through the sockets, on 1,
/// 2, 3 and 5 nodes; with LUATORCH_CUDA_IPC=0 the same sums come through host memory.
#[test]
fn a_tree_of_device_tensors_goes_through_cuda_ipc_on_the_mock_driver() {
    let dir = temp_dir("cutorch-mock-tree");
    if let Err(why) = build_mock(&dir) {
        println!("skipped: {why}");
        return;
    }
    let env = mock_env(&dir);
    for n in [1, 2, 3, 5] {
        cuda_tree(
            n,
            &format!("luatorch-cuda-tree-{}-{n}", std::process::id()),
            "ipc",
            &env,
        );
    }
    let mut host = env.clone();
    host.push(("LUATORCH_CUDA_IPC", "0".into()));
    cuda_tree(
        3,
        &format!("luatorch-cuda-tree-{}-host", std::process::id()),
        "host",
        &host,
    );
}

/// The same tree on a real GPU (skipped, saying why, where cutorch cannot start).
#[test]
fn a_tree_of_device_tensors_goes_through_cuda_ipc_on_a_real_gpu() {
    let cache = temp_dir("cutorch-gpu-tree-cache");
    let probe = run_th_in(&cuda_dir(), &["-e", "require 'cutorch'"], "", &[]);
    if probe.status != Some(0) {
        println!("skipped: cutorch does not start here: {}", probe.stderr.trim());
        return;
    }
    let env = [("LUATORCH_CUDA_CACHE", cache.display().to_string())];
    cuda_tree(3, &format!("luatorch-gpu-tree-{}", std::process::id()), "ipc", &env);
}
