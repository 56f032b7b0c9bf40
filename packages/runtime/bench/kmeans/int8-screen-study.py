"""Would an int8 Gemm screen pay for K-means' full passes? A study, not part of the runtime.

onnxruntime's int8 MatMulIntegerToFloat, with the int8 centroids as a constant, runs a
100k x 128 x 1,000 product in ~50 ms against ~140 ms for the float32 Gemm on this machine. An
exact algorithm can use it only as a screen. Each point's int8 score is within a proven bound of its
exact squared distance. A point is settled when its nearest score plus the bound is below its second
score minus the bound; every other point must be re-run in float32.

This script runs exact Lloyd from the benchmark's init. For every iteration it prints the fraction
of points the screen could not settle. That uses the proven bound of Codebook's coding, uniform over
the centroids (what a nearest-two graph can use), and the per-centroid bound. It also prints what
an oracle that knew the true int8 errors would leave.

    cd packages/runtime
    npx tsx bench/kmeans/write-bench-data.ts --n 100000 --d 128 --k 1000 --blobs 2000 --seed 1 --out /tmp/conv
    OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 bench/kmeans/int8-screen-study.py /tmp/conv/points.npy /tmp/conv/init.npy

(about 2 minutes: it holds float64 n x k matrices.) Result on that data (2026-11-22): 53 / 33 /
12 / 6 % unsettled in iterations 1-4 with the uniform bound (the bound is ~6x the true error). A
prototype in the ORT kernel settled exactly those fractions with no label differing from float32.
Its screened pass took 296 / 272 / 176 / 162 ms against 210 / 182 / 193 / 185 ms for the float32
pass, plus ~140 ms once to code the points, so it was not kept (runtime CONTEXT.md, "Convergence").

Coding: points centred on their mean and coded per dimension, x - mu = s*q + e with q in
[-127, 127]. Centroids are coded per centroid, s*(c - mu) = t*r + rho. The score's error is at most
2(|q| |rho| + |e| |c - mu|) by Cauchy-Schwarz.
"""

import sys

import numpy as np


def sq_dist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a**2).sum(1)[:, None] - 2 * a @ b.T + (b**2).sum(1)[None, :]


def main() -> None:
    x = np.load(sys.argv[1]).astype(np.float64)
    c = np.load(sys.argv[2]).astype(np.float64)
    iterations = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    n, _ = x.shape
    k = c.shape[0]
    mu = x.mean(0)
    xc = x - mu
    s = np.abs(xc).max(0) / 127
    q = np.clip(np.round(xc / s), -127, 127)
    e = xc - q * s
    q_norm = np.linalg.norm(q, axis=1)
    e_norm = np.linalg.norm(e, axis=1)
    for it in range(1, iterations + 1):
        cc = c - mu
        exact = np.maximum(sq_dist(xc, cc), 0)
        w = cc * s
        t = np.abs(w).max(1) / 127
        r = np.clip(np.round(w / t[:, None]), -127, 127)
        rho_norm = np.linalg.norm(w - r * t[:, None], axis=1)
        c_norm = np.linalg.norm(cc, axis=1)
        score = (xc**2).sum(1)[:, None] + (cc**2).sum(1)[None, :] - 2 * (q @ r.T) * t[None, :]
        rows = np.arange(n)
        nearest = score.argmin(1)
        two = np.sort(score, 1)[:, :2]
        uniform = 2 * (q_norm * rho_norm.max() + e_norm * c_norm.max())
        pair = 2 * (q_norm[:, None] * rho_norm[None, :] + e_norm[:, None] * c_norm[None, :])
        upper = score[rows, nearest] + pair[rows, nearest]
        lower = score - pair
        lower[rows, nearest] = np.inf
        true_err = np.abs(score - exact).max(1)
        gap = np.diff(np.sort(exact, 1)[:, :2], axis=1)[:, 0]
        print(
            f"iteration {it}: unsettled with the uniform bound {(two[:, 1] - two[:, 0] <= 2 * uniform).mean():.3f}, "
            f"per-centroid bound {(lower.min(1) <= upper).mean():.3f}, "
            f"oracle {(gap <= 2 * true_err).mean():.3f}; "
            f"bound / true error {np.median(uniform / true_err):.1f}"
        )
        labels = exact.argmin(1)
        counts = np.bincount(labels, minlength=k)
        sums = np.zeros_like(c)
        np.add.at(sums, labels, x)
        c[counts > 0] = sums[counts > 0] / counts[counts > 0, None]


if __name__ == "__main__":
    main()
