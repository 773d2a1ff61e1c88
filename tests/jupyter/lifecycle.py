"""A message with a wrong signature (and frames that are not a message) is dropped, not run, and
the kernel still answers; shutdown ends the kernel process by itself, status 0."""

import os
import time

from jupyter_client.session import Session

from kernel import check, result_text, run, start

km, kc = start()
alive = True
try:
    forged = Session(key=b"not-the-key", username="intruder")
    msg = forged.msg("execute_request", {"code": "forged = 'ran'", "silent": False, "store_history": True,
                                         "user_expressions": {}, "allow_stdin": False, "stop_on_error": True})
    forged.send(kc.shell_channel.socket, msg)
    kc.shell_channel.socket.send_multipart([b"<IDS|MSG>", b"junk", b"{", b"}", b"[]", b"nope"])
    kc.shell_channel.socket.send_multipart([b"no delimiter"])
    time.sleep(1)
    reply, out = run(kc, "forged")
    check(reply["status"] == "ok" and result_text(out) == "nil", "the forged cell did not run", out)

    proc = km.provisioner.process
    pid = proc.pid
    started = time.time()
    reply = kc.shutdown(reply=True, timeout=30)
    check(reply["content"]["status"] == "ok", "shutdown_reply", reply)
    code = proc.wait(timeout=10)
    check(code == 0, "the kernel exits 0 by itself", code)
    check(time.time() - started < 5, "it exits promptly", time.time() - started)
    alive = False
    try:
        os.kill(pid, 0)
        check(False, "the kernel's process is still there")
    except ProcessLookupError:
        pass
finally:
    kc.stop_channels()
    if alive:
        km.shutdown_kernel(now=True)
    km.cleanup_resources()
print("ok")
