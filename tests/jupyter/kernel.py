"""Shared helpers for the kernel tests: a kernelspec written by `th --jupyter-install --prefix`
into a fresh directory (found through JUPYTER_PATH), a kernel started by jupyter_client's
KernelManager, and cells run with every wait bounded."""

import os
import queue
import subprocess
import sys
import tempfile
import time

try:
    from jupyter_client import KernelManager
except ImportError:
    sys.stderr.write("python3's jupyter_client is missing: python3 -m pip install jupyter_client nbclient nbformat\n")
    sys.exit(3)

TH = os.environ["TH"]
WAIT = 30


def check(cond, what, *shown):
    if not cond:
        raise AssertionError(what + "".join("\n  " + repr(s) for s in shown))


def install_spec():
    """Writes the kernelspec under a fresh prefix and points Jupyter at it; returns the prefix."""
    prefix = tempfile.mkdtemp(prefix="luatorch-jupyter-")
    subprocess.run([TH, "--jupyter-install", "--prefix", prefix], check=True, timeout=WAIT,
                   stdout=subprocess.DEVNULL)
    os.environ["JUPYTER_PATH"] = os.path.join(prefix, "share", "jupyter")
    return prefix


def start():
    install_spec()
    km = KernelManager(kernel_name="luatorch")
    km.start_kernel(cwd=os.getcwd())
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc


def stop(km, kc):
    kc.stop_channels()
    km.shutdown_kernel(now=False)
    check(not km.is_alive(), "the kernel is still alive after shutdown")


def collect(kc, msg_id, timeout=WAIT):
    """The iopub messages of one request up to its idle status (status messages left out)."""
    deadline = time.time() + timeout
    out = []
    while True:
        left = deadline - time.time()
        check(left > 0, "no idle status within %ss" % timeout, out)
        try:
            m = kc.get_iopub_msg(timeout=left)
        except queue.Empty:
            continue
        if m["parent_header"].get("msg_id") != msg_id:
            continue
        if m["msg_type"] == "status":
            if m["content"]["execution_state"] == "idle":
                return out
            continue
        out.append(m)


def shell_reply(kc, msg_id, timeout=WAIT):
    deadline = time.time() + timeout
    while True:
        left = deadline - time.time()
        check(left > 0, "no shell reply within %ss" % timeout)
        m = kc.get_shell_msg(timeout=left)
        if m["parent_header"].get("msg_id") == msg_id:
            return m


def run(kc, code, timeout=WAIT, **kw):
    """Runs a cell; returns (reply content, iopub messages)."""
    msg_id = kc.execute(code, **kw)
    outputs = collect(kc, msg_id, timeout)
    return shell_reply(kc, msg_id, timeout)["content"], outputs


def of_type(outputs, t):
    return [m["content"] for m in outputs if m["msg_type"] == t]


def stream_text(outputs, name="stdout"):
    return "".join(c["text"] for c in of_type(outputs, "stream") if c["name"] == name)


def result_text(outputs):
    results = of_type(outputs, "execute_result")
    check(len(results) == 1, "one execute_result expected", outputs)
    return results[0]["data"]["text/plain"]
