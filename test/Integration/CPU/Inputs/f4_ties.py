"""Inputs and expected bytes of paged-f4.mlir's @compress_ties: rows whose
quotients x / scale fall on FP4 E2M1's rounding ties, its saturation and a
NaN, compressed with pool_size = 1 (the pooled row is the key) into one page
of 4 entries of D = 16.

  f4_ties.py write DIR     the inputs
  f4_ties.py check PAGES   exit 1 unless PAGES (the result) holds, byte for
                           byte, the codes and scales written out below

The expected codes come from the OCP FP4 E2M1 definition (1 sign, 2
exponent bits of bias 1, 1 mantissa bit: 0, 0.5, 1, 1.5, 2, 3, 4, 6),
rounded to nearest with ties to the even mantissa, by hand: not computed
by any code under test. Plain Python (no NumPy)."""
import math
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "..", "scripts"))
from npyio import read_npy, write_npy  # noqa: E402

E, D = 4, 16
TIES = [6, 0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5,
        -0.25, -0.75, -1.25, -1.75, -2.5, -3.5, -5, -6]
# absmax 12 (scale 2): quotients 6, 0.2, 0.6, 1.1, 1.6, 2.2, 2.9, 4.5, 5.8,
# 0.1, -0.3, -0.9, -2.6, -3.7, -5.2, 0 (no ties).
NEAR = [12, 0.4, 1.2, 2.2, 3.2, 4.4, 5.8, 9, 11.6,
        0.2, -0.6, -1.8, -5.2, -7.4, -10.4, 0]
# A NaN with its sign bit set: the code is +0 all the same.
NAN_ROW = [float("-nan")] + [1.0] * (D - 1)
ROWS = [TIES, NEAR, NAN_ROW, [-x for x in TIES]]
# Code (sign << 3 | magnitude index) of each value above, by hand.
CODES = [
    [0x7, 0x0, 0x2, 0x2, 0x4, 0x4, 0x6, 0x6,
     0x8, 0xA, 0xA, 0xC, 0xC, 0xE, 0xE, 0xF],
    [0x7, 0x0, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7,
     0x0, 0x9, 0xA, 0xD, 0xE, 0xF, 0x0],
    [0x0] * D,  # no NaN code: +0, with a NaN scale
    [0xF, 0x8, 0xA, 0xA, 0xC, 0xC, 0xE, 0xE,
     0x0, 0x2, 0x2, 0x4, 0x4, 0x6, 0x6, 0x7],
]
SCALES = [1.0, 2.0, float("nan"), 1.0]


def write(out):
    keys = [x for row in ROWS for x in row]
    write_npy(out + "/keys.npy", "<f4", (E, D), keys)
    write_npy(out + "/scores.npy", "<f4", (E,), [0.5, -1.0, 2.0, 0.0])
    write_npy(out + "/pages.npy", "|i1", (1, E * (D // 2 + 4)),
              [0] * (E * (D // 2 + 4)))
    write_npy(out + "/slots.npy", "<i8", (E,), list(range(E)))


def check(path):
    _, values = read_npy(path)
    page = bytes(v & 0xFF for v in values)
    failures = []
    for e in range(E):
        codes = page[e * D // 2:(e + 1) * D // 2]
        got = [(codes[d // 2] >> (4 * (d % 2))) & 0xF for d in range(D)]
        if got != CODES[e]:
            failures.append("entry %d: codes %s, expected %s" %
                            (e, got, CODES[e]))
        at = E * D // 2 + 4 * e
        scale = struct.unpack("<f", page[at:at + 4])[0]
        if not (scale == SCALES[e] or
                (math.isnan(scale) and math.isnan(SCALES[e]))):
            failures.append("entry %d: scale %r, expected %r" %
                            (e, scale, SCALES[e]))
    for failure in failures:
        print(failure)
    print("FAILED" if failures else "ties ok")
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2]))
