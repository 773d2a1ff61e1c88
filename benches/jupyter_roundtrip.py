"""The round trip of an empty cell through jupyter_client: execute_request sent to execute_reply
received and the idle status seen, for th's kernel (luatorch) and for ipykernel (python3) side by
side, each kernel started once and warmed up first. Not a test: it prints the medians.

    python3 -m pip install jupyter_client ipykernel
    TH=target/release/th python3 benches/jupyter_roundtrip.py [ROUNDS]

The luatorch kernelspec is written by `$TH --jupyter-install --prefix` into a temporary directory;
ipykernel's is its own (`python3 -m ipykernel install --user` if `python3` is not listed by
`jupyter kernelspec list`). A kernel that is not there is skipped with a line saying so."""

import os
import queue
import statistics
import subprocess
import sys
import tempfile
import time

from jupyter_client import KernelManager
from jupyter_client.kernelspec import NoSuchKernel

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 200


def round_trip(kc):
    started = time.perf_counter()
    msg_id = kc.execute("", store_history=False)
    idle = replied = False
    while not (idle and replied):
        if not replied:
            try:
                reply = kc.get_shell_msg(timeout=0.001)
                replied = reply["parent_header"].get("msg_id") == msg_id
            except queue.Empty:
                pass
        if not idle:
            try:
                m = kc.get_iopub_msg(timeout=0.001)
                idle = (m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "status"
                        and m["content"]["execution_state"] == "idle")
            except queue.Empty:
                pass
    return time.perf_counter() - started


def bench(name):
    try:
        km = KernelManager(kernel_name=name)
        km.start_kernel()
    except NoSuchKernel:
        print("%-10s skipped: no kernelspec %r" % (name, name))
        return None
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        for _ in range(20):
            round_trip(kc)
        times = [round_trip(kc) for _ in range(ROUNDS)]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)
    median = statistics.median(times) * 1e3
    print("%-10s median %.3f ms, p90 %.3f ms over %d empty cells"
          % (name, median, sorted(times)[int(len(times) * 0.9)] * 1e3, ROUNDS))
    return median


th = os.environ.get("TH")
if th:
    prefix = tempfile.mkdtemp(prefix="luatorch-bench-")
    subprocess.run([th, "--jupyter-install", "--prefix", prefix], check=True, stdout=subprocess.DEVNULL)
    os.environ["JUPYTER_PATH"] = os.path.join(prefix, "share", "jupyter") + os.pathsep + os.environ.get("JUPYTER_PATH", "")
ours = bench("luatorch") if th else print("luatorch   skipped: set TH to the th binary")
peer = bench("python3")
if ours and peer:
    print("luatorch / ipykernel: %.2f" % (ours / peer))
