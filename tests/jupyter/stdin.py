"""io.read in a cell asks the frontend (input_request on stdin) when allow_stdin is set, and fails
at once when it is not."""

from kernel import check, collect, run, shell_reply, start, stop, stream_text

km, kc = start()
try:
    msg_id = kc.execute("local s = io.read()\nprint('got ' .. s)\nlocal n = io.stdin:read('*n')\nprint(n * 2)",
                        allow_stdin=True)
    for answer in ("abc", "21"):
        request = kc.get_stdin_msg(timeout=30)
        check(request["msg_type"] == "input_request", "input_request", request)
        check(request["parent_header"]["msg_id"] == msg_id, "its parent", request)
        kc.input(answer)
    out = collect(kc, msg_id)
    reply = shell_reply(kc, msg_id)["content"]
    check(reply["status"] == "ok", "stdin cell", reply, out)
    check(stream_text(out) == "got abc\t\n42\t\n", "what was read", out)

    reply, out = run(kc, "io.read()", allow_stdin=False)
    check(reply["status"] == "error" and "allow_stdin" in reply["evalue"], "no stdin", reply)
finally:
    stop(km, kc)
print("ok")
