#!/usr/bin/python3
"""gallop's metric (pipeline/perceptual.c) against scikit-image, pair by pair.

    quality-ref.py PERCEPT REF DIST [REF DIST]...

PERCEPT is bench/percept built against gallop's library: it prints a pair's
score, MS-SSIM and each scale's mean SSIM. For every pair this script makes
the same lightness planes in numpy (sRGB decoded exactly, Y of linear light,
each scale by 2x2 means of Y, L*/100), and
  - each scale's SSIM with skimage.metrics.structural_similarity (Gaussian
    window sigma 1.5, no sample covariance, data range 1: Wang et al.'s
    SSIM, the reference implementation most used in Python), and
  - MS-SSIM from scipy's Gaussian filter with the paper's weights,
and prints one line a pair and the largest differences. Exits 1 when any
scale's SSIM differs by more than 1e-4 or a score by more than 0.05 dB.
Needs Debian's python3-skimage (numpy, scipy)."""
import math
import subprocess
import sys

import numpy as np
from scipy.ndimage import gaussian_filter
from skimage.io import imread
from skimage.metrics import structural_similarity

WEIGHTS = [0.0448, 0.2856, 0.3001, 0.2363, 0.1333]
C1, C2 = 0.01 ** 2, 0.03 ** 2
SMALLEST = 16


def luminance(path):
    px = imread(path).astype(np.float64) / 255.0
    if px.ndim == 3 and px.shape[2] in (2, 4):
        px = px[..., :-1]
    lin = np.where(px <= 0.04045, px / 12.92, ((px + 0.055) / 1.055) ** 2.4)
    if lin.ndim == 2:
        return lin
    if lin.shape[2] == 1:
        return lin[..., 0]
    return 0.2126 * lin[..., 0] + 0.7152 * lin[..., 1] + 0.0722 * lin[..., 2]


def lightness(y):
    e, k = 216 / 24389, 24389 / 27
    return np.where(y > e, 116 * np.cbrt(y) - 16, k * y) / 100


def planes(y):
    out = []
    while len(out) < 5 and min(y.shape) >= SMALLEST:
        out.append(lightness(y))
        h, w = y.shape[0] // 2 * 2, y.shape[1] // 2 * 2
        y = y[:h, :w].reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))
    return out


def valid(m):
    return m[5:-5, 5:-5]


def window(x):
    return valid(gaussian_filter(x, 1.5, truncate=3.5, mode="reflect"))


def ms_ssim(xs, ys):
    terms = []
    for s, (x, y) in enumerate(zip(xs, ys)):
        mx, my = window(x), window(y)
        vx, vy, cov = window(x * x) - mx * mx, window(y * y) - my * my, window(x * y) - mx * my
        cs = (2 * cov + C2) / (vx + vy + C2)
        lum = (2 * mx * my + C1) / (mx * mx + my * my + C1)
        terms.append(max(0.0, (lum * cs).mean() if s == len(xs) - 1 else cs.mean()))
    weights = WEIGHTS[:len(terms)]
    total = sum(weights)
    return math.prod(t ** (w / total) for t, w in zip(terms, weights))


def main():
    percept, args = sys.argv[1], sys.argv[2:]
    worst_scale = worst_db = 0.0
    print("pair\tgallop dB\treference dB\tgallop MS-SSIM\treference MS-SSIM\t"
          "largest scale SSIM difference")
    for ref, dist in zip(args[0::2], args[1::2]):
        line = subprocess.run([percept, ref, dist], check=True, capture_output=True,
                              text=True).stdout.split("\t")
        score, ours, scales = float(line[1]), float(line[2]), [float(v) for v in line[4:]]
        xs, ys = planes(luminance(ref)), planes(luminance(dist))
        theirs = [structural_similarity(x, y, gaussian_weights=True, sigma=1.5,
                                        use_sample_covariance=False, data_range=1.0)
                  for x, y in zip(xs, ys)]
        reference = ms_ssim(xs, ys)
        ref_db = 60.0 if reference >= 1 else min(60.0, -10 * math.log10(1 - reference))
        scale_diff = max(abs(a - b) for a, b in zip(scales, theirs))
        worst_scale = max(worst_scale, scale_diff)
        worst_db = max(worst_db, abs(score - ref_db))
        print(f"{dist}\t{score:.3f}\t{ref_db:.3f}\t{ours:.6f}\t{reference:.6f}\t{scale_diff:.2e}")
    print(f"largest differences: scale SSIM {worst_scale:.2e}, score {worst_db:.4f} dB")
    return 0 if worst_scale <= 1e-4 and worst_db <= 0.05 else 1


if __name__ == "__main__":
    sys.exit(main())
