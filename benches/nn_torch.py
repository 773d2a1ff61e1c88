#!/usr/bin/env python3
"""PyTorch's side of examples/bench_nn.lua: the same networks, batches, thread count and timing
rule (median seconds per forward + backward + sgd step after a warm-up).

Usage: nn_torch.py THREADS STEPS
"""

import sys
import time

import torch
import torch.nn as nn

THREADS = int(sys.argv[1]) if len(sys.argv) > 1 else 1
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 50
torch.set_num_threads(THREADS)
torch.manual_seed(1)


def mlp():
    return nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                         nn.Linear(1024, 10), nn.LogSoftmax(dim=1)), torch.randn(128, 784), 128


def lenet():
    return nn.Sequential(nn.Conv2d(3, 6, 5), nn.ReLU(), nn.MaxPool2d(2, 2),
                         nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
                         nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                         nn.Linear(84, 10), nn.LogSoftmax(dim=1)), torch.randn(64, 3, 32, 32), 64


def bench(name, build):
    model, inp, batch = build()
    target = torch.tensor([i % 10 for i in range(1, batch + 1)])
    criterion = nn.NLLLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        opt.zero_grad()
        loss = criterion(model(inp), target)
        loss.backward()
        opt.step()

    for _ in range(3):
        step()
    times = []
    for _ in range(STEPS):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    times.sort()
    print(f"{name}\t{times[(STEPS + 1) // 2 - 1]:.6f}")


print("net\tseconds/step")
bench("mlp", mlp)
bench("lenet", lenet)
