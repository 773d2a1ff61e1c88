//! `th`: the command line, as trepl's `th` has it. Everything else lives in the library.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::process::ExitCode;

use luatorch::error::message::describe;
use luatorch::runtime::{self, errors};
use mlua::{Lua, Table};

const USAGE: &str = "Usage: th [options] [script.lua [arguments]]

Options:
  -l name            require library 'name' (also -lname)
  -e statement       execute statement
  -i, --interactive  enter the REPL after executing a script or -e
  -                  execute the script read from standard input
  -h, --help         print this help
  --version          print the version and exit
  --setup-rocks      ready a luarocks tree for `luarocks make` of Torch rocks
                     (th --setup-rocks --help says how)
  --jupyter-install [--user | --prefix DIR]
                     install the Jupyter kernelspec `luatorch` for this th
  --jupyter-kernel FILE
                     run as a Jupyter kernel on the connection file FILE

Without a script or -e, th starts the REPL (or runs standard input when it is not a terminal).
";

/// Where the main chunk comes from.
enum Script {
    File(OsString),
    Stdin,
}

/// `-l` and `-e` run in the order they were given.
enum Action {
    Require(String),
    Execute(String),
}

#[derive(Default)]
struct CommandLine {
    actions: Vec<Action>,
    interactive: bool,
    script: Option<Script>,
    script_args: Vec<OsString>,
}

enum Parsed {
    Run(CommandLine),
    Exit(u8),
}

fn parse(args: &[OsString]) -> Parsed {
    let mut cl = CommandLine::default();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].to_string_lossy().into_owned();
        i += 1;
        match arg.as_str() {
            "-h" | "--help" => {
                print!("{USAGE}");
                return Parsed::Exit(0);
            }
            "--version" | "-v" => {
                println!("{}", version_text());
                return Parsed::Exit(0);
            }
            "-i" | "--interactive" => cl.interactive = true,
            "-e" | "-l" => {
                let Some(value) = args.get(i) else {
                    eprintln!("th: option '{arg}' needs an argument\n\n{USAGE}");
                    return Parsed::Exit(1);
                };
                i += 1;
                let value = value.to_string_lossy().into_owned();
                cl.actions.push(if arg == "-e" {
                    Action::Execute(value)
                } else {
                    Action::Require(value)
                });
            }
            "-" => {
                cl.script = Some(Script::Stdin);
                cl.script_args = args[i..].to_vec();
                break;
            }
            "--" => {
                if let Some(script) = args.get(i) {
                    cl.script = Some(Script::File(script.clone()));
                    cl.script_args = args[i + 1..].to_vec();
                }
                break;
            }
            _ if arg.starts_with("-l") && arg.len() > 2 => cl.actions.push(Action::Require(arg[2..].to_string())),
            _ if arg.starts_with('-') => {
                eprintln!("th: unrecognized flag {arg}\n\n{USAGE}");
                return Parsed::Exit(1);
            }
            _ => {
                cl.script = Some(Script::File(args[i - 1].clone()));
                cl.script_args = args[i..].to_vec();
                break;
            }
        }
    }
    Parsed::Run(cl)
}

fn version_text() -> String {
    format!("th (luatorch {}), {}", env!("CARGO_PKG_VERSION"), luajit_version())
}

fn luajit_version() -> String {
    let lua = unsafe { Lua::unsafe_new() };
    lua.load("return jit.version")
        .eval::<String>()
        .unwrap_or_else(|_| "LuaJIT".into())
}

/// The global `arg`: the script's arguments at 1..n, and at 0 the path `th` was run as (trepl copies
/// its own `arg[0]` the same way).
fn set_arg(lua: &Lua, argv0: &OsString, script_args: &[OsString]) -> mlua::Result<()> {
    let arg: Table = lua.create_table()?;
    arg.raw_set(0, lua.create_string(argv0.as_bytes())?)?;
    for (n, a) in script_args.iter().enumerate() {
        arg.raw_set(n + 1, lua.create_string(a.as_bytes())?)?;
    }
    lua.globals().set("arg", arg)
}

/// Compiles and runs one chunk; prints the error with its traceback on failure.
fn run_chunk(lua: &Lua, source: &[u8], chunk_name: &str, args: &[OsString]) -> Result<(), ()> {
    let f = match lua.load(source).set_name(chunk_name).into_function() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("th: {}", describe(&e));
            return Err(());
        }
    };
    let args: Vec<mlua::Value> = args
        .iter()
        .map(|a| lua.create_string(a.as_bytes()).map(mlua::Value::String))
        .collect::<mlua::Result<_>>()
        .map_err(|e| eprintln!("th: {e}"))?;
    match errors::call_traced(lua, &f, mlua::MultiValue::from_vec(args)) {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(msg)) => {
            eprintln!("th: {msg}");
            Err(())
        }
        Err(e) => {
            eprintln!("th: {}", describe(&e));
            Err(())
        }
    }
}

fn run_action(lua: &Lua, action: &Action) -> Result<(), ()> {
    match action {
        Action::Execute(code) => run_chunk(lua, code.as_bytes(), "=(command line)", &[]),
        Action::Require(name) => {
            let code = format!("require({name:?})");
            run_chunk(lua, code.as_bytes(), "=(command line)", &[])
        }
    }
}

fn read_script(script: &Script) -> Result<(Vec<u8>, String), ()> {
    match script {
        Script::Stdin => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| eprintln!("th: cannot read stdin: {e}"))?;
            Ok((buf, "=stdin".into()))
        }
        Script::File(path) => {
            let shown = path.to_string_lossy();
            match std::fs::read(path) {
                Ok(buf) => Ok((buf, format!("@{shown}"))),
                Err(e) => {
                    eprintln!("th: cannot open {shown}: {}", io_reason(&e));
                    Err(())
                }
            }
        }
    }
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".into(),
        std::io::ErrorKind::IsADirectory => "Is a directory".into(),
        _ => e.to_string(),
    }
}

fn run(cl: CommandLine, argv0: &OsString) -> u8 {
    let lua = match runtime::new_state() {
        Ok(lua) => lua,
        Err(e) => {
            eprintln!("th: cannot create the Lua state: {e}");
            return 1;
        }
    };
    if let Err(e) = set_arg(&lua, argv0, &cl.script_args) {
        eprintln!("th: {e}");
        return 1;
    }
    if let Err(e) = runtime::load_th_environment(&lua) {
        eprintln!("th: cannot load the th environment: {}", describe(&e));
        return 1;
    }
    for action in &cl.actions {
        if run_action(&lua, action).is_err() {
            return 1;
        }
    }
    // A bare `th` with piped input runs the REPL over it (as trepl's did); `th -` runs it as a script.
    let script = cl.script;
    if let Some(script) = &script {
        let Ok((source, chunk_name)) = read_script(script) else {
            return 1;
        };
        if run_chunk(&lua, &source, &chunk_name, &cl.script_args).is_err() {
            return 1;
        }
    }
    if cl.interactive || (script.is_none() && cl.actions.is_empty()) {
        return luatorch::repl::run(&lua) as u8;
    }
    0
}

/// `th --jupyter-kernel FILE`: the same Lua state as the REPL's, served to a Jupyter frontend.
fn kernel(argv0: &OsString, connection_file: &str) -> u8 {
    let lua = match runtime::new_state() {
        Ok(lua) => lua,
        Err(e) => {
            eprintln!("th: cannot create the Lua state: {e}");
            return 1;
        }
    };
    if let Err(e) = set_arg(&lua, argv0, &[]) {
        eprintln!("th: {e}");
        return 1;
    }
    if let Err(e) = runtime::load_th_environment(&lua) {
        eprintln!("th: cannot load the th environment: {}", describe(&e));
        return 1;
    }
    luatorch::jupyter::run_kernel(&lua, connection_file) as u8
}

/// Out of memory is a Lua error, not an abort (see `reserve.rs`).
#[global_allocator]
static ALLOCATOR: luatorch::reserve::Reserved = luatorch::reserve::Reserved;

fn main() -> ExitCode {
    luatorch::reserve::install();
    luatorch::runtime::malloc::keep_message_buffers_warm();
    let mut args: Vec<OsString> = std::env::args_os().collect();
    let argv0 = if args.is_empty() {
        OsString::from("th")
    } else {
        args.remove(0)
    };
    if args.first().is_some_and(|a| a == "--setup-rocks") {
        let rest: Vec<String> = args[1..].iter().map(|a| a.to_string_lossy().into_owned()).collect();
        return ExitCode::from(luatorch::rocks::main(&rest));
    }
    if args.first().is_some_and(|a| a == "--jupyter-install") {
        let rest: Vec<String> = args[1..].iter().map(|a| a.to_string_lossy().into_owned()).collect();
        return ExitCode::from(luatorch::jupyter::install_main(&rest) as u8);
    }
    if args.first().is_some_and(|a| a == "--jupyter-kernel") {
        let [_, file] = &args[..] else {
            eprintln!("th: --jupyter-kernel needs the connection file, and only it\n\n{USAGE}");
            return ExitCode::from(1);
        };
        return ExitCode::from(kernel(&argv0, &file.to_string_lossy()));
    }
    match parse(&args) {
        Parsed::Exit(code) => ExitCode::from(code),
        Parsed::Run(cl) => ExitCode::from(run(cl, &argv0)),
    }
}
