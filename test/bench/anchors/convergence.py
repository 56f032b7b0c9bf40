"""Time scikit-learn's K-means (Lloyd) to convergence on the same data and initial centroids as
`codebook bench kmeans --tol 1e-4` (write them with bench/kmeans/write-bench-data.ts). Prints one
JSON object.

    OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 convergence.py points.npy init.npy ITERS

- `sklearn_tol1e-4`: KMeans(tol=1e-4, max_iter=300). scikit-learn's tol is on the centre shift
  (squared Frobenius norm relative to the data's mean variance), not Codebook's relative inertia
  change, so the iteration counts differ.
- `sklearn_fixed`: exactly ITERS iterations (tol=0): pass the iterations Codebook needed to compare
  the time for the same work. scikit-learn runs one extra assignment after its loop.
"""

import json
import sys
import time

import numpy as np
from sklearn.cluster import KMeans


def main() -> None:
    x = np.ascontiguousarray(np.load(sys.argv[1]), dtype=np.float32)
    c0 = np.ascontiguousarray(np.load(sys.argv[2]), dtype=np.float32)
    iters = int(sys.argv[3])
    out = {}
    for label, kw in [("sklearn_tol1e-4", {"max_iter": 300, "tol": 1e-4}), ("sklearn_fixed", {"max_iter": iters, "tol": 0})]:
        km = KMeans(n_clusters=c0.shape[0], init=c0, n_init=1, algorithm="lloyd", **kw)
        t = time.perf_counter()
        km.fit(x)
        s = time.perf_counter() - t
        out[label] = {"seconds": round(s, 3), "n_iter": int(km.n_iter_), "inertia": float(km.inertia_)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
