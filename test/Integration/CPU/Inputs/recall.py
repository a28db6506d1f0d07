#!/usr/bin/env python3
"""recall.py EXACT.npy A.npy B.npy: the fraction of EXACT's tokens (>= 0)
that A and B each select, printed; fails unless A's is above B's.
"""
import sys

import numpy as np


def recall(exact, selected):
    want = set(int(t) for t in exact.ravel() if t >= 0)
    got = set(int(t) for t in selected.ravel() if t >= 0)
    return len(want & got) / len(want)


def main():
    exact, a, b = (np.load(path) for path in sys.argv[1:4])
    ra, rb = recall(exact, a), recall(exact, b)
    print(f"recall {ra:.3f} vs {rb:.3f}")
    if not ra > rb:
        sys.exit(f"recall.py: {ra:.3f} is not above {rb:.3f}")


if __name__ == "__main__":
    main()
