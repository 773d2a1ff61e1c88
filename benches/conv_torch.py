#!/usr/bin/env python3
"""PyTorch's side of examples/bench_conv.lua: the same operands (sin of the element index),
float32, one thread, the same timing rule (median of REPEATS calls after a warm-up).

torch.conv2(x, k, 'V') is F.conv2d(x, k.flip) with no padding; 'F' pads by the kernel size - 1;
xcorr2 does not flip. conv3 the same with conv3d. The summed form (planes x kernels) is one
conv2d with as many output channels.

Usage: conv_torch.py [REPEATS]
"""

import sys
import time

import torch
import torch.nn.functional as F

REPEATS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
torch.set_num_threads(1)


def wave(*size):
    n = 1
    for s in size:
        n *= s
    return torch.sin(torch.arange(1, n + 1, dtype=torch.float64)).float().view(*size)


def median(f):
    f()
    times = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[(REPEATS + 1) // 2 - 1] * 1000


def conv(n, x, k, mode, flip, summed=False):
    """Torch7's conv2/conv3 (flip) or xcorr2/xcorr3 of one image (or planes, summed) with one
    kernel (or a set)."""
    op = F.conv2d if n == 2 else F.conv3d
    if flip:
        k = k.flip(list(range(k.dim() - n, k.dim())))
    pad = [s - 1 for s in k.shape[-n:]] if mode == 'F' else 0
    if summed:
        return lambda: op(x.unsqueeze(0), k, padding=pad)[0]
    x4 = x.view(1, 1, *x.shape)
    k4 = k.view(1, 1, *k.shape)
    return lambda: op(x4, k4, padding=pad)[0, 0]


image = wave(256, 256)
volume = wave(32, 64, 64)
planes = wave(16, 64, 64)
cases = [
    ('conv2 256x256 * 5x5 V', conv(2, image, wave(5, 5), 'V', True)),
    ('conv2 256x256 * 5x5 F', conv(2, image, wave(5, 5), 'F', True)),
    ('conv2 256x256 * 11x11 V', conv(2, image, wave(11, 11), 'V', True)),
    ('conv2 256x256 * 11x11 F', conv(2, image, wave(11, 11), 'F', True)),
    ('xcorr2 256x256 * 11x11 V', conv(2, image, wave(11, 11), 'V', False)),
    ('conv3 32x64x64 * 5x5x5 V', conv(3, volume, wave(5, 5, 5), 'V', True)),
    ('conv3 32x64x64 * 5x5x5 F', conv(3, volume, wave(5, 5, 5), 'F', True)),
    ('conv2 16x64x64 * 32x16x5x5 V', conv(2, planes, wave(32, 16, 5, 5), 'V', True, summed=True)),
]
with torch.no_grad():
    for name, f in cases:
        ms = median(f)
        print('%-30s %9.3f ms   sum %.6g' % (name, ms, f().double().sum().item()))
