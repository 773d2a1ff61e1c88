"""Rich output: itorch.image of a tensor and of a table of tensors, image.display and a gnuplot plot
as inline PNGs (display_data image/png, base64), itorch.html as text/html; tensors still print as
text/plain results."""

import base64
import shutil

from kernel import check, of_type, result_text, run, start, stop


def pngs(outputs):
    shown = []
    for d in of_type(outputs, "display_data"):
        data = base64.b64decode(d["data"]["image/png"])
        check(data[:8] == b"\x89PNG\r\n\x1a\n", "a PNG", data[:16])
        check("text/plain" in d["data"], "text/plain beside it", d)
        shown.append((int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big"), d["metadata"]))
    return shown


km, kc = start()
try:
    reply, out = run(kc, "itorch.image(torch.rand(3, 16, 24))")
    check(reply["status"] == "ok", "itorch.image", reply, out)
    shown = pngs(out)
    check(len(shown) == 1 and shown[0][:2] == (24, 16), "one 24x16 PNG", shown)
    check(shown[0][2]["image/png"] == {"width": 24, "height": 16}, "its size in the metadata", shown)

    reply, out = run(kc, "itorch.image({torch.rand(1, 8, 8), torch.rand(1, 8, 8)})")
    shown = pngs(out)
    # Two 8x8 images side by side, each with image.toDisplayTensor's padding of 2.
    check(len(shown) == 1 and shown[0][:2] == (20, 10), "a grid", shown)

    reply, out = run(kc, "require 'image'\nimage.display{image = torch.rand(3, 10, 10), zoom = 2}")
    shown = pngs(out)
    check(reply["status"] == "ok" and len(shown) == 1 and shown[0][2]["image/png"]["width"] == 20,
          "image.display inline", shown, out)

    reply, out = run(kc, "id = itorch.html('<b>bold</b>')")
    html = of_type(out, "display_data")
    check(len(html) == 1 and html[0]["data"]["text/html"] == "<b>bold</b>", "html", out)

    reply, out = run(kc, "torch.range(1, 3)")
    check("1\n 2\n 3" in result_text(out), "a tensor as text", out)

    if shutil.which("gnuplot"):
        reply, out = run(kc, "require 'gnuplot'\ngnuplot.plot(torch.range(1, 10))\ngnuplot.title('ten')")
        check(reply["status"] == "ok", "gnuplot cell", reply, out)
        shown = pngs(out)
        check(len(shown) == 1 and shown[0][:2] == (640, 480), "one inline plot", shown, out)
        reply, out = run(kc, "1")
        check(not pngs(out), "the figure is not shown again", out)
    else:
        print("gnuplot missing: inline plots not checked")
finally:
    stop(km, kc)
print("ok")
