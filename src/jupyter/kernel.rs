//! The kernel's main loop: shell requests, one at a time, on the thread that owns the Lua state.
//! Each is framed by busy and idle on iopub. A cell runs as a REPL input does (`repl::eval`), with
//! Ctrl-C armed (`repl::interrupt`): SIGINT, from the frontend's interrupt or from
//! interrupt_request, stops it and leaves the state as it was.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::atomic::Ordering;

use mlua::{Function, Lua, MultiValue, Table};
use serde_json::{Value, json};

use super::channels::{Channels, TICK_MS, readable};
use super::io::Io;
use super::requests;
use super::wire::{Message, Signer, child, decode, encode};
use crate::repl::complete::LuaHelper;
use crate::repl::{eval, interrupt};
use crate::runtime::errors;

pub struct Kernel<'a> {
    pub lua: &'a Lua,
    pub channels: Channels,
    pub io: Rc<RefCell<Io>>,
    pub signer: Signer,
    pub session: String,
    pub kernel_info: Value,
    pub helper: LuaHelper,
    count: u64,
    queue: VecDeque<Message>,
}

impl<'a> Kernel<'a> {
    pub fn new(lua: &'a Lua, channels: Channels, io: Rc<RefCell<Io>>, signer: Signer, session: String) -> Self {
        Kernel {
            kernel_info: requests::kernel_info(lua),
            helper: LuaHelper::new(lua),
            lua,
            channels,
            io,
            signer,
            session,
            count: 0,
            queue: VecDeque::new(),
        }
    }

    /// Serves shell until a shutdown_request, or until the process that started the kernel is
    /// gone (jupyter_client names itself in JPY_PARENT_PID), so that a killed frontend leaves no
    /// kernel behind.
    pub fn serve(&mut self) {
        self.io
            .borrow()
            .publish("status", json!({ "execution_state": "starting" }));
        let parent = parent_to_watch();
        while !self.channels.flags.shutdown.load(Ordering::SeqCst) {
            // SAFETY: getppid cannot fail.
            if let Some(p) = parent
                && unsafe { libc::getppid() } != p
            {
                eprintln!("th kernel: the process that started it ({p}) is gone; exiting");
                break;
            }
            let msg = match self.queue.pop_front() {
                Some(m) => m,
                None => match self.receive(TICK_MS) {
                    Some(m) => m,
                    None => continue,
                },
            };
            self.handle(msg);
        }
    }

    /// The next well-signed shell message within `ms`; others are logged and dropped.
    fn receive(&self, ms: i64) -> Option<Message> {
        if !readable(&self.channels.shell, ms) {
            return None;
        }
        let frames = self.channels.shell.recv_multipart(0).ok()?;
        match decode(frames, &self.signer) {
            Ok(m) => Some(m),
            Err(e) => {
                eprintln!("th kernel: shell message dropped: {e}");
                None
            }
        }
    }

    fn reply(&self, request: &Message, msg_type: &str, content: Value) {
        let r = child(Some(request), msg_type, &self.session, content);
        if let Err(e) = self.channels.shell.send_multipart(encode(&r, &self.signer), 0) {
            eprintln!("th kernel: cannot send {msg_type}: {e}");
        }
    }

    fn status(&self, request: &Message, state: &str) {
        let mut io = self.io.borrow_mut();
        io.parent = Some(request.clone());
        io.publish("status", json!({ "execution_state": state }));
    }

    fn handle(&mut self, msg: Message) {
        self.status(&msg, "busy");
        match msg.msg_type() {
            "kernel_info_request" => self.reply(&msg, "kernel_info_reply", self.kernel_info.clone()),
            "execute_request" => self.execute(&msg),
            "complete_request" => self.reply(&msg, "complete_reply", requests::complete(&self.helper, &msg.content)),
            "inspect_request" => self.reply(&msg, "inspect_reply", requests::inspect(self.lua, &msg.content)),
            "is_complete_request" => {
                self.reply(&msg, "is_complete_reply", requests::is_complete(self.lua, &msg.content))
            }
            "history_request" => self.reply(&msg, "history_reply", json!({ "status": "ok", "history": [] })),
            "comm_info_request" => self.reply(&msg, "comm_info_reply", json!({ "status": "ok", "comms": {} })),
            "comm_open" => {
                // No comm targets: the frontend is told the comm is closed.
                let id = msg.content["comm_id"].clone();
                self.io
                    .borrow()
                    .publish("comm_close", json!({ "comm_id": id, "data": {} }));
            }
            "shutdown_request" => {
                let restart = msg.content["restart"].as_bool().unwrap_or(false);
                self.reply(&msg, "shutdown_reply", json!({ "status": "ok", "restart": restart }));
                self.channels.flags.shutdown.store(true, Ordering::SeqCst);
            }
            other => eprintln!("th kernel: shell message {other:?} not handled"),
        }
        self.status(&msg, "idle");
    }

    fn execute(&mut self, msg: &Message) {
        let c = &msg.content;
        let source = c["code"].as_str().unwrap_or("");
        let code = last_line_returned(self.lua, source);
        let silent = c["silent"].as_bool().unwrap_or(false);
        let store_history = c["store_history"].as_bool().unwrap_or(!silent);
        let stop_on_error = c["stop_on_error"].as_bool().unwrap_or(true);
        if !silent && store_history {
            self.count += 1;
        }
        let count = self.count;
        {
            let mut io = self.io.borrow_mut();
            io.allow_stdin = c["allow_stdin"].as_bool().unwrap_or(false);
            if !silent {
                io.publish("execute_input", json!({ "code": source, "execution_count": count }));
            }
        }
        let io = self.io.clone();
        let mut show = |lua: &Lua, values: MultiValue| -> Result<(), errors::Raised> {
            if silent {
                return Ok(());
            }
            let text = format_values(lua, values)?;
            let mut io = io.borrow_mut();
            io.flush();
            io.publish(
                "execute_result",
                json!({ "execution_count": count, "data": { "text/plain": text }, "metadata": {} }),
            );
            Ok(())
        };
        self.channels.flags.busy.store(true, Ordering::SeqCst);
        let outcome = {
            let armed = interrupt::arm(self.lua);
            eval::run_with(self.lua, &code, Some(&armed), &mut show)
        };
        self.end_cell();
        self.channels.flags.busy.store(false, Ordering::SeqCst);
        self.io.borrow_mut().flush();
        let failure = match outcome {
            eval::Outcome::Done => None,
            eval::Outcome::Failed(message) => {
                let evalue = message.lines().next().unwrap_or("").to_string();
                Some(("LuaError", evalue, message))
            }
            eval::Outcome::Interrupted => Some(("Interrupted", "interrupted".into(), "interrupted".into())),
        };
        let Some((ename, evalue, message)) = failure else {
            self.reply(
                msg,
                "execute_reply",
                json!({ "status": "ok", "execution_count": count, "user_expressions": {}, "payload": [] }),
            );
            return;
        };
        // What was waiting before the error reply goes out: what the client sends after it runs.
        let waiting = if stop_on_error { self.waiting() } else { VecDeque::new() };
        let traceback: Vec<&str> = message.lines().collect();
        let error = json!({ "ename": ename, "evalue": evalue, "traceback": traceback });
        self.io.borrow().publish("error", error.clone());
        let mut content = error;
        content["status"] = json!("error");
        content["execution_count"] = json!(count);
        self.reply(msg, "execute_reply", content);
        self.abort(waiting);
    }

    /// The requests queued or waiting on the shell socket now.
    fn waiting(&mut self) -> VecDeque<Message> {
        let mut waiting = std::mem::take(&mut self.queue);
        while readable(&self.channels.shell, 0) {
            waiting.extend(self.receive(0));
        }
        waiting
    }

    /// After a cell: what it drew with gnuplot is shown (`itorch._endCell`). A failure is told
    /// on the cell's stderr.
    fn end_cell(&self) {
        let done = self
            .lua
            .load("require('itorch')._endCell()")
            .set_name("=[jupyter kernel]")
            .exec();
        if let Err(e) = done {
            let text = format!("{}\n", crate::error::message::describe(&e));
            self.io
                .borrow()
                .publish("stream", json!({ "name": "stderr", "text": text }));
        }
    }

    /// After a failed cell with stop_on_error, the executes that were waiting are answered
    /// "aborted" (as ipykernel does); the other requests keep their turn.
    fn abort(&mut self, waiting: VecDeque<Message>) {
        for msg in waiting {
            if msg.msg_type() == "execute_request" {
                self.status(&msg, "busy");
                self.reply(
                    &msg,
                    "execute_reply",
                    json!({ "status": "aborted", "execution_count": self.count }),
                );
                self.status(&msg, "idle");
            } else {
                self.queue.push_back(msg);
            }
        }
    }
}

/// The frontend's pid, when jupyter_client's JPY_PARENT_PID names our parent.
fn parent_to_watch() -> Option<i32> {
    let named: i32 = std::env::var("JPY_PARENT_PID").ok()?.trim().parse().ok()?;
    // SAFETY: getppid cannot fail.
    (named > 1 && named == unsafe { libc::getppid() }).then_some(named)
}

/// A cell that does not compile, whose last line is an expression, returns that expression's
/// values (`x = f()` then `x` on its own line shows x, as notebooks do); other cells are run as
/// they are. The lines stay where they were, so errors keep their line numbers.
fn last_line_returned(lua: &Lua, code: &str) -> String {
    if let Some(command) = code.trim().strip_prefix('$') {
        return shell_cell(command.trim());
    }
    if eval::compiles(lua, code) {
        return code.to_string();
    }
    let body = code.trim_end();
    let Some(cut) = body.rfind('\n') else {
        return code.to_string();
    };
    let (head, last) = (&body[..cut], body[cut + 1..].trim());
    // A trailing `;` stays: the cell's values are then computed quietly, as in the REPL.
    let rewritten = format!("{head}\nreturn {last}");
    if !last.is_empty() && lua.load(rewritten.as_str()).into_function().is_ok() {
        rewritten
    } else {
        code.to_string()
    }
}

/// A `$ cmd` cell as Lua: the REPL runs it with its own stdout, which a notebook does not see, so
/// the kernel runs it through `itorch._shell`, whose output is the cell's stream. The command
/// travels as a long string whose brackets it does not contain.
fn shell_cell(command: &str) -> String {
    let mut eq = String::new();
    // The first closing bracket of that level must be the one after the command.
    while format!("{command}]{eq}]").find(&format!("]{eq}]")) != Some(command.len()) {
        eq.push('=');
    }
    format!("require('itorch')._shell([{eq}[{command}]{eq}])")
}

/// A cell's values as text, in the REPL's print format (trepl's), without the final newline.
fn format_values(lua: &Lua, values: MultiValue) -> Result<String, errors::Raised> {
    let raised = |e: mlua::Error| errors::Raised(crate::error::message::describe(&e));
    let trepl: Table = lua
        .globals()
        .get::<Function>("require")
        .and_then(|r| r.call("trepl"))
        .map_err(raised)?;
    let format: Function = trepl.get("format").map_err(raised)?;
    match errors::call_traced(lua, &format, values) {
        Ok(Ok(v)) => match v.into_iter().next() {
            Some(mlua::Value::String(s)) => Ok(s.to_string_lossy().trim_end_matches(['\n', '\t']).to_string()),
            _ => Ok(String::new()),
        },
        Ok(Err(msg)) => Err(msg),
        Err(e) => Err(raised(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_cells_quote_any_command() {
        assert_eq!(shell_cell("ls"), "require('itorch')._shell([[ls]])");
        assert_eq!(shell_cell("echo ]]"), "require('itorch')._shell([=[echo ]]]=])");
        assert_eq!(shell_cell("x]"), "require('itorch')._shell([=[x]]=])");
        assert_eq!(shell_cell("a]=]"), "require('itorch')._shell([==[a]=]]==])");
    }
}
