import { execFile } from 'node:child_process'

/** The Python that has Debian's `python3-faiss` (a system package, not a pip one). */
export const DEFAULT_FAISS_PYTHON = '/usr/bin/python3'

/** FAISS's K-means on the same data and init, or why it could not run. */
export type FaissAnchor =
  | {
      available: true
      version: string
      iterations: number
      /** Wall time of `Kmeans.train`, ms (FAISS pays n·k·d every iteration: no bounds). */
      totalMs: number
      msPerIteration: number
      /** Sum of squared distances of the last iteration's assignment (FAISS's `obj[-1]`). */
      inertia: number
    }
  | { available: false; reason: string }

// Every point is used (no subsampling: max_points_per_centroid = n), started from the given
// centroids, one thread pool over all cores as FAISS does by default.
const SCRIPT = `
import json, sys, time
try:
    import numpy as np
    import faiss
except ImportError as e:
    print(json.dumps({"available": False, "reason": "cannot import faiss: " + str(e)}))
    sys.exit(0)
x = np.ascontiguousarray(np.load(sys.argv[1]), dtype=np.float32)
c0 = np.ascontiguousarray(np.load(sys.argv[2]), dtype=np.float32)
iters = int(sys.argv[3])
n, d = x.shape
km = faiss.Kmeans(d, c0.shape[0], niter=iters, verbose=False, seed=1, min_points_per_centroid=1, max_points_per_centroid=n)
t0 = time.perf_counter()
km.train(x, init_centroids=c0)
ms = 1000 * (time.perf_counter() - t0)
print(json.dumps({"available": True, "version": faiss.__version__, "iterations": iters, "totalMs": ms,
                  "msPerIteration": ms / iters, "inertia": float(km.obj[-1])}))
`

/**
 * Runs FAISS's K-means (Lloyd, `faiss.Kmeans`) through `python` on the .npy `points` and `init`
 * for `iterations` iterations. Resolves `{ available: false }` with the reason when the Python
 * or its `faiss` module is missing, so a bench without FAISS still prints its own figures.
 */
export function runFaissAnchor(
  points: string,
  init: string,
  iterations: number,
  python = DEFAULT_FAISS_PYTHON,
): Promise<FaissAnchor> {
  return new Promise((resolve) => {
    execFile(
      python,
      ['-c', SCRIPT, points, init, String(iterations)],
      { maxBuffer: 1 << 20, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } },
      (error, stdout, stderr) => {
        const last = stdout.trim().split('\n').at(-1) ?? ''
        if (!error && last.startsWith('{')) {
          resolve(JSON.parse(last) as FaissAnchor)
          return
        }
        const why =
          (error as NodeJS.ErrnoException | null)?.code === 'ENOENT'
            ? `${python} not found`
            : `${python} failed: ${(stderr.trim().split('\n').at(-1) ?? '') || error?.message}`
        resolve({ available: false, reason: why })
      },
    )
  })
}
