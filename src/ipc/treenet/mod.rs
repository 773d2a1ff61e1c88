//! `ipc.treenet`: the socket allreduce of an ipc.Tree whose nodes do not share memory (other
//! machines), for the default sum of numbers and host tensors (lua/ipc/Tree.lua sets it up
//! beside its message sockets and uses it as it uses ipc.shmtree).
//!
//!    net, port = ipc.treenet(host)           -- listens on host, any free port
//!    net:connect(node, numNodes, addresses, parent, children [, timeout])
//!    net:allreduce(leaves) -> true (summed in place) | false (send this call over the messages)
//!    one = net:one()   one(x) -> as ipc.shmtree's (one number or tensor, one native call)
//!    net:close()
//!
//! `addresses[k] = {host = h, port = p}` is node k's treenet listener; `parent` (nil at the root)
//! and `children` (a list) are this node's in the tree. Each node links to the next on a ring
//! (k to k % n + 1) and to its parent, and accepts its ring predecessor and its children: every
//! link authenticated as ipc.client and ipc.server connections are (their handshake), then
//! named by a hello. `leaves` is as for ipc.shmtree (nil asks for the message sockets, and then
//! every node's call returns false). See algo.rs for the algorithms.
//!
//! A node that dies or leaves makes its neighbours' calls raise; a node whose call failed shuts
//! its links, so the failure reaches every node, and its later calls raise at once.

mod algo;
mod link;

use std::cell::RefCell;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::rc::Rc;
use std::time::{Duration, Instant};

use mlua::{Lua, Result, Table, UserData, UserDataMethods, Value};

use crate::args::error;
use crate::error::{Error, Named};
use crate::ipc::net::conn::Conn;
use crate::ipc::net::listener::Listener;
use crate::ipc::shmtree::calls::Native;
use algo::{Group, Wiring};
use link::Link;

const HELLO_MAGIC: u32 = u32::from_le_bytes(*b"ltTN");
const RING: u32 = 1;
const TREE: u32 = 2;

struct TreeNet {
    listener: RefCell<Option<Listener>>,
    native: Rc<Native<Group>>,
}

fn hello(node: usize, n: usize, role: u32) -> [u8; 16] {
    let mut b = [0u8; 16];
    for (i, x) in [HELLO_MAGIC, node as u32, role, n as u32].into_iter().enumerate() {
        b[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
    b
}

/// Links to `peer`'s listener at `host:port` as `role`.
fn link_out(
    node: usize,
    n: usize,
    peer: usize,
    role: u32,
    host: &str,
    port: u16,
    timeout: Duration,
) -> crate::error::Result<Link> {
    let conn = Conn::connect(host, port, timeout).map_err(|e| e.context(format!("linking to node {peer}")))?;
    let mut sock = conn.into_socket().ok_or_else(|| {
        Error::io(format!(
            "linking to node {peer}: the connection could not be taken over"
        ))
    })?;
    sock.set_write_timeout(Some(timeout))
        .and_then(|_| sock.write_all(&hello(node, n, role)))
        .and_then(|_| sock.set_write_timeout(None))
        .map_err(|e| Error::io(format!("linking to node {peer}: {e}")))?;
    Link::new(peer, sock)
}

/// The hello on an accepted link: (node, role), None when it is not one of this tree's.
fn read_hello(sock: &mut TcpStream, n: usize, deadline: Instant) -> Option<(usize, u32)> {
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(10));
    sock.set_read_timeout(Some(left)).ok()?;
    let mut b = [0u8; 16];
    sock.read_exact(&mut b).ok()?;
    sock.set_read_timeout(None).ok()?;
    let w = |i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap_or_default());
    (w(0) == HELLO_MAGIC && w(3) as usize == n).then(|| (w(1) as usize, w(2)))
}

fn address(addrs: &Table, k: usize) -> Result<(String, u16)> {
    const F: &str = "ipc.treenet:connect";
    let a: Table = addrs
        .raw_get(k)
        .map_err(|_| error(F, format!("no address for node {k}")))?;
    let host: String = a.get("host").map_err(|_| error(F, format!("no host for node {k}")))?;
    let port: u16 = a.get("port").map_err(|_| error(F, format!("no port for node {k}")))?;
    Ok((host, port))
}

impl TreeNet {
    #[allow(clippy::too_many_arguments)]
    fn connect(
        &self,
        node: usize,
        n: usize,
        addrs: &Table,
        parent: Option<usize>,
        children: Vec<usize>,
        timeout: Duration,
    ) -> Result<()> {
        const F: &str = "ipc.treenet:connect";
        if n < 2 || node == 0 || node > n {
            return Err(error(F, format!("node {node} of {n}: a group links 2 or more nodes")));
        }
        let listener = self
            .listener
            .borrow_mut()
            .take()
            .ok_or_else(|| error(F, "already connected"))?;
        let next = node % n + 1;
        let prev = (node + n - 2) % n + 1;
        let mut links = Vec::new();
        // Out first: a peer's listener authenticates on a thread of its own, so this never
        // waits for the peer's Lua code.
        let (h, p) = address(addrs, next)?;
        links.push(link_out(node, n, next, RING, &h, p, timeout).named(F)?);
        let parent_link = match parent {
            Some(pn) => {
                let (h, p) = address(addrs, pn)?;
                links.push(link_out(node, n, pn, TREE, &h, p, timeout).named(F)?);
                Some(links.len() - 1)
            }
            None => None,
        };
        // Then in: the ring's predecessor and the children, in any order.
        let mut want: Vec<(usize, u32)> = vec![(prev, RING)];
        want.extend(children.iter().map(|&c| (c, TREE)));
        let mut found: Vec<Option<usize>> = vec![None; want.len()];
        let deadline = Instant::now() + timeout;
        while found.iter().any(Option::is_none) {
            let conn = listener
                .accept(deadline)
                .map_err(|e| error(F, e.message()))?
                .ok_or_else(|| {
                    let missing: Vec<String> = want
                        .iter()
                        .zip(&found)
                        .filter(|(_, f)| f.is_none())
                        .map(|((k, _), _)| k.to_string())
                        .collect();
                    error(
                        F,
                        format!(
                            "node {node}: nodes {} did not link within {} s",
                            missing.join(", "),
                            timeout.as_secs_f64()
                        ),
                    )
                })?;
            let Some(mut sock) = conn.into_socket() else { continue };
            let Some(said) = read_hello(&mut sock, n, deadline) else {
                continue;
            };
            if let Some(i) = want.iter().position(|&w| w == said)
                && found[i].is_none()
            {
                links.push(Link::new(said.0, sock).named(F)?);
                found[i] = Some(links.len() - 1);
            }
        }
        let wiring = Wiring {
            next: 0,
            prev: found[0].unwrap_or(0),
            parent: parent_link,
            children: found[1..].iter().map(|f| f.unwrap_or(0)).collect(),
        };
        *self.native.group.borrow_mut() = Some(Group::new(node, n, links, wiring));
        Ok(())
    }
}

impl UserData for TreeNet {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method(
            "connect",
            |_,
             this,
             (node, n, addrs, parent, children, timeout): (
                usize,
                usize,
                Table,
                Option<usize>,
                Vec<usize>,
                Option<f64>,
            )| {
                let timeout = Duration::from_secs_f64(timeout.unwrap_or(30.0).clamp(0.1, 1e6));
                this.connect(node, n, &addrs, parent, children, timeout)
            },
        );
        m.add_method("allreduce", |_, this, leaves: Option<Table>| {
            this.native
                .allreduce("ipc.treenet:allreduce", "not connected, or closed", leaves)
        });
        m.add_method("one", |lua, this, ()| this.native.one_function(lua));
        m.add_method("close", |_, this, ()| {
            this.listener.borrow_mut().take();
            if let Some(g) = this.native.group.borrow_mut().take() {
                for l in &g.links {
                    l.shut();
                }
            }
            Ok(())
        });
    }
}

/// `ipc.treenet([host]) -> net, port`: listens on host (127.0.0.1 without one), any free port.
fn create(lua: &Lua, host: Option<String>) -> Result<(Value, u16)> {
    const F: &str = "ipc.treenet";
    let host = host.unwrap_or_else(|| "127.0.0.1".to_string());
    let listener = Listener::bind(&host, 0).named(F)?;
    let port = listener.port;
    let net = TreeNet {
        listener: RefCell::new(Some(listener)),
        native: Native::new(None),
    };
    Ok((Value::UserData(lua.create_userdata(net)?), port))
}

pub fn register(lua: &Lua, ipc: &Table) -> Result<()> {
    crate::calls::add(lua, ipc, "treenet", create)
}
