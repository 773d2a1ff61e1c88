//! The REPL, driven through a real pseudo-terminal (rexpect) as a person would use it.
//!
//! Every wait has a timeout (`WAIT_MS`). Input is only sent once the output shows that `th` is
//! where the test wants it (a prompt, or a marker printed by the code it runs), so nothing depends
//! on timing. Expected outputs are computed (`6 * 7` -> `42`) so that they cannot be matched by the
//! echo of the typed line.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rexpect::process::WaitStatus;
use rexpect::session::{Options, PtySession, spawn_with_options};

const WAIT_MS: u64 = 30_000;

struct Th {
    session: PtySession,
}

impl Th {
    /// Starts `th` in `home` (also its `$HOME`), and waits for the first prompt.
    fn start(home: &Path, env: &[(&str, &str)]) -> Th {
        Th::start_with(home, env, true)
    }

    /// `start`, where `plain` says whether colour escapes are taken out of what `th` writes.
    fn start_with(home: &Path, env: &[(&str, &str)], plain: bool) -> Th {
        let mut cmd = Command::new(common::th_path());
        cmd.current_dir(home)
            .env("HOME", home)
            .env("TERM", "xterm")
            .env_remove("TREPL_HISTORY");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let options = Options::new().timeout_ms(Some(WAIT_MS)).strip_ansi_escape_codes(plain);
        let mut session = spawn_with_options(cmd, options).expect("spawn th in a pty");
        session.exp_string("luatorch th").expect("banner");
        session.exp_string("th> ").expect("first prompt");
        Th { session }
    }

    /// Types `line` and Enter.
    fn send(&mut self, line: &str) {
        self.session.send_line(line).expect("send");
        self.session.flush().expect("flush");
    }

    /// Types `keys` without Enter.
    fn type_keys(&mut self, keys: &str) {
        self.session.send(keys).expect("send");
        self.session.flush().expect("flush");
    }

    /// Waits for `text` in the output; returns what came before it.
    fn expect(&mut self, text: &str) -> String {
        match self.session.exp_string(text) {
            Ok(before) => before,
            Err(e) => panic!("waiting for {text:?}: {e}"),
        }
    }

    /// Types `line`, waits for `output`, then for the next prompt; returns the output before it.
    fn eval(&mut self, line: &str, output: &str) -> String {
        self.send(line);
        let before = self.expect(output);
        self.expect("th> ");
        before
    }

    /// Everything `line` prints, in whatever order (up to a marker printed after it).
    fn output_of(&mut self, line: &str) -> String {
        self.send(line);
        self.send("'end' .. 'mark'");
        let out = self.expect("endmark");
        self.expect("th> ");
        out
    }

    /// Types a line that prints nothing, then waits until it has run.
    fn quiet(&mut self, line: &str) {
        self.send(line);
        self.eval("'sy' .. 'nc'", "sync");
    }

    /// Ctrl-D at the prompt; returns the exit status.
    fn quit(mut self) -> i32 {
        self.session.send_control('d').expect("send Ctrl-D");
        self.session.exp_eof().expect("th exits after Ctrl-D");
        let deadline = Instant::now() + Duration::from_millis(WAIT_MS);
        loop {
            match self.session.process().status() {
                Some(WaitStatus::Exited(_, code)) => return code,
                Some(WaitStatus::StillAlive) | None if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                other => panic!("th did not exit cleanly: {other:?}"),
            }
        }
    }
}

fn home(name: &str) -> PathBuf {
    common::temp_dir(&format!("repl-{name}"))
}

#[test]
fn prints_expressions_and_every_returned_value() {
    let mut th = Th::start(&home("print"), &[]);
    th.eval("7 * 6", "42");
    th.eval("= 40 + 3", "43");
    th.eval("1 + 1, 'a' .. 'b', nil, 2.5 * 2", "2\tab\tnil\t5");
    th.eval("(function() return 'x' .. 1, 'y' .. 2 end)()", "x1\ty2");
    // `_LAST` holds the first value of the latest printed result.
    th.eval("_LAST .. '!'", "x1!");
    assert_eq!(th.quit(), 0);
}

#[test]
fn prints_tables_readably_and_survives_cycles() {
    let mut th = Th::start(&home("tables"), &[]);
    let out = th.output_of("{answer = 6 * 7, nested = {deep = 'x' .. 'y'}}");
    assert!(out.contains("answer : 42"), "{out:?}");
    assert!(
        out.contains("nested : \r\n    {\r\n      deep : \"xy\"\r\n    }"),
        "{out:?}"
    );
    th.quiet("cyc = {name = 'loop'}; cyc.self = cyc");
    let out = th.output_of("cyc");
    assert!(out.contains("self : {...}"), "{out:?}");
    assert!(out.contains("name : \"loop\""), "{out:?}");
    assert_eq!(th.quit(), 0);
}

#[test]
fn trailing_semicolon_keeps_quiet() {
    let mut th = Th::start(&home("quiet"), &[]);
    th.send("6 * 7;");
    th.send("x = 100 + 11;");
    let before = th.eval("'after' .. 'quiet'", "afterquiet");
    assert!(!before.contains("42"), "`6 * 7;` printed: {before:?}");
    th.eval("x + 1", "112");
    assert_eq!(th.quit(), 0);
}

#[test]
fn multi_line_definitions_continue_under_the_continuation_prompt() {
    let mut th = Th::start(&home("multiline"), &[]);
    th.send("function twice(n)");
    th.expect("..> ");
    th.send("  local r = n * 2");
    th.expect("..> ");
    th.send("  return r");
    th.expect("..> ");
    th.send("end");
    th.expect("th> ");
    th.eval("twice(21)", "42");
    th.send("t = {");
    th.expect("..> ");
    th.send("  1, 2,");
    th.expect("..> ");
    th.send("}");
    th.expect("th> ");
    th.eval("#t * 10", "20");
    assert_eq!(th.quit(), 0);
}

#[test]
fn an_error_is_reported_and_the_next_line_works() {
    let mut th = Th::start(&home("error"), &[]);
    th.eval("error('bo' .. 'om')", "stdin:1: boom");
    th.eval("nosuch.field = 1", "attempt to index global 'nosuch'");
    th.eval("x = = 1", "unexpected symbol");
    th.eval("= 20 + 22", "42");
    assert_eq!(th.quit(), 0);
}

#[test]
fn ctrl_c_interrupts_running_code_and_keeps_the_state() {
    let mut th = Th::start(&home("interrupt"), &[]);
    th.send("keep = 6 * 7;");
    th.send("print('spin' .. 'ning') while true do end");
    th.expect("spinning");
    th.session.send_control('c').expect("send Ctrl-C");
    th.expect("interrupted");
    th.expect("th> ");
    th.eval("keep", "42");
    // A loop inside a function defined at the prompt, and one that catches errors.
    th.send("function spin() while true do end end");
    th.send("print('spin' .. 'again') spin()");
    th.expect("spinagain");
    th.session.send_control('c').expect("send Ctrl-C");
    th.expect("interrupted");
    th.expect("th> ");
    th.send("print('spin' .. 'caught') while true do pcall(spin) end");
    th.expect("spincaught");
    th.session.send_control('c').expect("send Ctrl-C");
    th.expect("interrupted");
    th.expect("th> ");
    th.eval("keep + 1", "43");
    assert_eq!(th.quit(), 0);
}

#[test]
fn ctrl_c_at_the_prompt_drops_the_line() {
    let mut th = Th::start(&home("prompt-ctrl-c"), &[]);
    th.send("function unfinished()");
    th.expect("..> ");
    th.session.send_control('c').expect("send Ctrl-C");
    th.expect("th> ");
    th.eval("type(unfinished) .. '!'", "nil!");
    assert_eq!(th.quit(), 0);
}

#[test]
fn tab_completes_fields_and_methods() {
    let mut th = Th::start(&home("complete"), &[]);
    th.type_keys("string.fo\t");
    th.expect("string.format");
    th.eval("('%d!', 6 * 7)", "42!");
    th.quiet("obj = setmetatable({}, {__index = setmetatable({}, {__index = {greeting = function() return 'hel' .. 'lo' end}})})");
    th.type_keys("obj:gre\t");
    th.expect("obj:greeting");
    th.eval("()", "hello");
    th.quiet("word = 'abc'");
    th.type_keys("word:up\t");
    th.expect("word:upper");
    th.eval("()", "ABC");
    assert_eq!(th.quit(), 0);
}

#[test]
fn tensors_print_in_torch_format_and_complete() {
    let mut th = Th::start(&home("tensor"), &[]);
    th.type_keys("t = torch.FloatTen\t");
    th.expect("torch.FloatTensor");
    th.quiet("(2, 3):fill(1)");
    let out = th.output_of("t");
    assert!(
        out.contains(" 1  1  1\r\n 1  1  1\r\n[torch.FloatTensor of size 2x3]"),
        "{out:?}"
    );
    th.type_keys("t:narr\t");
    th.expect("t:narrow");
    th.eval("(1, 2, 1):size(2) * 14", "42");
    assert_eq!(th.quit(), 0);
}

#[test]
fn tester_colours_its_lines_at_a_terminal() {
    // As Torch's Tester: the counter and [WAIT] in cyan, PASS in green, FAIL in red (only at a
    // terminal; tests/torch_util.rs checks the plain text through a pipe).
    let mut th = Th::start_with(&home("tester"), &[], false);
    th.quiet("tt = torch.Tester(); tt:add(function() tt:assert(true) end, 'good')");
    let out = th.output_of("tt:run();");
    assert!(
        out.contains("\u{1b}[0;36m1/1 \u{1b}[0mgood ") && out.contains("[\u{1b}[0;36mWAIT\u{1b}[0m]\r"),
        "{out:?}"
    );
    assert!(out.contains("[\u{1b}[0;32mPASS\u{1b}[0m]"), "{out:?}");
    assert!(out.contains("with \u{1b}[0;32m0 failures\u{1b}[0m and "), "{out:?}");
    assert_eq!(th.quit(), 0);
}

#[test]
fn history_is_written_and_reloaded() {
    let dir = home("history");
    let mut th = Th::start(&dir, &[]);
    th.eval("'hist' .. 'ory'", "history");
    assert_eq!(th.quit(), 0);
    let saved = std::fs::read_to_string(dir.join(".luahistory")).expect("~/.luahistory written");
    assert!(saved.contains("'hist' .. 'ory'"), "history file: {saved:?}");

    let mut th = Th::start(&dir, &[]);
    th.type_keys("\x1b[A");
    th.expect("'hist' .. 'ory'");
    th.eval("", "history");
    assert_eq!(th.quit(), 0);
}

#[test]
fn trepl_history_overrides_the_file() {
    let dir = home("history-env");
    let custom = dir.join("custom_history");
    let mut th = Th::start(&dir, &[("TREPL_HISTORY", custom.to_str().unwrap())]);
    th.eval("'cus' .. 'tom'", "custom");
    assert_eq!(th.quit(), 0);
    assert!(std::fs::read_to_string(&custom).unwrap().contains("'cus' .. 'tom'"));
    assert!(!dir.join(".luahistory").exists());
}

#[test]
fn shell_commands_run_with_dollar() {
    let mut th = Th::start(&home("shell"), &[]);
    th.eval("$ echo sh''ell", "shell");
    th.eval("#_LAST", "6");
    assert_eq!(th.quit(), 0);
}

#[test]
fn ctrl_d_exits_with_status_zero() {
    let th = Th::start(&home("eof"), &[]);
    assert_eq!(th.quit(), 0);
}
