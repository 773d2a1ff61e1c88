"""nbclient executes tests/jupyter/small.ipynb with the kernel: a tensor result, a stream, an inline
PNG, and the notebook's language_info filled in."""

import base64
import os

import nbclient
import nbformat

from kernel import check, install_spec

install_spec()
here = os.path.dirname(os.path.abspath(__file__))
nb = nbformat.read(os.path.join(here, "small.ipynb"), as_version=4)
nbclient.NotebookClient(nb, kernel_name="luatorch", timeout=60, startup_timeout=60).execute()
check(nb.metadata["language_info"]["name"] == "lua", "language_info", nb.metadata)

tensor_cell, image_cell, sum_cell = nb.cells
kinds = [o.output_type for o in tensor_cell.outputs]
check(kinds == ["stream", "execute_result"], "the tensor cell's outputs", tensor_cell.outputs)
check(tensor_cell.outputs[0].text == "rows\t2\t\n", "its stream", tensor_cell.outputs)
text = tensor_cell.outputs[1].data["text/plain"]
check(" 1  2\n 3  4" in text and "DoubleTensor of size 2x2" in text, "the tensor", text)
check(tensor_cell.execution_count == 1, "its count", tensor_cell)

check([o.output_type for o in image_cell.outputs] == ["display_data"], "the image cell", image_cell.outputs)
png = base64.b64decode(image_cell.outputs[0].data["image/png"])
check(png[:8] == b"\x89PNG\r\n\x1a\n", "an inline PNG", png[:16])

check(sum_cell.outputs[0].text == "1 2 3 ", "a stream without a newline", sum_cell.outputs)
check(sum_cell.outputs[1].data["text/plain"] == "10", "the sum", sum_cell.outputs)
print("ok")
