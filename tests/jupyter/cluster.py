"""The cluster from a notebook: a cell does require 'cluster' and hands a task to a running
cluster's engine; an interrupt stops a long wait on it, not the task or the cluster, and a later
cell takes the result."""

import os
import subprocess
import tempfile
import time

from kernel import TH, check, collect, result_text, run, shell_reply, start, stop

THCLUSTER = os.environ["THCLUSTER"]
os.environ["LUATORCH_CLUSTER_DIR"] = tempfile.mkdtemp(prefix="luatorch-jupyter-cluster-")
profile = "nb%d" % os.getpid()


def thcluster(*args):
    return subprocess.run([THCLUSTER, *args, "--profile", profile], capture_output=True, text=True, timeout=60)


started = thcluster("start", "-n", "1", "--daemonize", "--th", TH)
check(started.returncode == 0, "thcluster start", started.stdout, started.stderr)
try:
    km, kc = start()
    try:
        reply, out = run(kc, "c = require('cluster').client('%s')\nc:wait_for_engines(1, 30)\n"
                             "lbv = c:load_balanced_view()\nlbv:map(function(x) return x * 2 end, {21})[1]"
                         % profile, timeout=60)
        check(reply["status"] == "ok" and result_text(out) == "42", "a task from a cell", reply, out)

        run(kc, "ar = lbv:map(function(x) local t = os.time() while os.time() - t < 4 do end return x end,"
                " {7}, {block = false})")
        msg_id = kc.execute("ar:wait()")
        time.sleep(1)
        km.interrupt_kernel()
        reply = shell_reply(kc, msg_id, timeout=20)["content"]
        collect(kc, msg_id)
        check(reply["status"] == "error", "the wait was interrupted", reply)
        reply, out = run(kc, "ar:get()[1]", timeout=60)
        check(reply["status"] == "ok" and result_text(out) == "7", "the task went on", reply, out)
    finally:
        stop(km, kc)
finally:
    stopped = thcluster("stop")
    check(stopped.returncode == 0, "thcluster stop", stopped.stdout, stopped.stderr)
print("ok")
