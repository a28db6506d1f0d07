#!/usr/bin/env python3
"""Prints rows of an .npy result for FileCheck: one line per row,
"NAME[r]: v0 v1 ...", at most COLS values, floats as Python reprs (nan,
-nan with the sign bit, inf, 0.00390625, ...). Usage:
  print_npy.py FILE.npy NAME ROW[,ROW...] [COLS]
"""
import math
import sys

import numpy as np


def show(v):
    if isinstance(v, float) and math.isnan(v):
        return "-nan" if math.copysign(1.0, v) < 0 else "nan"
    return repr(v)


def main():
    array = np.load(sys.argv[1])
    name = sys.argv[2]
    rows = [int(r) for r in sys.argv[3].split(",")]
    cols = int(sys.argv[4]) if len(sys.argv) > 4 else None
    flat = array.reshape(array.shape[0], -1) if array.ndim > 1 else array.reshape(-1, 1)
    for r in rows:
        values = flat[r][:cols].tolist()
        print(f"{name}[{r}]: " + " ".join(show(v) for v in values))


if __name__ == "__main__":
    main()
