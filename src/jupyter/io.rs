//! What a cell's Lua code reaches of the notebook: its output as `stream` messages (stdout and
//! stderr, sent at each newline and at the end of the cell), `io.read` as an input_request on
//! the stdin channel, and display_data for rich output. Served to Lua as `require
//! 'itorch.kernel'`; `lua/itorch/capture.lua` points print, io.write and the standard files at it.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use mlua::{FromLuaMulti, Function, IntoLuaMulti, Lua, LuaString, Table, Value as LuaValue};
use serde_json::{Map, Value, json};

use super::channels::{Flags, Publisher, TICK_MS, readable};
use super::wire::{Message, Signer, base64, child, decode, encode};

/// Past this size a stream is sent even without a newline, so a long line shows progress.
const STREAM_CHUNK: usize = 64 * 1024;

pub struct Io {
    pub publisher: Publisher,
    stdin: zmq::Socket,
    signer: Signer,
    flags: Arc<Flags>,
    /// The execute_request being run: the parent of every output.
    pub parent: Option<Message>,
    pub allow_stdin: bool,
    out: String,
    err: String,
}

impl Io {
    pub fn new(publisher: Publisher, stdin: zmq::Socket, signer: Signer, flags: Arc<Flags>) -> Io {
        Io {
            publisher,
            stdin,
            signer,
            flags,
            parent: None,
            allow_stdin: false,
            out: String::new(),
            err: String::new(),
        }
    }

    pub fn publish(&self, msg_type: &str, content: Value) {
        let msg = child(self.parent.as_ref(), msg_type, &self.publisher.session, content);
        self.publisher.publish(&msg);
    }

    fn send_stream(&self, name: &str, text: &str) {
        if !text.is_empty() {
            self.publish("stream", json!({ "name": name, "text": text }));
        }
    }

    fn write(&mut self, name: &str, text: &str) {
        let buffer = if name == "stderr" { &mut self.err } else { &mut self.out };
        buffer.push_str(text);
        let cut = if buffer.len() >= STREAM_CHUNK {
            Some(buffer.len())
        } else {
            buffer.rfind('\n').map(|i| i + 1)
        };
        if let Some(cut) = cut {
            let ready: String = buffer.drain(..cut).collect();
            self.send_stream(name, &ready);
        }
    }

    /// Sends what is buffered on both streams.
    pub fn flush(&mut self) {
        let (out, err) = (std::mem::take(&mut self.out), std::mem::take(&mut self.err));
        self.send_stream("stdout", &out);
        self.send_stream("stderr", &err);
    }

    fn display(&mut self, data: Value, metadata: Value, display_id: Option<String>, update: bool) {
        self.flush();
        let transient = display_id.map_or_else(|| json!({}), |id| json!({ "display_id": id }));
        let kind = if update { "update_display_data" } else { "display_data" };
        self.publish(
            kind,
            json!({ "data": data, "metadata": metadata, "transient": transient }),
        );
    }

    /// One line from the frontend: an input_request on stdin, answered by an input_reply.
    fn input(&mut self, prompt: &str, password: bool) -> Result<String, String> {
        self.flush();
        let Some(parent) = self.parent.clone() else {
            return Err("io.read: no cell is running".into());
        };
        if !self.allow_stdin {
            return Err(
                "io.read: this frontend does not take input (its execute_request has allow_stdin false)".into(),
            );
        }
        let request = child(
            Some(&parent),
            "input_request",
            &self.publisher.session,
            json!({ "prompt": prompt, "password": password }),
        );
        self.stdin
            .send_multipart(encode(&request, &self.signer), 0)
            .map_err(|e| format!("io.read: cannot ask the frontend: {e}"))?;
        loop {
            if crate::interrupt::pending() {
                return Err("interrupted".into());
            }
            if self.flags.shutdown.load(Ordering::SeqCst) {
                return Err("io.read: the kernel is shutting down".into());
            }
            if !readable(&self.stdin, TICK_MS) {
                continue;
            }
            let Ok(frames) = self.stdin.recv_multipart(0) else {
                continue;
            };
            match decode(frames, &self.signer) {
                Ok(reply) if reply.msg_type() == "input_reply" => {
                    return Ok(reply.content["value"].as_str().unwrap_or("").to_string());
                }
                Ok(other) => eprintln!("th kernel: stdin message {:?} ignored", other.msg_type()),
                Err(e) => eprintln!("th kernel: stdin message dropped: {e}"),
            }
        }
    }
}

/// A Lua value as JSON: strings, numbers, booleans and tables of them (a table with a [1] is an
/// array), to a bounded depth.
fn to_json(value: &LuaValue, depth: usize) -> Value {
    match value {
        LuaValue::String(s) => Value::String(s.to_string_lossy()),
        LuaValue::Integer(i) => json!(i),
        LuaValue::Number(n) => serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number),
        LuaValue::Boolean(b) => Value::Bool(*b),
        LuaValue::Table(t) if depth < 8 => {
            if t.raw_len() > 0 {
                Value::Array(
                    t.sequence_values::<LuaValue>()
                        .flatten()
                        .map(|v| to_json(&v, depth + 1))
                        .collect(),
                )
            } else {
                let mut map = Map::new();
                for (k, v) in t.pairs::<LuaValue, LuaValue>().flatten() {
                    if let LuaValue::String(k) = k {
                        map.insert(k.to_string_lossy(), to_json(&v, depth + 1));
                    }
                }
                Value::Object(map)
            }
        }
        _ => Value::Null,
    }
}

/// A Lua function over the kernel's `Io`.
fn with_io<A, R>(
    lua: &Lua,
    io: &Rc<RefCell<Io>>,
    f: impl Fn(&mut Io, A) -> mlua::Result<R> + 'static,
) -> mlua::Result<Function>
where
    A: FromLuaMulti,
    R: IntoLuaMulti,
{
    let io = io.clone();
    // calls: captures the kernel's Io, one per kernel state, with the function it serves.
    lua.create_function(move |_, args: A| f(&mut io.borrow_mut(), args))
}

/// `itorch.kernel.base64(bytes)`: the bytes in base64, as a notebook's image data.
fn base64_of(_: &Lua, bytes: LuaString) -> mlua::Result<String> {
    Ok(base64(&bytes.as_bytes()))
}

/// Registers `itorch.kernel`: write(name, text), flush(), input(prompt, password),
/// display(data, metadata[, display_id[, update]]), base64(bytes).
pub fn register(lua: &Lua, io: &Rc<RefCell<Io>>) -> mlua::Result<()> {
    let t: Table = lua.create_table()?;
    let write = |io: &mut Io, (name, text): (String, LuaString)| {
        io.write(&name, &text.to_string_lossy());
        Ok(())
    };
    t.set("write", with_io(lua, io, write)?)?;
    let flush = |io: &mut Io, ()| {
        io.flush();
        Ok(())
    };
    t.set("flush", with_io(lua, io, flush)?)?;
    let input = |io: &mut Io, (prompt, password): (Option<String>, Option<bool>)| {
        io.input(&prompt.unwrap_or_default(), password.unwrap_or(false))
            .map_err(mlua::Error::runtime)
    };
    t.set("input", with_io(lua, io, input)?)?;
    type Shown = (LuaValue, LuaValue, Option<String>, Option<bool>);
    let display = |io: &mut Io, (data, metadata, id, update): Shown| {
        let data = to_json(&data, 0);
        if !data.is_object() {
            return Err(mlua::Error::runtime(
                "display: data must be a table of mime type = text",
            ));
        }
        let metadata = match to_json(&metadata, 0) {
            m @ Value::Object(_) => m,
            _ => json!({}),
        };
        io.display(data, metadata, id, update.unwrap_or(false));
        Ok(())
    };
    t.set("display", with_io(lua, io, display)?)?;
    crate::calls::add(lua, &t, "base64", base64_of)?;
    let loaded: Table = lua.globals().get::<Table>("package")?.get("loaded")?;
    loaded.set("itorch.kernel", t)
}
