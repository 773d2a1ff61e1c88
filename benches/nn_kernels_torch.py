#!/usr/bin/env python3
"""PyTorch's side of examples/bench_nn_kernels.lua: the same passes, sizes, thread count and
timing rule (median seconds of one forward + backward after a warm-up), float32.

Usage: nn_kernels_torch.py THREADS STEPS
"""

import sys
import time

import torch
import torch.nn as nn

THREADS = int(sys.argv[1]) if len(sys.argv) > 1 else 1
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 50
torch.set_num_threads(THREADS)
torch.manual_seed(1)


def median(f):
    for _ in range(3):
        f()
    times = []
    for _ in range(STEPS):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[(STEPS + 1) // 2 - 1]


def module(name, m, inp):
    inp = inp.requires_grad_()
    g = torch.randn(inp.shape)

    def step():
        inp.grad = None
        m.zero_grad()
        m(inp).backward(g)

    print(f"{name}\t{median(step):.6f}")


def criterion(name, c, inp, target):
    inp = inp.requires_grad_()

    def step():
        inp.grad = None
        c(inp, target).backward()

    print(f"{name}\t{median(step):.6f}")


classes = torch.tensor([(i * 7) % 1000 for i in range(1, 257)])
print("case\tseconds")
module("softmax 256x1000", nn.Softmax(dim=1), torch.randn(256, 1000))
module("logsoftmax 256x1000", nn.LogSoftmax(dim=1), torch.randn(256, 1000))
module("spatial_softmax 16x32x32x32", nn.Softmax(dim=1), torch.randn(16, 32, 32, 32))
module("batchnorm 256x1024", nn.BatchNorm1d(1024), torch.randn(256, 1024))
module("spatial_batchnorm 32x64x32x32", nn.BatchNorm2d(64), torch.randn(32, 64, 32, 32))
criterion("mse 256x1024", nn.MSELoss(), torch.randn(256, 1024), torch.randn(256, 1024))
criterion("smoothl1 256x1024", nn.SmoothL1Loss(), torch.randn(256, 1024), torch.randn(256, 1024))
criterion("bce 256x1024", nn.BCELoss(), torch.rand(256, 1024) * 0.9 + 0.05, torch.rand(256, 1024))
criterion("classnll 256x1000", nn.NLLLoss(), torch.randn(256, 1000), classes)
criterion("crossentropy 256x1000", nn.CrossEntropyLoss(), torch.randn(256, 1000), classes)
