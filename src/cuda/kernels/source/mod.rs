//! The CUDA C source of every kernel (the kernels layer: text only, which `kernels` compiles),
//! generated from the tables of `operations`: one program, compiled by NVRTC once per device.
//!
//! Tensors reach kernels as a base pointer (the tensor's first element) and a `Geo`: sizes and
//! strides with mergeable dimensions merged (`torch::kernels::strided::Geometry`). A kernel walks the
//! elements in Torch's logical (row-major) order by a flat index and finds each operand's element
//! from its own geometry, so operands may have different shapes and any strides (views, expanded
//! and transposed tensors) with no copy first.
//!
//! One kernel per element type serves every elementwise operation, and one per type and shape of
//! work every reduction: the operation is a number the kernel switches on for each element. The
//! switch is uniform across a launch, so it costs a few instructions per element of work that is
//! bound by memory bandwidth; a kernel per operation would make the program ten times larger and
//! as much slower to compile.
//!
//! Element types: `f` float, `d` double, `l` long (long long). Kernel names end with the type.
//!
//! The text is in the files of this folder: `header` (what every kernel uses), `per_type` (the
//! elementwise, moving, scanning and reducing kernels of one element type), `sort` (sorting
//! along a dimension), `nn` (nn's window passes: im2col, col2im, max pooling) and `operations`
//! (the tables of operations, which fill the per-type kernels' switches); `program` writes the
//! header, then each type's kernels, then the sort, then nn's.

mod header;
mod nn;
mod operations;
mod per_type;
mod sort;

pub use operations::{Pointwise, Reduction, pointwise_op, reduction_op};

/// Most dimensions a kernel takes after merging (Torch tensors rarely have more than a handful).
pub const MAX_DIMS: usize = 16;
/// Threads per block of every kernel (the reductions' shared arrays are sized for it).
pub const BLOCK: u32 = 256;
/// Elements per thread per step of the contiguous elementwise kernel (`PW_UNROLL` in the C).
pub const PW_UNROLL: usize = 4;
/// The elementwise operations and reductions that get a loop of their own in the contiguous
/// kernels, their operation fixed at compile time (the ones training loops spend their time in);
/// the others switch on the operation per element.
const PW_FAST: &[&str] = &["fill", "copy", "add_n", "mul_n", "add", "cmul", "cdiv", "addcmul"];
const RED_FAST: &[&str] = &["sum", "mean", "max", "min", "norm2"];

/// The element types kernels are made for: (suffix, C type, accumulator of reductions).
pub const TYPES: [(&str, &str, &str); 3] = [("f", "float", "double"), ("d", "double", "double"), ("l", "ll", "ll")];

/// The names of the sorting kernels (see `kernel_names`).
fn sort_kernel_names() -> Vec<String> {
    let mut names = vec!["sort_step".to_string(), "sort_block".to_string()];
    for (suffix, _, _) in TYPES {
        for k in ["sort_init", "sort_out", "sort_mode"] {
            names.push(format!("{k}_{suffix}"));
        }
    }
    names
}

/// The sorting part of the program.
fn sort_program() -> String {
    let mut s = String::from(sort::SORT_COMMON);
    for (suffix, ty, _) in TYPES {
        let body = sort::SORT_PER_TYPE.replace("_S(", &format!("_{suffix}("));
        s.push_str(&format!("#define T {ty}\n{body}#undef T\n"));
    }
    s
}

/// nn's window kernels (`nn`), for the floating types.
fn nn_program() -> String {
    let mut s = String::from(nn::NN_COMMON);
    for (suffix, ty, _) in TYPES.iter().filter(|t| t.0 != "l") {
        let body = nn::NN_PER_TYPE.replace("_S(", &format!("_{suffix}("));
        s.push_str(&format!("#define T {ty}\n{body}#undef T\n"));
    }
    s
}

/// The whole program.
pub fn program() -> String {
    let mut s = String::from(header::HEADER);
    for (suffix, ty, acc) in TYPES {
        let is_long = suffix == "l";
        let mut pw_cases = String::new();
        for (i, op) in operations::POINTWISE.iter().enumerate() {
            let expr = if is_long { op.long } else { Some(op.float) };
            if let Some(expr) = expr {
                pw_cases.push_str(&format!("case {i}: o = (T)({expr}); break; "));
            }
        }
        let (mut init, mut map, mut comb, mut fin) = (String::new(), String::new(), String::new(), String::new());
        for (i, r) in operations::REDUCTIONS.iter().enumerate() {
            let Some(red) = (if is_long { r.long } else { r.float }) else {
                continue;
            };
            init.push_str(&format!("case {i}: return (A)({}); ", red.init));
            map.push_str(&format!("case {i}: return (A)({}); ", red.map));
            comb.push_str(&format!("case {i}: return (A)({}); ", red.comb));
            fin.push_str(&format!("case {i}: return (A)({}); ", red.fin));
        }
        let mut pw_fast = String::new();
        for name in PW_FAST {
            let code = operations::POINTWISE
                .iter()
                .position(|p| p.name == *name)
                .expect("a fast case is an operation");
            pw_fast.push_str(&format!(
                "case {code}: pwc_run_S<{code}>(op, n, r, a, b, c, v, w); break; "
            ));
        }
        let mut red_fast = String::new();
        for name in RED_FAST {
            let (code, r) = reduction_op(name).expect("a fast case is a reduction");
            if (if is_long { r.long } else { r.float }).is_some() {
                red_fast.push_str(&format!("case {code}: acc = red_runc_S<{code}>(op, n, a, p); break; "));
            }
        }
        let body = per_type::PER_TYPE
            .replace("PWC_FAST_CASES", &pw_fast)
            .replace("RED_FAST_CASES", &red_fast)
            .replace("PW_CASES", &pw_cases)
            .replace("RED_INIT_CASES", &init)
            .replace("RED_MAP_CASES", &map)
            .replace("RED_COMB_CASES", &comb)
            .replace("RED_FIN_CASES", &fin)
            .replace("_S(", &format!("_{suffix}("))
            .replace("_S<", &format!("_{suffix}<"));
        // The types by name (T and A are whole words in the text above).
        s.push_str(&format!("#define T {ty}\n#define A {acc}\n{body}#undef T\n#undef A\n"));
        for (to_suffix, to_ty, _) in TYPES {
            if to_suffix != suffix {
                s.push_str(
                    &per_type::CONVERT
                        .replace("conv_TO_FROM", &format!("conv_{to_suffix}_{suffix}"))
                        .replace("TT", to_ty)
                        .replace("FT", ty),
                );
            }
        }
    }
    s.push_str(&sort_program());
    s.push_str(&nn_program());
    s
}

/// Every kernel name the program defines (what a compile check looks up).
pub fn kernel_names() -> Vec<String> {
    let mut names = Vec::new();
    for (suffix, _, _) in TYPES {
        for k in [
            "pw",
            "pwc",
            "gs",
            "scan_dimt",
            "scan_dimb",
            "red_part",
            "red_partc",
            "red_fin",
            "red_dimt",
            "red_dimb",
            "arg_dimt",
            "arg_dimb",
        ] {
            names.push(format!("{k}_{suffix}"));
        }
        for (to_suffix, _, _) in TYPES {
            if to_suffix != suffix {
                names.push(format!("conv_{to_suffix}_{suffix}"));
            }
        }
    }
    names.extend(sort_kernel_names());
    for (suffix, _, _) in TYPES.iter().filter(|t| t.0 != "l") {
        names.extend(nn::NN_KERNELS.iter().map(|k| format!("{k}_{suffix}")));
    }
    names
}
