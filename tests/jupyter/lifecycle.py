"""A message with a wrong signature (and frames that are not a message) is dropped, not run, and
the kernel still answers; requests with odd contents do not kill it; a restart gives a fresh
state on the same ports; shutdown ends the kernel process by itself, status 0."""

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

    # Requests with contents of the wrong kinds get answers or are ignored; nothing panics.
    odd = [
        ("execute_request", {"code": 42, "silent": "yes", "allow_stdin": None}),
        ("execute_request", {}),
        ("complete_request", {"code": "é torch.Ten", "cursor_pos": 10**9}),
        ("complete_request", {"code": None, "cursor_pos": -3}),
        ("inspect_request", {"code": "\u00e9\u00e9", "cursor_pos": 1}),
        ("is_complete_request", {"code": ["not", "text"]}),
        ("history_request", {"hist_access_type": "search", "pattern": None}),
        ("no_such_request", {"x": 1}),
    ]
    for msg_type, content in odd:
        kc.shell_channel.send(kc.session.msg(msg_type, content))
    time.sleep(1)
    reply, out = run(kc, "kept_alive = 1\nkept_alive + 1")
    check(reply["status"] == "ok" and result_text(out) == "2", "alive after odd requests", reply, out)

    # A restart: same ports, a fresh state.
    run(kc, "before_restart = 1")
    km.restart_kernel(now=False)
    kc.wait_for_ready(timeout=60)
    reply, out = run(kc, "before_restart")
    check(reply["status"] == "ok" and result_text(out) == "nil", "a fresh state after restart", out)
    check(reply["execution_count"] == 1, "the count starts again", reply)

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
