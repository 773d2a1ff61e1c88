#!/usr/bin/env python3
"""The peers of benches/image_ops.lua: the same operations on the same files with Pillow and
OpenCV (when installed), one thread. Writes the input files first (a 1024x768 picture as JPEG and
PNG) into DIR, which image_ops.lua then reads.

    python3 benches/image_pillow.py /tmp/imgbench && th benches/image_ops.lua /tmp/imgbench

Prints one line per operation: name, milliseconds (best of several runs) for each peer.
"""

import math
import os
import sys
import time

import numpy as np
from PIL import Image

try:
    import cv2
    cv2.setNumThreads(1)
except ImportError:
    cv2 = None

W, H = 1024, 768


def picture():
    y, x = np.mgrid[0:H, 0:W].astype(np.float64)
    r = 0.5 + 0.4 * np.sin(x / 37.0 + y / 53.0)
    g = 0.5 + 0.4 * np.cos(np.hypot(x - 500, y - 380) / 29.0)
    b = (x + y) / (W + H)
    img = np.stack([r, g, b], axis=2)
    return (np.clip(img, 0, 1) * 255).round().astype(np.uint8)


def best(f, runs=7):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times) * 1000


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else '/tmp/imgbench'
    os.makedirs(out, exist_ok=True)
    arr = picture()
    im = Image.fromarray(arr, 'RGB')
    jpg, png = os.path.join(out, 'bench.jpg'), os.path.join(out, 'bench.png')
    im.save(jpg, quality=75)
    im.save(png)
    tiles = [Image.fromarray(arr[i * 8:i * 8 + 32, i * 8:i * 8 + 32]) for i in range(64)]
    rows = {}

    def load(path):
        with Image.open(path) as f:
            f.load()
            return np.asarray(f)

    rows['load JPEG'] = (best(lambda: load(jpg)), cv2 and best(lambda: cv2.imread(jpg)))
    rows['load PNG'] = (best(lambda: load(png)), cv2 and best(lambda: cv2.imread(png)))
    tmpj, tmpp = os.path.join(out, 'out.jpg'), os.path.join(out, 'out.png')
    bgr = arr[:, :, ::-1].copy()
    rows['save JPEG'] = (best(lambda: im.save(tmpj, quality=75)),
                         cv2 and best(lambda: cv2.imwrite(tmpj, bgr, [cv2.IMWRITE_JPEG_QUALITY, 75])))
    rows['save PNG'] = (best(lambda: im.save(tmpp), 3), cv2 and best(lambda: cv2.imwrite(tmpp, bgr), 3))
    rows['scale bilinear 224x224'] = (best(lambda: im.resize((224, 224), Image.BILINEAR)),
                                      cv2 and best(lambda: cv2.resize(arr, (224, 224), interpolation=cv2.INTER_LINEAR)))
    rows['scale bicubic 224x224'] = (best(lambda: im.resize((224, 224), Image.BICUBIC)),
                                     cv2 and best(lambda: cv2.resize(arr, (224, 224), interpolation=cv2.INTER_CUBIC)))
    deg = 0.3 * 180 / math.pi
    m = cv2 and cv2.getRotationMatrix2D(((W - 1) / 2, (H - 1) / 2), deg, 1.0)
    rows['rotate bilinear'] = (best(lambda: im.rotate(deg, resample=Image.BILINEAR)),
                               cv2 and best(lambda: cv2.warpAffine(arr, m, (W, H), flags=cv2.INTER_LINEAR)))
    rows['rgb2yuv'] = (best(lambda: im.convert('YCbCr')),
                       cv2 and best(lambda: cv2.cvtColor(arr, cv2.COLOR_RGB2YUV)))
    k1 = np.exp(-0.5 * ((np.arange(1, 8) - 4) / (0.25 * 7)) ** 2)
    k7 = np.outer(k1, k1).astype(np.float32)
    f32 = arr.astype(np.float32) / 255
    rows['gaussian 7x7 convolve'] = (None, cv2 and best(lambda: cv2.filter2D(f32, -1, k7)))

    def grid():
        g = Image.new('RGB', (8 * 33, 8 * 33))
        for i, t in enumerate(tiles):
            g.paste(t, ((i % 8) * 33, (i // 8) * 33))
        return g
    rows['toDisplayTensor 64'] = (best(grid), None)

    for name, (pil, cv) in rows.items():
        fmt = lambda v: '-' if v is None else '%.2f' % v
        print('%-24s pillow %8s  opencv %8s' % (name, fmt(pil), fmt(cv)))


if __name__ == '__main__':
    main()
