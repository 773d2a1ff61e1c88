//! `th --jupyter-install [--user | --prefix DIR]`: writes the kernelspec directory `luatorch`
//! (kernel.json and two logos) where `jupyter kernelspec install` would put it.

use std::path::{Path, PathBuf};

use serde_json::json;

pub const USAGE: &str = "Usage: th --jupyter-install [--user | --prefix DIR]

Writes the Jupyter kernelspec `luatorch` (kernel.json, logos), which runs this th as the kernel:
  (default)     /usr/local/share/jupyter/kernels/luatorch as root, else as --user
  --user        ~/.local/share/jupyter/kernels/luatorch
  --prefix DIR  DIR/share/jupyter/kernels/luatorch
";

const NAME: &str = "luatorch";

fn user_dir() -> Result<PathBuf, String> {
    match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        Some(home) => Ok(PathBuf::from(home).join(".local/share/jupyter/kernels")),
        None => Err("HOME is not set: name a directory with --prefix DIR".into()),
    }
}

/// The kernels directory the arguments name.
fn kernels_dir(args: &[String]) -> Result<PathBuf, String> {
    match args {
        [] => {
            // SAFETY: geteuid cannot fail.
            if unsafe { libc::geteuid() } == 0 {
                Ok(PathBuf::from("/usr/local/share/jupyter/kernels"))
            } else {
                user_dir()
            }
        }
        [flag] if flag == "--user" => user_dir(),
        [flag, dir] if flag == "--prefix" => Ok(Path::new(dir).join("share/jupyter/kernels")),
        _ => Err(format!("unexpected arguments {args:?}")),
    }
}

/// A square logo: a flame-coloured disc with a darker rim on a transparent ground.
pub fn logo(size: u32) -> Result<Vec<u8>, String> {
    let mut pixels = Vec::with_capacity((size * size * 4) as usize);
    let c = (size as f32 - 1.0) / 2.0;
    for y in 0..size {
        for x in 0..size {
            let (dx, dy) = (x as f32 - c, y as f32 - c);
            let r = (dx * dx + dy * dy).sqrt() / (size as f32 / 2.0);
            let t = y as f32 / size as f32;
            let (red, green, blue) = if r > 0.82 {
                (150, 40, 10)
            } else {
                (238, (150.0 - 90.0 * t) as u8, 20)
            };
            let alpha = if r > 1.0 { 0 } else { 255 };
            pixels.extend_from_slice(&[red, green, blue, alpha]);
        }
    }
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, size, size);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
        writer.write_image_data(&pixels).map_err(|e| e.to_string())?;
        writer.finish().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

fn install(args: &[String]) -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this th's path: {e}"))?;
    let dir = kernels_dir(args)?.join(NAME);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let spec = json!({
        "argv": [exe.to_string_lossy(), "--jupyter-kernel", "{connection_file}"],
        "display_name": "Torch (luatorch)",
        "language": "lua",
        "interrupt_mode": "signal",
        "metadata": {},
    });
    let text = serde_json::to_string_pretty(&spec).map_err(|e| e.to_string())?;
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    write("kernel.json", format!("{text}\n").as_bytes())?;
    write("logo-32x32.png", &logo(32)?)?;
    write("logo-64x64.png", &logo(64)?)?;
    Ok(dir)
}

/// The command line's entry: returns the exit status.
pub fn main(args: &[String]) -> i32 {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{USAGE}");
        return 0;
    }
    match install(args) {
        Ok(dir) => {
            println!("Installed the Jupyter kernel luatorch in {}", dir.display());
            0
        }
        Err(e) => {
            eprintln!("th --jupyter-install: {e}\n\n{USAGE}");
            1
        }
    }
}
