//! The kernels layer, on top of the devices: compiling the program of `source` (NVRTC, once per
//! device, on first use; kept in the device's slot), launching its kernels, and the `Geo` in which
//! they take a tensor's geometry.
//!
//! The program is compiled to a CUBIN for the device's own architecture (`sm_XY`), which loads on
//! any driver that supports the device even when NVRTC is newer than the driver; when NVRTC
//! cannot make one (an architecture newer than it knows), it falls back to PTX for `compute_XY`,
//! which the driver compiles.

pub mod source;

use std::collections::HashMap;
use std::ffi::{CString, c_void};
use std::sync::Mutex;

use cudarc::driver::result as cu;
use cudarc::driver::sys;
use cudarc::nvrtc::result as rtc;
use cudarc::nvrtc::sys as rtc_sys;

use super::device::Device;
use super::driver::{self, guard};
use super::libraries::{self, Lib};
use crate::error::{Error, Result};
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::strided::Geometry;
pub use source::{BLOCK, MAX_DIMS};

/// What NVRTC is asked to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Machine code for `sm_XY`.
    Cubin,
    /// PTX for `compute_XY`.
    Ptx,
}

/// Compiles `src` for compute capability `arch`; the error holds NVRTC's log.
pub fn compile(src: &str, arch: (i32, i32), target: Target) -> Result<Vec<u8>> {
    libraries::ensure(Lib::Nvrtc)?;
    let csrc = CString::new(src).map_err(|_| Error::device("kernel source holds a NUL byte"))?;
    let arch_opt = match target {
        Target::Cubin => format!("--gpu-architecture=sm_{}{}", arch.0, arch.1),
        Target::Ptx => format!("--gpu-architecture=compute_{}{}", arch.0, arch.1),
    };
    let options = [arch_opt, "--std=c++14".to_string()];
    // NVRTC's errors in words (its result codes' names).
    let nvrtc = |e: &dyn std::fmt::Debug| Error::device(format!("{e:?}"));
    guard("NVRTC", || {
        let prog = rtc::create_program(&csrc, Some(c"luatorch_kernels.cu")).map_err(|e| nvrtc(&e))?;
        // SAFETY: `prog` is a live program until destroyed at the end of this block.
        let result = unsafe {
            match rtc::compile_program(prog, &options) {
                Err(e) => {
                    let log = rtc::get_program_log(prog)
                        .map(|l| {
                            let bytes: Vec<u8> = l.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
                            String::from_utf8_lossy(&bytes).into_owned()
                        })
                        .unwrap_or_default();
                    Err(Error::device(format!(
                        "compiling the kernels ({}) failed: {e:?}\n{log}",
                        options[0]
                    )))
                }
                Ok(()) => match target {
                    Target::Ptx => rtc::get_ptx(prog)
                        .map(|p| p.iter().map(|&c| c as u8).collect())
                        .map_err(|e| nvrtc(&e)),
                    Target::Cubin => {
                        let mut size = 0usize;
                        rtc_sys::nvrtcGetCUBINSize(prog, &mut size)
                            .result()
                            .map_err(|e| nvrtc(&e))?;
                        let mut out = vec![0u8; size];
                        rtc_sys::nvrtcGetCUBIN(prog, out.as_mut_ptr().cast())
                            .result()
                            .map(|()| out)
                            .map_err(|e| nvrtc(&e))
                    }
                },
            }
        };
        // SAFETY: destroyed once, after its last use.
        let _ = unsafe { rtc::destroy_program(prog) };
        result
    })
}

/// The loaded program of one device and the functions looked up in it so far.
pub struct Module {
    module: usize,
    functions: Mutex<HashMap<String, usize>>,
    /// Per kernel, the blocks the device runs at once (see `wave`).
    waves: Mutex<HashMap<String, u32>>,
}

// SAFETY: a CUmodule and its CUfunctions are process-wide driver handles, usable from any thread
// with the context current; the map is behind a mutex.
unsafe impl Send for Module {}
unsafe impl Sync for Module {}

fn build(dev: &Device) -> Result<Module> {
    let src = source::program();
    let load = |image: &[u8]| -> Result<usize> {
        dev.bind()?;
        guard("cuModuleLoadData", || {
            // SAFETY: a complete CUBIN, or PTX text ending in NUL.
            unsafe { cu::module::load_data(image.as_ptr().cast()) }
                .map(|m| m as usize)
                .map_err(driver::error)
        })
    };
    let cached = cache_path(&src, dev.arch);
    if let Some(image) = cached.as_ref().and_then(|p| std::fs::read(p).ok()) {
        match load(&image) {
            Ok(module) => {
                return Ok(Module {
                    module,
                    functions: Mutex::new(HashMap::new()),
                    waves: Mutex::new(HashMap::new()),
                });
            }
            // A damaged or foreign file: made again below.
            Err(_) => {
                let _ = cached.as_ref().map(std::fs::remove_file);
            }
        }
    }
    let cubin = compile(&src, dev.arch, Target::Cubin).and_then(|image| {
        let module = load(&image)?;
        if let Some(path) = &cached {
            store(path, &image);
        }
        Ok(module)
    });
    let module = match cubin {
        Ok(m) => m,
        Err(first) => {
            let mut ptx = compile(&src, dev.arch, Target::Ptx).map_err(|e| Error::device(format!("{first}\n{e}")))?;
            if ptx.last() != Some(&0) {
                ptx.push(0);
            }
            load(&ptx).map_err(|e| Error::device(format!("{first}\nloading PTX: {e}")))?
        }
    };
    Ok(Module {
        module,
        functions: Mutex::new(HashMap::new()),
        waves: Mutex::new(HashMap::new()),
    })
}

/// Where the CUBIN of `src` for `arch` is kept between runs (compiling takes seconds, and every
/// `th` process would pay it): LUATORCH_CUDA_CACHE, else $XDG_CACHE_HOME/luatorch, else
/// ~/.cache/luatorch. None when there is no such place.
fn cache_path(src: &str, arch: (i32, i32)) -> Option<std::path::PathBuf> {
    use std::hash::{Hash, Hasher};
    let dir = crate::settings::cuda_cache_dir()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    src.hash(&mut h);
    Some(dir.join(format!("kernels-{:016x}-sm{}{}.cubin", h.finish(), arch.0, arch.1)))
}

/// Writes a cache file whole (a temporary file renamed into place), or not at all.
fn store(path: &std::path::Path, image: &[u8]) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = dir.join(format!(
        ".{}.{}",
        std::process::id(),
        path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()
    ));
    if std::fs::write(&tmp, image).is_err() || std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// What a device's slot keeps of its kernels: the loaded program, or why there is none (tried
/// once).
struct Compiled(Result<Module>);

/// The kernels of `dev`, compiled on first use.
pub fn module(dev: &Device) -> Result<&Module> {
    dev.slot(|| Compiled(build(dev))).0.as_ref().map_err(|e| {
        Error::device(format!(
            "the CUDA kernels are not available on device {}: {e}",
            dev.ordinal + 1
        ))
    })
}

impl Module {
    fn function(&self, name: &str) -> Result<sys::CUfunction> {
        let mut functions = self
            .functions
            .lock()
            .map_err(|_| Error::device("kernel table poisoned"))?;
        if let Some(&f) = functions.get(name) {
            return Ok(f as sys::CUfunction);
        }
        let cname = CString::new(name).map_err(|_| Error::argument("bad kernel name"))?;
        let f = guard("cuModuleGetFunction", || {
            // SAFETY: the module stays loaded for the life of the process.
            unsafe { cu::module::get_function(self.module as sys::CUmodule, cname) }
                .map_err(|e| driver::error(e).context(format!("kernel {name}")))
        })?;
        functions.insert(name.to_string(), f as usize);
        Ok(f)
    }
}

/// The blocks of BLOCK threads of kernel `name` that `dev` runs at once: its multiprocessors
/// times the blocks each one holds (which the kernel's registers and shared memory decide).
/// A grid-stride kernel given exactly this many blocks runs in one full wave; a grid a little
/// larger leaves a second, mostly idle wave (1024 blocks of a 46-register kernel on an H200 ran
/// at 86% of the memory bandwidth that one wave reached). `fallback` where the driver cannot say.
pub fn wave(dev: &Device, name: &str, fallback: u32) -> u32 {
    let m = match module(dev) {
        Ok(m) => m,
        Err(_) => return fallback,
    };
    if let Some(&w) = m.waves.lock().ok().as_ref().and_then(|w| w.get(name)) {
        return w;
    }
    let Ok(f) = m.function(name) else {
        return fallback;
    };
    let per_sm = guard("cuOccupancyMaxActiveBlocksPerMultiprocessor", || {
        let mut blocks: std::ffi::c_int = 0;
        // SAFETY: f is a loaded kernel; the call writes one int.
        let rc = unsafe { sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut blocks, f, BLOCK as i32, 0) };
        if rc == sys::CUresult::CUDA_SUCCESS {
            Ok(blocks)
        } else {
            Err(Error::device(format!("{rc:?}")))
        }
    });
    let sms = guard("cuDeviceGetAttribute", || {
        dev.ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(driver::error)
    });
    let w = match (per_sm, sms) {
        (Ok(b), Ok(n)) if b > 0 && n > 0 => (b as u32).saturating_mul(n as u32),
        _ => fallback,
    };
    if let Ok(mut waves) = m.waves.lock() {
        waves.insert(name.to_string(), w);
    }
    w
}

/// Blocks for `n` threads' worth of work, capped (kernels loop over what is left).
pub fn grid_for(n: usize, cap: u32) -> u32 {
    n.div_ceil(BLOCK as usize).clamp(1, cap as usize) as u32
}

/// Launches kernel `name` on `dev`'s current stream with `grid` blocks of BLOCK threads.
///
/// # Safety
/// `params` must point at values of the kernel's parameter types, in order, and every device
/// address among them must be valid for what the kernel touches.
pub unsafe fn launch(dev: &Device, name: &str, grid: u32, params: &mut [*mut c_void]) -> Result<()> {
    let m = module(dev)?;
    let f = m.function(name)?;
    let stream = dev.current_stream()?;
    guard("cuLaunchKernel", || {
        // SAFETY: as the caller promises.
        unsafe { cu::launch_kernel(f, (grid, 1, 1), (BLOCK, 1, 1), 0, stream, params) }
            .map_err(|e| driver::error(e).context(format!("kernel {name}")))
    })
}

/// A tensor's geometry as kernels take it (the `Geo` struct of the program).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Geo {
    nd: i32,
    size: [i64; MAX_DIMS],
    stride: [i64; MAX_DIMS],
}

impl Geo {
    /// No element (an absent operand).
    pub const NONE: Geo = Geo {
        nd: 1,
        size: [1; MAX_DIMS],
        stride: [0; MAX_DIMS],
    };

    /// From sizes and strides, merging what can be merged.
    pub fn new(size: &[usize], stride: &[usize]) -> Result<Geo> {
        let t = Tensor {
            dtype: crate::torch::base::dtype::DType::Float,
            storage: None,
            offset: 0,
            size: size.to_vec(),
            stride: stride.to_vec(),
        };
        let g = Geometry::of(&t);
        if g.size.len() > MAX_DIMS {
            return Err(Error::shape(format!(
                "tensors with more than {MAX_DIMS} dimensions that cannot be merged are not supported on the GPU"
            )));
        }
        let mut geo = Geo::NONE;
        if g.size.is_empty() {
            // One element (or only dimensions of size 1).
            return Ok(geo);
        }
        geo.nd = g.size.len() as i32;
        for d in 0..g.size.len() {
            geo.size[d] = g.size[d] as i64;
            geo.stride[d] = g.stride[d] as i64;
        }
        Ok(geo)
    }

    pub fn of(t: &Tensor) -> Result<Geo> {
        Geo::new(&t.size, &t.stride)
    }

    /// The geometry of `t` without dimension `dim` (the positions a reduction along `dim` writes).
    pub fn without(t: &Tensor, dim: usize) -> Result<Geo> {
        let mut size = t.size.clone();
        let mut stride = t.stride.clone();
        size.remove(dim);
        stride.remove(dim);
        Geo::new(&size, &stride)
    }
}

/// A kernel parameter: the address of a value the kernel reads.
pub fn param<T>(v: &mut T) -> *mut c_void {
    (v as *mut T).cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometries_merge_and_match_the_c_layout() {
        assert_eq!(std::mem::size_of::<Geo>(), 8 + 16 * 8 * 2);
        let g = Geo::new(&[2, 3, 4], &[12, 4, 1]).unwrap();
        assert_eq!((g.nd, g.size[0], g.stride[0]), (1, 24, 1));
        let t = Geo::new(&[3, 4], &[1, 3]).unwrap();
        assert_eq!(
            (t.nd, &t.size[..2], &t.stride[..2]),
            (2, &[3i64, 4][..], &[1i64, 3][..])
        );
        let one = Geo::new(&[1, 1], &[5, 9]).unwrap();
        assert_eq!((one.nd, one.size[0], one.stride[0]), (1, 1, 0));
        let many: Vec<usize> = vec![2; 20];
        let strides: Vec<usize> = (0..20).map(|d| 1usize << (2 * d)).collect();
        assert!(
            Geo::new(&many, &strides)
                .unwrap_err()
                .message()
                .contains("more than 16")
        );
        assert_eq!(grid_for(0, 8), 1);
        assert_eq!(grid_for(257, 8), 2);
        assert_eq!(grid_for(1 << 30, 8), 8);
    }

    /// Every kernel compiles with NVRTC, to a CUBIN for the architectures of the GPUs this runs
    /// on (Ampere, Hopper) and to PTX: syntax errors show without a GPU. Skipped (with a
    /// message) where NVRTC is not installed; LUATORCH_CUDA_LIBS may point at it.
    #[test]
    fn every_kernel_compiles_with_nvrtc() {
        if let Err(why) = libraries::ensure(Lib::Nvrtc) {
            println!("skipped: {why}");
            return;
        }
        let src = source::program();
        for (arch, target) in [((9, 0), Target::Cubin), ((8, 0), Target::Cubin), ((8, 0), Target::Ptx)] {
            let t0 = std::time::Instant::now();
            let image = compile(&src, arch, target).unwrap_or_else(|e| panic!("{e}"));
            println!(
                "{target:?} sm_{}{}: {} bytes in {:?}",
                arch.0,
                arch.1,
                image.len(),
                t0.elapsed()
            );
            if target == Target::Ptx {
                let ptx = String::from_utf8_lossy(&image);
                for name in source::kernel_names() {
                    assert!(
                        ptx.contains(&format!(".entry {name}(")),
                        "kernel {name} missing from the PTX"
                    );
                }
            }
        }
    }
}
