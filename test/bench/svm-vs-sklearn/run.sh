#!/usr/bin/env bash
# Codebook's linear SVM vs scikit-learn's LinearSVC(C=1) on the same digits bag-of-words
# histograms (k = 16, 64, 256 by default): builds the histograms with the evaluation pipeline,
# writes them as .npy, scores both classifiers and fails if the accuracies differ by more than
# 1.5 points. Runs the runtime from source (no build needed). Not part of `npm test`.
#
#   test/bench/svm-vs-sklearn/run.sh
#
# Environment: KS (comma-separated vocabulary sizes), C, IMAGES (a 20×20 grid, 5 rows per class),
# OUT (where the .npy histograms go; default a temp dir), PYTHON (default /usr/bin/python3, Debian's
# python3-sklearn).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
cd "$ROOT"
exec node --conditions=@codebook/source --import tsx "$HERE/compare.ts"
