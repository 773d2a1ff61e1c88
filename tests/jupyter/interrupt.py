"""An endless loop stopped by the frontend's interrupt (SIGINT, interrupt_mode signal) and by an
interrupt_request on control; variables set before survive, and the kernel goes on."""

import time

from kernel import check, collect, result_text, run, shell_reply, start, stop

km, kc = start()
try:
    check(km.kernel_spec.interrupt_mode == "signal", "interrupt_mode", km.kernel_spec.interrupt_mode)
    run(kc, "kept = 42")
    msg_id = kc.execute("while true do end")
    time.sleep(1.5)
    km.interrupt_kernel()
    reply = shell_reply(kc, msg_id, timeout=20)["content"]
    collect(kc, msg_id)
    check(reply["status"] == "error" and reply["ename"] == "Interrupted", "interrupted cell", reply)
    reply, out = run(kc, "kept")
    check(result_text(out) == "42", "state kept after the interrupt", out)

    # By message: interrupt_request on control.
    msg_id = kc.execute("local n = 0 while true do n = n + 1 end")
    time.sleep(1.5)
    request = kc.session.msg("interrupt_request", {})
    kc.control_channel.send(request)
    control = kc.get_control_msg(timeout=20)
    check(control["msg_type"] == "interrupt_reply", "interrupt_reply", control)
    reply = shell_reply(kc, msg_id, timeout=20)["content"]
    collect(kc, msg_id)
    check(reply["status"] == "error", "interrupted by message", reply)
    reply, out = run(kc, "kept + 1")
    check(result_text(out) == "43", "still alive", out)
finally:
    stop(km, kc)
print("ok")
