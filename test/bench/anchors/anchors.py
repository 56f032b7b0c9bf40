"""Time scikit-learn's and FAISS's K-means (Lloyd) on the same data and initial centroids as
Codebook's kernel bench. Prints one JSON object.

    /usr/bin/python3 anchors.py points.npy init.npy ITERS

scikit-learn: KMeans(init=<given>, n_init=1, max_iter=ITERS, tol=0, algorithm="lloyd"); it stops
early only if no label changes (reported as n_iter), and runs one extra assignment after the
loop, so ms/iteration = fit time / n_iter slightly overstates its per-iteration cost.
FAISS: Kmeans(niter=ITERS) trained from the given centroids, every point used (no subsampling).
Both use all cores through OpenMP (set OMP_NUM_THREADS to change).
"""

import json
import sys
import time

import numpy as np


def main() -> None:
    points_path, init_path, iters = sys.argv[1], sys.argv[2], int(sys.argv[3])
    x = np.ascontiguousarray(np.load(points_path), dtype=np.float32)
    c0 = np.ascontiguousarray(np.load(init_path), dtype=np.float32)
    n, d = x.shape
    k = c0.shape[0]
    report = {"n": n, "d": d, "k": k, "iters": iters}

    import faiss
    from sklearn import __version__ as sklearn_version
    from sklearn.cluster import KMeans

    # Which BLAS kernels the anchors got (OpenBLAS "Prescott" means the slow generic ones).
    try:
        from threadpoolctl import threadpool_info

        report["threadpools"] = [
            {key: pool.get(key) for key in ("internal_api", "architecture", "num_threads")} for pool in threadpool_info()
        ]
    except ImportError:
        pass

    km = KMeans(n_clusters=k, init=c0, n_init=1, max_iter=iters, tol=0, algorithm="lloyd")
    t0 = time.perf_counter()
    km.fit(x)
    elapsed = time.perf_counter() - t0
    report["sklearn"] = {
        "version": sklearn_version,
        "seconds": round(elapsed, 3),
        "n_iter": int(km.n_iter_),
        "msPerIteration": round(1000 * elapsed / max(1, km.n_iter_)),
        "inertia": float(km.inertia_),
    }

    fk = faiss.Kmeans(d, k, niter=iters, verbose=False, seed=1, min_points_per_centroid=1, max_points_per_centroid=n)
    t0 = time.perf_counter()
    fk.train(x, init_centroids=c0)
    elapsed = time.perf_counter() - t0
    report["faiss"] = {
        "version": faiss.__version__,
        "seconds": round(elapsed, 3),
        "n_iter": iters,
        "msPerIteration": round(1000 * elapsed / iters),
        "lastObjective": float(fk.obj[-1]) if len(fk.obj) else None,
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
