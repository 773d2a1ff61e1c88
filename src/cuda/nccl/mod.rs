//! `libnccl`: NCCL for Lua, under lua/nccl/init.lua (`require 'nccl'`); beside `cuda::lua` at the
//! top of `cuda`, on the device tensors of `family` and the devices of `device`.
//!
//! - `loader`: finds libnccl at run time and holds its functions;
//! - `operand`: a device tensor as the collectives see it (a flat range of device memory);
//! - `comm`: communicators and the collectives on device tensors;
//! - `meeting`: where the ranks of such communicators meet (a shared-memory segment);
//! - `shared`: communicators whose ranks may share a GPU, and `v1`: NCCL 1.x's C interface on
//!   them (our libnccl.so.1, for scripts that declare NCCL 1.x through LuaJIT's FFI);
//! - here: the Lua functions, with argument checks that name the Lua call.
//!
//! `require 'nccl'` works without NCCL and without a GPU; the library is looked for on first use.

pub mod comm;
pub mod loader;
pub mod meeting;
pub mod operand;
pub mod shared;
pub mod v1;

use std::time::Duration;

use mlua::{AnyUserData, Lua, MetaMethod, MultiValue, Result, Table, UserData, UserDataMethods, UserDataRefMut, Value};

use crate::args::{error, number, type_name};
use crate::calls;
use crate::error::Named;
use comm::{Communicator, Kind, parse_op};
use loader::UNIQUE_ID_BYTES;

const COMM: &str = "nccl.Communicator";

pub fn open(lua: &Lua) -> Result<Table> {
    let t = lua.create_table()?;
    calls::add(lua, &t, "available", available)?;
    calls::add(lua, &t, "version", version)?;
    calls::add(lua, &t, "uniqueId", unique_id)?;
    calls::add(lua, &t, "localUniqueId", local_unique_id)?;
    calls::add(lua, &t, "provideV1", provide_v1)?;
    calls::add(lua, &t, "communicator", communicator)?;
    calls::add(lua, &t, "localCommunicator", local_communicator)?;
    calls::add(lua, &t, "devices", devices)?;
    calls::add(lua, &t, "initAll", init_all)?;
    calls::add(lua, &t, "group", group)?;
    Ok(t)
}

/// `available() -> true, where | false, why`: whether libnccl can be loaded.
fn available(_: &Lua, (): ()) -> Result<(bool, String)> {
    Ok(match loader::nccl() {
        Ok(n) => (true, n.source.clone()),
        Err(e) => (false, e.to_string()),
    })
}

/// `version() -> code, text`
fn version(_: &Lua, (): ()) -> Result<(i32, String)> {
    let n = loader::nccl().named("nccl.version")?;
    let code = n.version().named("nccl.version")?;
    Ok((code, n.version_string()))
}

/// `uniqueId() -> idBytes`: NCCL's id, with the meeting key of `shared` in its unused tail (for
/// nccl.localCommunicator; NCCL never sees the tail).
fn unique_id(lua: &Lua, (): ()) -> Result<mlua::LuaString> {
    const F: &str = "nccl.uniqueId";
    let mut id = loader::nccl().named(F)?.unique_id().named(F)?;
    meeting::mark_id(&mut id).named(F)?;
    lua.create_string(id)
}

/// `localUniqueId() -> idBytes`: as uniqueId where NCCL is; without it only the meeting key,
/// which is all nccl.localCommunicator needs while every rank shares one GPU.
fn local_unique_id(lua: &Lua, (): ()) -> Result<mlua::LuaString> {
    const F: &str = "nccl.localUniqueId";
    let mut id = match loader::nccl() {
        Ok(n) => n.unique_id().named(F)?,
        Err(_) => [0; UNIQUE_ID_BYTES],
    };
    meeting::mark_id(&mut id).named(F)?;
    lua.create_string(id)
}

/// `provideV1() -> path | nil, why`: makes a bare ffi.load('libnccl.so.1') find our NCCL 1.x
/// library (see `v1`).
fn provide_v1(_: &Lua, (): ()) -> Result<(Option<String>, Option<String>)> {
    Ok(match v1::provide() {
        Ok(path) => (Some(path), None),
        Err(e) => (None, Some(e.message().to_string())),
    })
}

/// An integer argument, or an error naming the function and the argument.
fn integer(f: &str, pos: usize, what: &str, v: &Value) -> Result<i64> {
    match number(v) {
        Some(x) if x.fract() == 0.0 && x.abs() < 2f64.powi(53) => Ok(x as i64),
        _ => Err(error(
            f,
            format!(
                "bad argument #{pos} ({what}: an integer expected, got {})",
                describe_value(v)
            ),
        )),
    }
}

fn describe_value(v: &Value) -> String {
    match number(v) {
        Some(x) => format!("{x}"),
        None => type_name(v),
    }
}

fn seconds(f: &str, v: &Value) -> Result<Duration> {
    match number(v) {
        Some(s) if s > 0.0 && s.is_finite() && s < 1e9 => Ok(Duration::from_secs_f64(s)),
        _ => Err(error(
            f,
            format!(
                "nccl.timeout must be a positive number of seconds, got {}",
                describe_value(v)
            ),
        )),
    }
}

/// `communicator(nranks, idBytes, rank, device, timeout)`: rank 0-based, device 1-based.
fn communicator(_: &Lua, args: (Value, Value, Value, Value, Value)) -> Result<Communicator> {
    const F: &str = "nccl.communicator";
    let (nranks, id, rank, device, timeout) = communicator_args(F, args)?;
    let id = meeting::nccl_part(&id);
    Communicator::init_rank(nranks as i32, &id, rank as i32, device, timeout).named(F)
}

/// `localCommunicator(nranks, idBytes, rank, device, timeout)`: ranks of this machine, any
/// number of them per GPU (see `shared`).
fn local_communicator(_: &Lua, args: (Value, Value, Value, Value, Value)) -> Result<LocalCommunicator> {
    const F: &str = "nccl.localCommunicator";
    let (nranks, id, rank, device, timeout) = communicator_args(F, args)?;
    if meeting::key_of(&id).is_none() {
        return Err(error(
            F,
            "bad argument #2 (the unique id must come from nccl.uniqueId() of this th)",
        ));
    }
    let g = shared::Group::join(nranks as usize, &id, rank as usize, device, timeout).named(F)?;
    Ok(LocalCommunicator(Some(g)))
}

type CommArgs = (i64, [u8; UNIQUE_ID_BYTES], i64, usize, Duration);

/// The checked arguments of `communicator` and `localCommunicator`: device 0-based.
fn communicator_args(
    f: &str,
    (nranks, id, rank, device, timeout): (Value, Value, Value, Value, Value),
) -> Result<CommArgs> {
    let nranks = integer(f, 1, "nranks", &nranks)?;
    if !(1..=i32::MAX as i64).contains(&nranks) {
        return Err(error(
            f,
            format!("bad argument #1 (nranks must be at least 1, got {nranks})"),
        ));
    }
    let id: [u8; UNIQUE_ID_BYTES] = match &id {
        Value::String(s) if s.as_bytes().len() == UNIQUE_ID_BYTES => {
            let mut b = [0u8; UNIQUE_ID_BYTES];
            b.copy_from_slice(&s.as_bytes());
            b
        }
        Value::String(s) => {
            return Err(error(
                f,
                format!(
                    "bad argument #2 (a unique id has {UNIQUE_ID_BYTES} bytes, got a string of {})",
                    s.as_bytes().len()
                ),
            ));
        }
        v => {
            return Err(error(
                f,
                format!(
                    "bad argument #2 (an nccl.UniqueId expected (from nccl.uniqueId()), got {})",
                    type_name(v)
                ),
            ));
        }
    };
    let rank = integer(f, 3, "rank", &rank)?;
    if rank < 0 || rank >= nranks {
        return Err(error(
            f,
            format!(
                "bad argument #3 (rank must be in 0..{} for {nranks} ranks, got {rank})",
                nranks - 1
            ),
        ));
    }
    let device = integer(f, 4, "device", &device)?;
    if device < 1 {
        return Err(error(
            f,
            format!("bad argument #4 (device numbers start at 1, got {device})"),
        ));
    }
    let timeout = seconds(f, &timeout)?;
    Ok((nranks, id, rank, device as usize - 1, timeout))
}

/// `devices(fname, tensors)`: the (1-based) device of each tensor of a non-empty list, one tensor
/// per device, as nccl.torch's single-process calls need.
fn devices(_: &Lua, (f, list): (String, Value)) -> Result<Vec<usize>> {
    let list = tensor_list(&f, "inputs", 1, &list)?;
    let mut out: Vec<usize> = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        let o = comm::operand(&format!("inputs[{}]", i + 1), v).named(&f)?;
        if let Some(j) = out.iter().position(|&d| d == o.device + 1) {
            return Err(error(
                &f,
                format!(
                    "inputs[{}] and inputs[{}] are both on device {}: one tensor per device",
                    j + 1,
                    i + 1,
                    o.device + 1
                ),
            ));
        }
        out.push(o.device + 1);
    }
    Ok(out)
}

/// The values of a Lua list argument (a non-empty table with entries 1..n).
fn tensor_list(f: &str, name: &str, pos: usize, v: &Value) -> Result<Vec<Value>> {
    let Value::Table(t) = v else {
        return Err(error(
            f,
            format!(
                "bad argument #{pos} ({name}: a table of CUDA tensors, one per device, expected, got {})",
                type_name(v)
            ),
        ));
    };
    let list: Vec<Value> = t.sequence_values::<Value>().collect::<Result<_>>()?;
    if list.is_empty() {
        return Err(error(f, format!("bad argument #{pos} ({name} is empty)")));
    }
    Ok(list)
}

/// `initAll(fname, devices, timeout)`: one communicator per (1-based) device.
fn init_all(lua: &Lua, (f, devices, timeout): (String, Vec<i64>, Value)) -> Result<Table> {
    let timeout = seconds(&f, &timeout)?;
    let devs: Vec<usize> = devices.iter().map(|&d| d.max(1) as usize - 1).collect();
    let comms = Communicator::init_all(&devs, timeout).named(&f)?;
    let t = lua.create_table()?;
    for c in comms {
        t.raw_push(c)?;
    }
    Ok(t)
}

/// `group(fname, kind, comms, inputs, outputs, op, root, sync)`: nccl.torch's single-process call,
/// one collective per device in one NCCL group; `root` is an index into `inputs` (1-based); with
/// `sync` it waits for the devices to finish.
#[allow(clippy::type_complexity)]
fn group(
    _: &Lua,
    (f, kind, comms, inputs, outputs, op, root, sync): (String, String, Table, Value, Value, Value, Value, bool),
) -> Result<()> {
    let kind = Kind::from_name(&kind).ok_or_else(|| error(&f, format!("unknown collective {kind}")))?;
    let inputs = tensor_list(&f, "inputs", 1, &inputs)?;
    let outputs = match &outputs {
        Value::Nil if kind.needs_recv() => {
            return Err(error(
                &f,
                "bad argument #2 (outputs: a table of CUDA tensors is needed)",
            ));
        }
        Value::Nil => None,
        v => {
            let list = tensor_list(&f, "outputs", 2, v)?;
            if list.len() != inputs.len() {
                return Err(error(
                    &f,
                    format!(
                        "{} outputs for {} inputs: there must be one per input",
                        list.len(),
                        inputs.len()
                    ),
                ));
            }
            Some(list)
        }
    };
    let op = op_arg(&f, &op)?;
    let root = match root {
        Value::Nil => 0,
        v => match number(&v) {
            Some(r) if r.fract() == 0.0 && r >= 1.0 && r <= inputs.len() as f64 => r as i32 - 1,
            _ => {
                return Err(error(
                    &f,
                    format!(
                        "root must be an index into inputs (1..{}), got {}",
                        inputs.len(),
                        describe_value(&v)
                    ),
                ));
            }
        },
    };
    let mut refs: Vec<UserDataRefMut<Communicator>> = Vec::with_capacity(inputs.len());
    for c in comms.sequence_values::<AnyUserData>() {
        refs.push(c?.borrow_mut::<Communicator>()?);
    }
    if refs.len() != inputs.len() {
        return Err(error(&f, "internal error: one communicator per input expected"));
    }
    let mut calls = Vec::with_capacity(inputs.len());
    for (i, c) in refs.iter().enumerate() {
        let in_label = format!("inputs[{}]", i + 1);
        let out_label = format!("outputs[{}]", i + 1);
        let recv = outputs.as_ref().map(|o| (out_label.as_str(), &o[i]));
        let call = c.prepare(kind, (&in_label, &inputs[i]), recv, op, root).named(&f)?;
        calls.push(call);
    }
    for (i, call) in calls.iter().enumerate().skip(1) {
        if !call.same_shape(&calls[0]) {
            return Err(error(
                &f,
                format!(
                    "inputs[{}] differs from inputs[1] in type or size: all must be alike",
                    i + 1
                ),
            ));
        }
    }
    let mut comms: Vec<&mut Communicator> = refs.iter_mut().map(|r| &mut **r).collect();
    comm::run_group(&mut comms, &calls).named(&f)?;
    if sync {
        for call in &calls {
            call.synchronize().named(&f)?;
        }
    }
    Ok(())
}

fn op_arg(f: &str, v: &Value) -> Result<std::ffi::c_int> {
    match v {
        Value::Nil => Ok(0),
        Value::String(s) => parse_op(&s.to_string_lossy()).named(f),
        v => Err(error(
            f,
            format!(
                "the reduction must be a string (sum, prod, max, min or avg), got {}",
                type_name(v)
            ),
        )),
    }
}

/// A communicator method's arguments after `self`: the send tensor, then in any order of type an
/// output tensor, a reduction name and a root rank, each where the collective takes one.
fn collective<C: Collectives>(comm: &mut C, kind: Kind, f: &str, args: MultiValue) -> Result<()> {
    let mut args = args.into_iter();
    let send = args.next().unwrap_or(Value::Nil);
    if send.is_nil() {
        return Err(error(f, "bad argument #1 (send: a CUDA tensor expected, got no value)"));
    }
    let (mut recv, mut op, mut root) = (None, None, None);
    for (i, v) in args.enumerate() {
        let pos = i + 2;
        match &v {
            Value::Nil => {}
            Value::String(_) if kind.takes_op() && op.is_none() => op = Some(op_arg(f, &v)?),
            Value::Number(_) | Value::Integer(_) if kind.takes_root() && root.is_none() => {
                let r = integer(f, pos, "root", &v)?;
                if r < 0 || r >= comm.size() as i64 {
                    return Err(error(
                        f,
                        format!(
                            "bad argument #{pos} (root must be a rank in 0..{}, got {r})",
                            comm.size() - 1
                        ),
                    ));
                }
                root = Some(r as i32);
            }
            Value::UserData(_) | Value::Table(_) if recv.is_none() && op.is_none() && root.is_none() => {
                recv = Some(v.clone())
            }
            _ => {
                let expected = match (kind.takes_op(), kind.takes_root()) {
                    (true, true) => "an output tensor, a reduction name or a root rank",
                    (true, false) => "an output tensor or a reduction name",
                    (false, true) => "an output tensor or a root rank",
                    (false, false) => "an output tensor",
                };
                return Err(error(
                    f,
                    format!("bad argument #{pos} ({expected} expected, got {})", describe_value(&v)),
                ));
            }
        }
    }
    let call = comm
        .prepare_call(
            kind,
            ("send", &send),
            recv.as_ref().map(|r| ("recv", r)),
            op.unwrap_or(0),
            root.unwrap_or(0),
        )
        .named(f)?;
    comm.run_call(&call).named(f)
}

/// What `collective` needs of a communicator.
trait Collectives {
    fn size(&self) -> i32;
    fn prepare_call(
        &self,
        kind: Kind,
        send: (&str, &Value),
        recv: Option<(&str, &Value)>,
        op: std::ffi::c_int,
        root: i32,
    ) -> crate::error::Result<comm::Call>;
    fn run_call(&mut self, call: &comm::Call) -> crate::error::Result<()>;
}

impl Collectives for Communicator {
    fn size(&self) -> i32 {
        self.nranks
    }
    fn prepare_call(
        &self,
        kind: Kind,
        send: (&str, &Value),
        recv: Option<(&str, &Value)>,
        op: std::ffi::c_int,
        root: i32,
    ) -> crate::error::Result<comm::Call> {
        self.prepare(kind, send, recv, op, root)
    }
    fn run_call(&mut self, call: &comm::Call) -> crate::error::Result<()> {
        self.run(call)
    }
}

/// The five collectives as methods of a communicator type named `class`.
fn add_collectives<C: Collectives + UserData + 'static, M: UserDataMethods<C>>(m: &mut M, class: &str) {
    for name in ["allReduce", "reduce", "bcast", "allGather", "reduceScatter"] {
        let kind = Kind::from_name(name).expect("a collective's name");
        let f = format!("{class}:{name}");
        m.add_method_mut(name, move |_, c, args: MultiValue| collective(c, kind, &f, args));
    }
}

/// `nccl.localCommunicator`'s communicators (None once destroyed).
pub struct LocalCommunicator(Option<shared::Group>);

const LOCAL: &str = "nccl.LocalCommunicator";

impl LocalCommunicator {
    fn group(&self) -> crate::error::Result<&shared::Group> {
        self.0
            .as_ref()
            .ok_or_else(|| crate::error::Error::argument("the communicator was destroyed"))
    }
}

impl Collectives for LocalCommunicator {
    fn size(&self) -> i32 {
        self.0.as_ref().map_or(0, |g| g.nranks as i32)
    }
    fn prepare_call(
        &self,
        kind: Kind,
        send: (&str, &Value),
        recv: Option<(&str, &Value)>,
        op: std::ffi::c_int,
        root: i32,
    ) -> crate::error::Result<comm::Call> {
        let g = self.group()?;
        let version = loader::nccl().and_then(|n| n.version()).unwrap_or(0);
        comm::check_call(
            g.nranks as i32,
            g.rank as i32,
            g.device,
            version,
            kind,
            send,
            recv,
            op,
            root,
        )
    }
    fn run_call(&mut self, call: &comm::Call) -> crate::error::Result<()> {
        let g = self
            .0
            .as_mut()
            .ok_or_else(|| crate::error::Error::argument("the communicator was destroyed"))?;
        g.run(call).map_err(|(_, e)| e)
    }
}

impl UserData for LocalCommunicator {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        add_collectives(m, LOCAL);
        m.add_method_mut("destroy", |_, c, ()| {
            if let Some(mut g) = c.0.take() {
                g.destroy();
            }
            Ok(())
        });
        m.add_method("rank", |_, c, ()| Ok(c.group().named(&format!("{LOCAL}:rank"))?.rank));
        m.add_method("size", |_, c, ()| Ok(c.group().named(&format!("{LOCAL}:size"))?.nranks));
        m.add_method("device", |_, c, ()| {
            Ok(c.group().named(&format!("{LOCAL}:device"))?.device + 1)
        });
        m.add_method("isDestroyed", |_, c, ()| Ok(c.0.is_none()));
        m.add_meta_method(MetaMethod::ToString, |_, c, ()| {
            Ok(match &c.0 {
                Some(g) => format!("{LOCAL}: rank {} of {} on device {}", g.rank, g.nranks, g.device + 1),
                None => format!("{LOCAL} (destroyed)"),
            })
        });
    }
}

impl UserData for Communicator {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        add_collectives(m, COMM);
        m.add_method_mut("destroy", |_, c, ()| c.destroy().named(&format!("{COMM}:destroy")));
        m.add_method_mut("abort", |_, c, ()| {
            c.abort();
            Ok(())
        });
        m.add_method("rank", |_, c, ()| Ok(c.rank));
        m.add_method("size", |_, c, ()| Ok(c.nranks));
        m.add_method("device", |_, c, ()| Ok(c.device + 1));
        m.add_method("isDestroyed", |_, c, ()| Ok(!c.is_live()));
        m.add_meta_method(MetaMethod::ToString, |_, c, ()| {
            let state = if c.is_live() { "" } else { " (destroyed)" };
            Ok(format!(
                "{COMM}: rank {} of {} on device {}{state}",
                c.rank,
                c.nranks,
                c.device + 1
            ))
        });
    }
}
