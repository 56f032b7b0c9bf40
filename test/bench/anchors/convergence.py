"""Time scikit-learn's K-means (Lloyd) to convergence under Codebook's stopping rule, on the same
data and initial centroids as `codebook bench kmeans --tol TOL` (see convergence.sh). Prints one
JSON object.

    OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 convergence.py points.npy init.npy TOL

scikit-learn's own `tol` is on the centre shift, not the relative inertia change, so it is not
used to stop. Instead:
1. an untimed run (tol=0, verbose=1, at most 100 iterations) records the inertia of every iteration (the assignment to
   that iteration's input centres, as Codebook reports it) and finds N, the first iteration with
   |I(N-1) - I(N)| / I(N-1) <= TOL: Codebook's rule;
2. the timed run is KMeans(max_iter=N-1, tol=0): N-1 Lloyd iterations plus scikit-learn's final
   assignment, i.e. exactly N assignments, ending with I(N) as `inertia_` (Codebook also runs N
   assignments and reports I(N)). `sklearn_max_iter_N` (one more update and assignment) and
   scikit-learn's own tol=1e-4 run are reported for reference.
"""

import contextlib
import io
import json
import re
import sys
import time

import numpy as np
from sklearn.cluster import KMeans


# The untimed recording run stops here (or earlier if no label changes).
MAX_ITER = 100


def fit(x: np.ndarray, c0: np.ndarray, **kw) -> tuple[KMeans, float]:
    km = KMeans(n_clusters=c0.shape[0], init=c0, n_init=1, algorithm="lloyd", **kw)
    t = time.perf_counter()
    km.fit(x)
    return km, time.perf_counter() - t


def main() -> None:
    x = np.ascontiguousarray(np.load(sys.argv[1]), dtype=np.float32)
    c0 = np.ascontiguousarray(np.load(sys.argv[2]), dtype=np.float32)
    tol = float(sys.argv[3])
    log = io.StringIO()
    with contextlib.redirect_stdout(log):
        fit(x, c0, max_iter=MAX_ITER, tol=0, verbose=1)
    inertia = [float(v.rstrip(".")) for v in re.findall(r"Iteration \d+, inertia ([0-9.e+-]+)", log.getvalue())]
    n_iter = 0
    for i in range(1, len(inertia)):
        if abs(inertia[i - 1] - inertia[i]) / inertia[i - 1] <= tol:
            n_iter = i + 1
            break
    if n_iter == 0:
        sys.exit(f"the relative inertia change stayed above {tol} for {len(inertia)} iterations")
    out = {"tol": tol, "iterations": n_iter, "inertiaAtN": inertia[n_iter - 1], "inertiaPerIteration": inertia[:n_iter]}
    if n_iter >= 2:
        km, s = fit(x, c0, max_iter=n_iter - 1, tol=0)
        out["sklearn"] = {"seconds": round(s, 3), "assignments": n_iter, "inertia": float(km.inertia_)}
    km, s = fit(x, c0, max_iter=n_iter, tol=0)
    out["sklearn_max_iter_N"] = {"seconds": round(s, 3), "n_iter": int(km.n_iter_), "inertia": float(km.inertia_)}
    km, s = fit(x, c0, max_iter=300, tol=1e-4)
    out["sklearn_own_tol1e-4"] = {"seconds": round(s, 3), "n_iter": int(km.n_iter_), "inertia": float(km.inertia_)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
