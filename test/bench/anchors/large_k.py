"""Time scikit-learn's Lloyd and FAISS at large k for a few iterations and project to more.
Prints one JSON object.

    /usr/bin/python3 large_k.py points.npy init.npy TIMED_ITERS [--skip-faiss]

At k = 20,000 one Lloyd iteration of either costs n·k·d multiply-adds whatever the iteration
(neither prunes), so only TIMED_ITERS iterations are timed; large-k.sh multiplies the mean
per iteration to the iterations Codebook ran and says "projected".
scikit-learn: KMeans(init=<given>, n_init=1, max_iter=TIMED_ITERS, tol=0, algorithm="lloyd").
Unless its labels stopped changing, scikit-learn 1.2 runs one more full E-step after its loop
(`_kmeans_single_lloyd`: "rerun E-step so that predicted labels match cluster centers"), as
costly as an iteration (n·k·d), so an iteration is fit time / (n_iter + 1): with 2 timed
iterations, fit time / n_iter would overstate it by 1.5 × (this script did so before 2026-11-25
23:30 UTC).
FAISS: Kmeans(niter=TIMED_ITERS) from the given centroids, every point used (no subsampling).
Both use all cores through OpenMP. --skip-faiss times scikit-learn only (the k = 100,000 target
compares against scikit-learn alone; FAISS there would cost another ~10 minutes).
"""

import json
import sys
import time

import numpy as np


def main() -> None:
    points_path, init_path = sys.argv[1], sys.argv[2]
    timed = int(sys.argv[3])
    skip_faiss = "--skip-faiss" in sys.argv[4:]
    x = np.ascontiguousarray(np.load(points_path), dtype=np.float32)
    c0 = np.ascontiguousarray(np.load(init_path), dtype=np.float32)
    n, d = x.shape
    k = c0.shape[0]
    report = {"n": n, "d": d, "k": k, "timedIterations": timed}

    from sklearn.cluster import KMeans

    km = KMeans(n_clusters=k, init=c0, n_init=1, max_iter=timed, tol=0, algorithm="lloyd")
    t0 = time.perf_counter()
    km.fit(x)
    seconds = time.perf_counter() - t0
    # Stopping before max_iter means no label changed (tol = 0): then there is no extra E-step.
    passes = int(km.n_iter_) + (1 if km.n_iter_ >= timed else 0)
    per = seconds / max(1, passes)
    report["sklearn"] = {
        "timedSeconds": round(seconds, 3),
        "n_iter": int(km.n_iter_),
        "lloydPasses": passes,
        "msPerIteration": round(1000 * per),
    }

    if skip_faiss:
        report["faiss"] = None
        print(json.dumps(report))
        return

    import faiss

    fk = faiss.Kmeans(d, k, niter=timed, verbose=False, seed=1, min_points_per_centroid=1, max_points_per_centroid=n)
    t0 = time.perf_counter()
    fk.train(x, init_centroids=c0)
    seconds = time.perf_counter() - t0
    report["faiss"] = {
        "version": faiss.__version__,
        "timedSeconds": round(seconds, 3),
        "msPerIteration": round(1000 * seconds / timed),
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
