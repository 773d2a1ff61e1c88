//! The allreduce trees (lua/ipc/Tree.lua and its constructors) across real `th` processes on
//! loopback: sums over 4 processes (numbers, tensors, tables walked in key order, custom reduce
//! functions, uneven numbers of steps with `allReduce(nil, reduce, zero)`), scatter, trees of
//! 1, 2, 3, 5 and 7 nodes in several bases, StaticTree, a stale discovery file, a node that dies
//! (exits, or is killed, also in the middle of an allreduce), the shared-memory path (every tensor
//! type, uneven and chunked sizes, sums in node order, no leftovers in /dev/shm) and the same
//! checks on the socket paths (the socket allreduce's ring and pipelined tree on 2, 3, 5 and 7
//! nodes, and the message sockets alone), a dead node on each path,
//! SlurmTree under a private Slurm (`srun -n 4 th ...`, one and two nodes),
//! examples/ipc_allreduce.lua both ways, and torch-ipc's test_Tree layout (nodes in ipc.map threads).
//!
//! The Lua side of each test is tests/lua/ipc/tree_*.lua; every node prints `ok` when all its
//! checks passed (a `FAILED <check>: <message>` line on stderr otherwise). Each `th` is killed
//! after common::TIMEOUT; the scripts set ipc.connecttimeout and ipc.accepttimeout to 20 s so a
//! broken set-up fails on its own first.

mod common;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::slurm::Slurm;
use common::sshd::{free_port, run_cmd};
use common::{Output, lua_dir, run_th, run_th_in, th_path};

/// A discovery key no other test (or run) uses.
fn unique_key(name: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "luatorch-tree-{}-{name}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// Runs `th ipc/<script> <args(node)>` for nodes 1..=n at the same time; their outputs in node order.
fn run_nodes(script: &str, n: usize, args: impl Fn(usize) -> Vec<String>) -> Vec<Output> {
    run_nodes_on(script, n, "shm", args)
}

fn describe(outs: &[Output]) -> String {
    outs.iter()
        .enumerate()
        .map(|(i, o)| format!("--- node {} (status {:?})\n{}{}", i + 1, o.status, o.stdout, o.stderr))
        .collect()
}

fn assert_all_ok(outs: &[Output], what: &str) {
    let ok = outs.iter().all(|o| o.status == Some(0) && o.stdout.ends_with("ok\n"));
    assert!(ok, "{what}: not every node passed\n{}", describe(outs));
}

/// tree_allreduce.lua on n nodes found through LocalhostTree with `key`, in `base`.
fn allreduce(n: usize, base: usize, key: &str) -> Vec<Output> {
    run_nodes("tree_allreduce.lua", n, |node| {
        vec![node.to_string(), n.to_string(), key.to_string(), base.to_string()]
    })
}

#[test]
fn shapes_walk_nulltree_and_bounded_failures() {
    let out = run_th(&["ipc/tree_unit.lua"]);
    assert!(
        out.status == Some(0) && out.stdout.ends_with("ok\n"),
        "tree_unit.lua failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
}

#[test]
fn tree_nodes_in_map_threads() {
    // torch-ipc's own test_Tree layout: the root in the main thread, the other nodes in ipc.map threads.
    let out = run_th(&["ipc/tree_threads.lua"]);
    assert!(
        out.status == Some(0) && out.stdout.ends_with("ok\n"),
        "tree_threads.lua failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
}

#[test]
fn allreduce_across_four_processes() {
    let key = unique_key("four");
    assert_all_ok(&allreduce(4, 2, &key), "4 nodes, base 2");
    assert!(
        !Path::new(&format!("/tmp/{key}.localhost")).exists(),
        "the discovery file was left behind"
    );
}

#[test]
fn allreduce_with_the_parent_pid_as_key() {
    // LocalhostTree's default key: the nodes' parent, this test process (no other test uses it).
    assert_all_ok(&allreduce(3, 2, "ppid"), "3 nodes keyed by their parent's pid");
}

#[test]
fn trees_of_any_size() {
    for (n, base) in [(1, 2), (2, 2), (3, 2), (5, 2), (7, 2), (5, 3), (7, 3), (7, 4), (3, 8)] {
        let key = unique_key(&format!("n{n}b{base}"));
        assert_all_ok(&allreduce(n, base, &key), &format!("{n} nodes, base {base}"));
    }
}

#[test]
fn static_tree() {
    // The root's port is fixed in advance; another program may take it in between, so a root
    // that cannot listen is retried on another port.
    for attempt in 0..5 {
        let port = free_port().to_string();
        let outs = run_nodes("tree_allreduce.lua", 4, |node| {
            vec![node.to_string(), "4".into(), "static".into(), "2".into(), port.clone()]
        });
        if attempt < 4 && outs[0].stderr.contains("cannot listen") {
            continue;
        }
        assert_all_ok(&outs, "StaticTree, 4 nodes");
        return;
    }
}

#[test]
fn a_stale_discovery_file_is_passed_over() {
    // torch-ipc left /tmp/<ppid>.localhost behind, and the next run with that key connected to a
    // dead port for 5 minutes. Both forms of stale file: torch-ipc's (no pid) and ours with the pid
    // of a process that has exited.
    let dead = {
        let s = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        s.local_addr().unwrap().port()
    };
    let mut exited = std::process::Command::new("true").spawn().unwrap();
    let exited_pid = exited.id();
    exited.wait().unwrap();
    for content in [
        format!("127.0.0.1:{dead}\n"),
        format!("127.0.0.1:{dead}\n{exited_pid}\n"),
    ] {
        let key = unique_key("stale");
        let file = format!("/tmp/{key}.localhost");
        std::fs::write(&file, &content).unwrap();
        let outs = allreduce(3, 2, &key);
        let _ = std::fs::remove_file(&file);
        assert_all_ok(&outs, &format!("3 nodes after a stale file {content:?}"));
    }
}

/// The root's pid, from the "pid N" line its script writes on stderr.
fn root_pid(outs: &[Output]) -> Option<u32> {
    outs.iter()
        .flat_map(|o| o.stderr.lines())
        .find_map(|l| l.strip_prefix("pid ").and_then(|p| p.trim().parse().ok()))
}

/// Names in /dev/shm that a tree whose root was `pid` left behind.
fn leftovers(pid: u32) -> Vec<String> {
    let prefix = format!("luatorch-tree-{pid}-");
    std::fs::read_dir("/dev/shm")
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.starts_with(&prefix))
                .collect()
        })
        .unwrap_or_default()
}

/// tree_dead.lua on 4 nodes on `path`, node 4 leaving `how`: every other node raises, naming
/// it, and nothing is left in /dev/shm.
fn dead_node(how: &str, status: Option<i32>, path: &str) {
    let key = unique_key(&format!("dead-{how}-{path}"));
    let outs = run_nodes_on("tree_dead.lua", 4, path, |node| {
        vec![node.to_string(), "4".into(), key.clone(), how.into()]
    });
    let what = format!("{how} on {path}");
    assert_eq!(
        outs[3].status,
        status,
        "{what}: node 4 should have left\n{}",
        describe(&outs)
    );
    for (i, o) in outs[..3].iter().enumerate() {
        assert!(
            o.status == Some(0) && o.stdout.starts_with("raised: ipc.Tree.allReduce: node"),
            "{what}: node {} should have raised from allReduce\n{}",
            i + 1,
            describe(&outs)
        );
    }
    // On the shared-memory path every node names the one that died; over the sockets, at least
    // the ones next to it.
    assert!(
        outs[..3].iter().any(|o| o.stdout.contains("node 4")),
        "{what}: no node named the dead one\n{}",
        describe(&outs)
    );
    let pid = root_pid(&outs).expect("the root printed its pid");
    assert_eq!(leftovers(pid), Vec::<String>::new(), "left in /dev/shm");
}

#[test]
fn a_node_that_dies_makes_the_others_raise() {
    dead_node("exit", Some(3), "shm");
}

#[test]
fn a_node_killed_makes_the_others_raise_on_the_shared_memory_path() {
    // SIGKILL: the status is None (killed by a signal).
    dead_node("kill", None, "shm");
    dead_node("midway", None, "shm");
}

#[test]
fn a_node_that_dies_makes_the_others_raise_on_every_socket_path() {
    for path in ["ring", "tree", "sockets"] {
        dead_node("exit", Some(3), path);
        dead_node("kill", None, path);
        dead_node("midway", None, path);
    }
}

/// The environment that puts a tree on `path` (see tree_shm.lua): "shm", "ring", "tree" or
/// "sockets".
fn path_env(path: &str) -> Vec<(String, String)> {
    let pairs: &[(&str, &str)] = match path {
        "shm" => &[],
        "ring" => &[("LUATORCH_TREE_SHM", "0"), ("LUATORCH_TREE_ALGO", "ring")],
        "tree" => &[("LUATORCH_TREE_SHM", "0"), ("LUATORCH_TREE_ALGO", "tree")],
        "sockets" => &[("LUATORCH_TREE_SHM", "0"), ("LUATORCH_TREE_NET", "0")],
        p => panic!("no path {p}"),
    };
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// Runs `script` on nodes 1..=n with `args(node)` and the environment of `path`.
fn run_nodes_on(script: &str, n: usize, path: &str, args: impl Fn(usize) -> Vec<String>) -> Vec<Output> {
    let handles: Vec<_> = (1..=n)
        .map(|node| {
            let mut a = vec![format!("ipc/{script}")];
            a.extend(args(node));
            let env = path_env(path);
            std::thread::spawn(move || {
                let a: Vec<&str> = a.iter().map(String::as_str).collect();
                let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                run_th_in(&lua_dir(), &a, "", &env)
            })
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("a node's runner panicked"))
        .collect()
}

/// tree_shm.lua on n nodes on `path`.
fn shm_checks(n: usize, path: &str) {
    let key = unique_key(&format!("{path}{n}"));
    let outs = run_nodes_on("tree_shm.lua", n, path, |node| {
        vec![node.to_string(), n.to_string(), key.clone(), path.to_string()]
    });
    assert_all_ok(&outs, &format!("tree_shm.lua on {n} nodes, {path}"));
    let pid = root_pid(&outs).expect("the root printed its pid");
    assert_eq!(leftovers(pid), Vec::<String>::new(), "left in /dev/shm");
}

#[test]
fn shared_memory_allreduce_on_2_3_5_7_nodes() {
    for n in [2, 3, 5, 7] {
        shm_checks(n, "shm");
    }
}

#[test]
fn the_same_checks_over_the_message_sockets() {
    shm_checks(4, "sockets");
}

#[test]
fn the_same_checks_over_the_socket_ring() {
    for n in [2, 3, 5, 7] {
        shm_checks(n, "ring");
    }
}

#[test]
fn the_same_checks_over_the_pipelined_socket_tree() {
    for n in [2, 3, 5, 7] {
        shm_checks(n, "tree");
    }
}

/// Runs `srun -N nodes -n tasks th ipc/tree_slurm.lua DIR` on `slurm`; checks every task's line.
fn slurm_allreduce(slurm: &Slurm, nodes: usize, tasks: usize) {
    let dir = common::temp_dir(&format!("tree-slurm-{nodes}-{tasks}"));
    let th = th_path();
    let out = slurm.srun(
        &[
            &format!("--nodes={nodes}"),
            &format!("--ntasks={tasks}"),
            "--kill-on-bad-exit=1",
            th.to_str().unwrap(),
            "ipc/tree_slurm.lua",
            dir.to_str().unwrap(),
        ],
        &lua_dir(),
        Duration::from_secs(90),
    );
    let report = format!(
        "srun status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status, out.stdout, out.stderr
    );
    assert_eq!(out.status, Some(0), "{report}");
    let sum = tasks * (tasks + 1) / 2;
    for p in 0..tasks {
        let line = format!("task {p} of {tasks}: ok sum {sum}");
        assert!(out.stdout.lines().any(|l| l == line), "no line {line:?}\n{report}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn slurm_tree_under_srun() {
    let Some(slurm) = Slurm::start("tree1", 1) else { return };
    slurm_allreduce(&slurm, 1, 4);
    // Another job right after: nothing left over from the first gets in its way.
    slurm_allreduce(&slurm, 1, 3);

    // The example, as its header says to run it (the address file goes to $HOME/.torch).
    let home = common::temp_dir("tree-slurm-example-home");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ipc_allreduce.lua");
    let mut cmd = slurm.command("srun");
    cmd.args(["--ntasks=4", "--kill-on-bad-exit=1"])
        .arg(th_path())
        .arg(&example)
        .args(["slurm", "1000"])
        .env("HOME", &home)
        .current_dir(&home);
    let out = run_cmd(&mut cmd, Duration::from_secs(90));
    assert!(
        out.status == Some(0) && out.stdout.contains("batch 6: 1 contributors") && out.stdout.contains("4 nodes"),
        "the example under srun failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn the_example_on_one_machine() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ipc_allreduce.lua");
    let out = run_th(&[example.to_str().unwrap(), "3", "1000"]);
    assert!(
        out.status == Some(0) && out.stdout.contains("batch 5: 1 contributors") && out.stdout.contains("3 nodes"),
        "the example failed (status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
}

#[test]
fn slurm_tree_across_two_nodes() {
    // Two slurmd on this host: the tasks of each "node" form a subtree, joined by their first tasks.
    let Some(slurm) = Slurm::start("tree2", 2) else { return };
    slurm_allreduce(&slurm, 2, 5);
}
