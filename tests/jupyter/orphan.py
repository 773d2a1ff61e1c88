"""A frontend killed outright leaves no kernel: the kernel sees its parent (JPY_PARENT_PID) gone
and exits. A child python starts the kernel, prints its pid and kills itself with SIGKILL."""

import os
import subprocess
import sys
import time

from kernel import check

FRONTEND = """
import os, signal
from kernel import start
km, kc = start()
print(km.provisioner.process.pid, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""

child = subprocess.run([sys.executable, "-c", FRONTEND], capture_output=True, text=True, timeout=120)
check(child.returncode == -9, "the frontend killed itself", child.returncode, child.stderr)
pid = int(child.stdout.strip())
deadline = time.time() + 10
while time.time() < deadline:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        break
    # A zombie is gone too: its parent (init, here) reaps it.
    try:
        with open("/proc/%d/stat" % pid) as f:
            if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                break
    except OSError:
        break
    time.sleep(0.05)
else:
    os.kill(pid, 9)
    check(False, "the kernel outlived its frontend", pid)
print("ok")
