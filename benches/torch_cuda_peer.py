"""What the PyTorch peers of the GPU benchmarks share (imported from beside them)."""

import sys


def cuda_torch():
    """PyTorch with a CUDA device, or exits after printing why there is none (the th side then
    reports the peer as n/a)."""
    try:
        import torch
    except ImportError:
        print("PyTorch is not installed")
        sys.exit(0)
    if not torch.cuda.is_available():
        print("PyTorch sees no CUDA device")
        sys.exit(0)
    return torch


def int_arg(i, default):
    """Command-line argument i as an integer, or the default."""
    return int(sys.argv[i]) if len(sys.argv) > i else default


def median(times):
    times = sorted(times)
    return times[(len(times) + 1) // 2 - 1]
