"""Scores scikit-learn's LinearSVC(C) on the histograms compare.ts wrote.

Usage: /usr/bin/python3 svm.py DIR C K [K ...]
Reads DIR/k{K}-{train,test}-{x,y}.npy and prints one JSON object: {"K": accuracy, ...}.
"""
import json
import sys

import numpy as np
from sklearn.svm import LinearSVC


def main() -> None:
    folder, c, ks = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    out = {}
    for k in ks:
        load = lambda name: np.load(f"{folder}/k{k}-{name}.npy")  # noqa: E731
        x_train, y_train = load("train-x"), load("train-y").ravel()
        x_test, y_test = load("test-x"), load("test-y").ravel()
        # LinearSVC's defaults are LIBLINEAR's L2R_L2LOSS_SVC_DUAL with a regularised intercept, as ours.
        model = LinearSVC(C=c, random_state=0).fit(x_train, y_train)
        out[k] = float((model.predict(x_test) == y_test).mean())
    print(json.dumps(out))


if __name__ == "__main__":
    main()
