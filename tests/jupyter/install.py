"""th --jupyter-install --prefix DIR writes a kernelspec that jupyter_client finds and can run."""

import os

from jupyter_client.kernelspec import KernelSpecManager

from kernel import TH, check, install_spec

prefix = install_spec()
spec = KernelSpecManager().get_kernel_spec("luatorch")
check(spec.display_name == "Torch (luatorch)", "display_name", spec.display_name)
check(spec.language == "lua", "language", spec.language)
check(spec.interrupt_mode == "signal", "interrupt_mode", spec.interrupt_mode)
check(spec.argv == [os.path.realpath(TH), "--jupyter-kernel", "{connection_file}"], "argv", spec.argv)
check(os.path.realpath(spec.resource_dir) ==
      os.path.realpath(os.path.join(prefix, "share/jupyter/kernels/luatorch")), "where", spec.resource_dir)
for size in (32, 64):
    with open(os.path.join(spec.resource_dir, "logo-%dx%d.png" % (size, size)), "rb") as f:
        head = f.read(24)
    check(head[:8] == b"\x89PNG\r\n\x1a\n", "a PNG logo", head)
    check(int.from_bytes(head[16:20], "big") == size, "its width", head)
check("luatorch" in KernelSpecManager().find_kernel_specs(), "listed")
print("ok")
