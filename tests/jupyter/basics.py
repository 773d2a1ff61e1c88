"""kernel_info; cells with a stream, a result (a tensor too), an error; execution counts;
stop_on_error aborting the queued cell; completion; is_complete; inspect; history; comm_info."""

from kernel import check, of_type, result_text, run, shell_reply, start, stop, stream_text

km, kc = start()
try:
    info = kc.kernel_info(reply=True, timeout=30)["content"]
    check(info["protocol_version"] == "5.3", "protocol_version", info)
    check(info["implementation"] == "luatorch", "implementation", info)
    li = info["language_info"]
    check(li["name"] == "lua" and li["mimetype"] == "text/x-lua" and li["file_extension"] == ".lua", "language_info", li)
    check(li["version"].startswith("2."), "LuaJIT's version", li)

    reply, out = run(kc, "print('hello', 42)\nio.write('a', 1)\nio.stderr:write('warn\\n')")
    check(reply["status"] == "ok", "print cell", reply, out)
    check(stream_text(out) == "hello\t42\t\na1", "stdout stream", out)
    check(stream_text(out, "stderr") == "warn\n", "stderr stream", out)
    inputs = of_type(out, "execute_input")
    check(len(inputs) == 1 and inputs[0]["execution_count"] == reply["execution_count"], "execute_input", out)
    first = reply["execution_count"]

    reply, out = run(kc, "x = 20\nreturn x + 1")
    check(reply["status"] == "ok" and reply["execution_count"] == first + 1, "count goes up", reply)
    check(result_text(out) == "21", "result", out)
    check(of_type(out, "execute_result")[0]["execution_count"] == first + 1, "result's count", out)

    reply, out = run(kc, "y = 5\ny * 2")
    check(result_text(out) == "10", "a cell's last line is its value", out)
    reply, out = run(kc, "y = 6\ny;")
    check(reply["status"] == "ok" and not of_type(out, "execute_result"), "a trailing ; keeps it quiet", out)
    reply, out = run(kc, "y = 7\nerror('at two')")
    check("stdin:2:" in reply["evalue"], "line numbers kept", reply)

    reply, out = run(kc, "$ echo shell]] && echo err >&2")
    check(reply["status"] == "ok" and stream_text(out) == "shell]]\nerr\n", "a $ cell's output", out)

    reply, out = run(kc, "torch.Tensor(2, 3):fill(1)")
    text = result_text(out)
    check("DoubleTensor of size 2x3" in text and "1  1  1" in text, "a tensor prints as in the REPL", text)

    reply, out = run(kc, "x", silent=True)
    check(reply["status"] == "ok" and not of_type(out, "execute_result"), "silent", reply, out)

    reply, out = run(kc, "local function f() error('boom') end\nf()")
    check(reply["status"] == "error" and reply["ename"] == "LuaError", "error reply", reply)
    check("boom" in reply["evalue"], "evalue", reply)
    check(any("stack traceback" in line for line in reply["traceback"]), "traceback", reply)
    errors = of_type(out, "error")
    check(len(errors) == 1 and "boom" in errors[0]["evalue"], "error on iopub", out)

    # stop_on_error: a cell sent behind a failing one is aborted, not run.
    # (The failing cell runs half a second, so the second is waiting when it fails.)
    failing = kc.execute("local t = os.clock() while os.clock() - t < 0.5 do end error('first')")
    queued = kc.execute("ran_after_error = true")
    check(shell_reply(kc, failing)["content"]["status"] == "error", "failing cell")
    check(shell_reply(kc, queued)["content"]["status"] == "aborted", "queued cell aborted")
    reply, out = run(kc, "ran_after_error")
    check(result_text(out) == "nil", "the aborted cell did not run", out)

    c = kc.complete("x = torch.Ten", 13, reply=True, timeout=30)["content"]
    check("Tensor" in c["matches"] and c["cursor_start"] == 10 and c["cursor_end"] == 13, "completion", c)
    c = kc.complete("string.fo", 9, reply=True, timeout=30)["content"]
    check(c["matches"] == ["format"] and c["cursor_start"] == 7, "field completion", c)

    def is_complete(code):
        return shell_reply(kc, kc.is_complete(code))["content"]
    check(is_complete("for i = 1, 2 do")["status"] == "incomplete", "incomplete")
    check(is_complete("for i = 1, 2 do")["indent"] == "  ", "indent")
    check(is_complete("x = 1")["status"] == "complete", "complete")
    check(is_complete("x + 1")["status"] == "complete", "expression complete")
    check(is_complete("x = = 1")["status"] == "invalid", "invalid")

    i = kc.inspect("print", 3, reply=True, timeout=30)["content"]
    check(i["found"] and "print" in i["data"]["text/plain"], "inspect", i)
    i = kc.inspect("no_such_name", 3, reply=True, timeout=30)["content"]
    check(not i["found"], "inspect of nothing", i)
    h = kc.history(reply=True, timeout=30)["content"]
    check(h["status"] == "ok" and h["history"] == [], "history", h)
    ci = kc.comm_info(reply=True, timeout=30)["content"]
    check(ci["status"] == "ok" and ci["comms"] == {}, "comm_info", ci)
finally:
    stop(km, kc)
print("ok")
